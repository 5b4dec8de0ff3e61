"""``memexd embed``: embed every waiting item now, with progress.

``--all`` first puts back on the waiting list every item the current model
did not embed (after an upgrade or a model change), a page at a time. What
waits is kept in the graph (the ``Unembedded`` label), so an interrupted run
loses nothing: running it again resumes where it stopped. A running server
embeds the same list in the background; the two never store a vector for a
version that changed since it was read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from memexd.cli.progress import Bar
from memexd.errors import MemexError, StartupError
from memexd.graph import Graph
from memexd.recall.embedding import Pipeline, backlog, ensure_vector_index, mark_all
from memexd.recall.model import E5Small
from memexd.settings import Settings

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    embed = commands.add_parser(
        "embed", help="embed the items waiting for an embedding (--all: every item again)"
    )
    embed.add_argument("--all", action="store_true",
                       help="re-embed every item the current model did not embed")  # fmt: skip
    embed.add_argument("--progress", action="store_true",
                       help="a progress bar on stderr even when it is not a terminal")  # fmt: skip
    embed.add_argument("--quiet", action="store_true", help="no progress, no summary")
    return embed  # type: ignore[no-any-return]


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Embed what waits; an engine fault on the way is one line and status 1
    (what was stored stays: run again to resume)."""
    if settings.embedding == "off":
        raise StartupError("embeddings are off (MEMEXD_EMBEDDING=off)")
    try:
        return asyncio.run(_run(args, settings))
    except StartupError:
        raise
    except MemexError as exc:
        print(f"memexd: embed stopped: {exc.message}; run it again to resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("memexd: embed interrupted; run it again to resume", file=sys.stderr)
        return 130


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    from memexd.graph.open import open_migrated

    store, _ = await open_migrated(settings)
    try:
        graph = Graph(store)
        await ensure_vector_index(graph)
        model = E5Small()
        try:
            if args.all:
                await _mark(graph, model.name, args)
            started, total = time.monotonic(), (await backlog(graph)).waiting
            done = await _embed(graph, model, total, args)
        finally:
            model.close()
    finally:
        await store.close()
    if not args.quiet:
        took = time.monotonic() - started
        print(f"embedded {done:,} items with {model.name} in {took:.1f} s "
              f"({done / took if took else 0:,.0f} items/s)")  # fmt: skip
    return 0


async def _mark(graph: Graph, model: str, args: argparse.Namespace) -> None:
    after, seen = await mark_all(graph, model)
    while seen:
        after, seen = await mark_all(graph, model, after)
    if not args.quiet:
        print(f"every item not embedded by {model} now waits", file=sys.stderr)


async def _embed(graph: Graph, model: E5Small, total: int, args: argparse.Namespace) -> int:
    with Bar(args, "embedding", total) as bar:
        pipeline = Pipeline(graph, model)
        while count := await pipeline.step():
            bar.advance(count)
    return bar.done.count
