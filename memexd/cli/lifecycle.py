"""``memexd archive`` and ``memexd context``: the lifecycle from a shell.

Both open the graph themselves (the data directory, or ``--graph-uri``), as
``memexd embed`` does, with every grant: they are operator tools. ``archive``
prints what it archived (or, with ``--dry-run``, would archive), skipped and
kept; ``context`` prints an agent's context block as the service builds it
(a ``--cue`` is recalled by words only: the command loads no model).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from memexd.core import Memex
from memexd.errors import BadUserInput, MemexError
from memexd.events.vocabulary import Origin
from memexd.memory.archive import ArchiveReport, ArchiveRequest
from memexd.memory.context import ContextRequest
from memexd.memory.filters import MemoryFilter
from memexd.settings import Settings

__all__ = ["HANDLERS", "add_parsers", "runner"]


def add_parsers(commands: Any) -> list[argparse.ArgumentParser]:
    archive = commands.add_parser(
        "archive", help="archive items whose decay score is below a threshold (--dry-run first)"
    )
    archive.add_argument("--author", required=True, help="who archives (on every event)")
    archive.add_argument("--scope-prefix", help="only items under this scope prefix")
    archive.add_argument("--threshold", type=float, help="decay score below which (0.1)")
    archive.add_argument("--half-life-ms", type=float, help="the half-life (the server's)")
    archive.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    archive.add_argument("--json", action="store_true", help="the whole report as JSON")
    context = commands.add_parser("context", help="print an agent's context block")
    context.add_argument("--scope-prefix", help="only items under this scope prefix")
    context.add_argument("--session", help="the session whose items are Task context")
    context.add_argument("--task", help="the task whose items are Task context")
    context.add_argument("--intent", help="the intent whose items are Task context")
    context.add_argument("--cue", help="order each section by recall of this cue")
    context.add_argument("--max-bytes", type=int, help="at most this many bytes (4096)")
    context.add_argument("--by-decay", action="store_true", help="order by decay score")
    return [archive, context]


def _archive(args: argparse.Namespace, memex: Memex) -> Awaitable[str]:
    request = ArchiveRequest(
        args.author, MemoryFilter(scope_prefix=args.scope_prefix), args.threshold,
        args.half_life_ms, None, args.dry_run, "memexd archive",
    )  # fmt: skip

    async def run() -> str:
        report = await memex.archival.by_decay(request, Origin())
        return _report(report, as_json=args.json)

    return run()


def _report(r: ArchiveReport, *, as_json: bool) -> str:
    if as_json:
        return json.dumps({"archived": r.archived, "skipped": r.skipped,
                           "retained": r.retained, "dryRun": r.dry_run})  # fmt: skip
    verb = "would archive" if r.dry_run else "archived"
    lines = [f"{verb} {len(r.archived):,} items; {len(r.skipped):,} PROJECT items kept "
             f"below the threshold; {len(r.retained):,} at or above it (lists stop at the "
             "server's limits)"]  # fmt: skip
    lines += [f"  {item_id}" for item_id in r.archived]
    return "\n".join(lines)


def _context(args: argparse.Namespace, memex: Memex) -> Awaitable[str]:
    request = ContextRequest(
        args.scope_prefix, args.session, args.task, args.intent, args.cue, args.max_bytes,
        args.by_decay,
    )  # fmt: skip

    async def run() -> str:
        block = await memex.contexts.block(request)
        return block.text.rstrip("\n")

    return run()


def runner(
    command: Callable[[argparse.Namespace, Memex], Awaitable[str]],
) -> Callable[[argparse.Namespace, Settings], int]:
    def handle(args: argparse.Namespace, settings: Settings) -> int:
        try:
            out = asyncio.run(_with_memex(settings, lambda memex: command(args, memex)))
        except BadUserInput:
            raise  # the command line's usage error (status 2)
        except MemexError as exc:
            print(f"memexd: {exc.message}", file=sys.stderr)
            return 1
        if out:
            print(out)
        return 0

    return handle


async def _with_memex(settings: Settings, work: Callable[[Memex], Awaitable[str]]) -> str:
    from memexd.graph.open import open_migrated

    store, _ = await open_migrated(settings)
    try:
        return await work(Memex(store, settings.model_copy(update={"embedding": "off"})))
    finally:
        await store.close()


HANDLERS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {
    "archive": runner(_archive),
    "context": runner(_context),
}
