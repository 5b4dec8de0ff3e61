"""``memexd export | import | replay`` (their flags: ``memexd.cli``): MemEX files in and out.

Each command checks its whole input file before it starts the engine (JSON
syntax, and for ``import`` every record), so a malformed file is one line on
stderr, exit status 1, and nothing written. The file is then read a second
time to apply it; stdin (``-``) is first copied to a temporary file for that.
The commands run with every grant (they talk to the engine, not through the
API), apply pending migrations first, and log the events of what they write.
Progress goes to stderr, summaries to stdout (stderr when stdout carries data).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from uuid import uuid4

import orjson

from memexd.cli.progress import Bar, Done
from memexd.errors import BadUserInput, InvalidTimestamp, MemexError, StartupError
from memexd.settings import Settings
from memexd.transplant.export import KEYS, Exporter, ExportOptions
from memexd.transplant.files import (
    STDIO,
    ExportWriter,
    export_pages,
    export_records,
    holds_records,
    local_copy,
    log_values,
    output,
    placed_values,
    write_failures,
)
from memexd.transplant.replay import Replay, ReplayOutcome
from memexd.transplant.slices import Importer, ImportOptions, ImportReport, parse_slice

if TYPE_CHECKING:
    from memexd.core import Memex
    from memexd.events.vocabulary import Origin

__all__ = ["HANDLERS"]

FAILED = 1
INTERRUPTED = 130
#: Records per round trip of a whole-graph export.
EXPORT_PAGE = 2_000
#: Failures listed on stderr when they have no file (a log read from stdin).
SHOWN_FAILURES = 10


# ---------------------------------------------------------------- shared


@asynccontextmanager
async def _core(settings: Settings) -> AsyncIterator[Memex]:
    from memexd.core import Memex
    from memexd.graph.open import open_migrated

    store, _ = await open_migrated(settings)
    try:
        yield Memex(store, settings)
    finally:
        await store.close()


def _say(args: argparse.Namespace, text: str, *, data_on_stdout: bool = False) -> None:
    if not args.quiet:
        print(text, file=sys.stderr if data_on_stdout else sys.stdout, flush=True)


@contextmanager
def _output_or_none(name: str | None) -> Iterator[IO[bytes] | None]:
    """``output(name)``, opened before the work so a bad path fails first."""
    if name is None:
        yield None
    else:
        with output(name) as out:
            yield out


def _label(name: str) -> str:
    return "stdin" if name == STDIO else name


@cache
def _origin() -> Origin:
    """One trace id for every event a run (this process) logs: the summary
    names it, so ``undoTrace`` can take the whole run back."""
    from memexd.events.vocabulary import Origin

    return Origin(trace_id=uuid4().hex)


def _guarded(run: Callable[[argparse.Namespace, Settings, Done], int]) -> Any:
    """``run`` with faults that are not a bad file (engine down, a limit) as
    one line and exit status 1, saying what was done before."""

    def handler(args: argparse.Namespace, settings: Settings) -> int:
        done = Done()
        signal.signal(signal.SIGTERM, _interrupt)  # stop as on Ctrl-C: the engine is closed
        try:
            return run(args, settings, done)
        except (BadUserInput, StartupError):
            raise
        except (MemexError, OSError) as exc:  # OSError: a file that cannot be read or written
            reason = exc.message if isinstance(exc, MemexError) else _os_reason(exc)
            print(f"memexd: {args.command} stopped: {reason}{_kept(args, done)}", file=sys.stderr)
            return FAILED
        except KeyboardInterrupt:
            print(f"memexd: {args.command} interrupted{_kept(args, done)}", file=sys.stderr)
            return INTERRUPTED

    return handler


def _os_reason(exc: OSError) -> str:
    return f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _kept(args: argparse.Namespace, done: Done) -> str:
    if args.command == "export":
        return f"; {args.file} was not written" if args.file != STDIO else ""
    what = "records imported" if args.command == "import" else "entries replayed"
    return f"; the {done.count:,} {what} before stay" if done.count else ""


# ---------------------------------------------------------------- replay


def _replay(args: argparse.Namespace, settings: Settings, done: Done) -> int:
    label = _label(args.file)
    target = args.failures or (None if args.file == STDIO else f"{args.file}.failures.ndjson")
    with local_copy(args.file) as path, _output_or_none(target) as failures:
        total, envelopes = _scan(path, label, args)
        what = "envelopes" if envelopes else "commands"
        bar = Bar(args, f"replaying {what}", total, done)
        start = time.perf_counter()
        outcome = asyncio.run(_apply_log(path, label, envelopes, settings, bar))
        seconds = time.perf_counter() - start
        if failures is not None:
            write_failures(failures, outcome.failures)
    rate = f"{total / seconds if seconds else 0:,.0f} {what}/s"
    codes = sorted(Counter(f.code for f in outcome.failures).items())
    failed = f" ({', '.join(f'{code} {n:,}' for code, n in codes)})" if codes else ""
    kept = f"; failures in {target}" if target not in (None, STDIO) else ""
    _say(args, f"replayed {total:,} {what} from {label} in {seconds:.1f} s ({rate}): "
               f"{outcome.applied:,} applied, {len(outcome.failures):,} failed{failed}{kept}; "
               f"trace {_origin().trace_id}", data_on_stdout=target == STDIO)  # fmt: skip
    if target is None and not args.quiet:
        _list_failures(outcome)
    return 0


def _list_failures(outcome: ReplayOutcome) -> None:
    """The first failures on stderr, when they have no file (a log from stdin)."""
    for f in outcome.failures[:SHOWN_FAILURES]:
        print(f"  index {f.index}: {f.code}: {f.message}", file=sys.stderr)
    if len(outcome.failures) > SHOWN_FAILURES:
        more = len(outcome.failures) - SHOWN_FAILURES
        print(f"  … and {more:,} more: use --failures FILE to keep them all", file=sys.stderr)


def _scan(path: Path, label: str, args: argparse.Namespace) -> tuple[int, bool]:
    """The number of entries and whether they are envelopes (``ts`` or
    ``payload`` keys; commands have neither), reading the whole file."""
    first: dict[bool, int] = {}
    total = 0
    for value in log_values(path, label):
        if isinstance(value, dict):
            first.setdefault("ts" in value or "payload" in value, total)
        total += 1
    if args.envelopes or args.commands:
        return total, bool(args.envelopes)
    if len(first) == 2:
        raise BadUserInput(
            f"{label} mixes commands (entry {first[False]}) and envelopes (entry "
            f"{first[True]}): say which it holds with --commands or --envelopes"
        )
    return total, first.get(True) is not None


async def _apply_log(
    path: Path, label: str, envelopes: bool, settings: Settings, bar: Bar
) -> ReplayOutcome:
    async with _core(settings) as memex:
        replay = Replay(memex)
        run = replay.envelopes if envelopes else replay.commands
        with bar:
            return await run(log_values(path, label), _origin(), progress=bar.advance)


# ---------------------------------------------------------------- import


def _import(args: argparse.Namespace, settings: Settings, done: Done) -> int:
    from memexd.intents.records import check_scope

    if args.scope is not None:
        check_scope(args.scope)
    options = ImportOptions(args.skip_existing, args.shallow_compare, args.re_id, args.scope)
    label, page = _label(args.file), settings.traversal_max_nodes
    with local_copy(args.file) as path, _output_or_none(args.report) as report_file:
        records = holds_records(path)
        counts = _check_records(path, label, settings) if records else _check_slice(
            path, label, settings)  # fmt: skip
        total = sum(counts.values())
        if args.re_id and total > page:
            raise BadUserInput(
                f"{label}: --re-id needs the whole file in one import, and it holds {total:,} "
                f"records, more than {page:,} (MEMEXD_TRAVERSAL_MAX_NODES)"
            )
        bar = Bar(args, "importing", total, done)
        write = _write_records if records else _write_slices
        report, seconds = asyncio.run(write(path, label, counts, options, settings, bar))
        if report_file is not None:
            report_file.write(orjson.dumps(report.json(), option=orjson.OPT_INDENT_2) + b"\n")
    lines = [
        f"imported {total:,} records from {label} in {seconds:.1f} s; trace {_origin().trace_id}"
    ]
    for bucket, ids in report.json().items():
        found = ", ".join(f"{k} {len(ids[k]):,}" for k in KEYS if ids[k])
        lines.append(f"  {bucket}: {found or 'none'}")
    _say(args, "\n".join(lines), data_on_stdout=args.report == STDIO)
    return 0


def _check_records(path: Path, label: str, settings: Settings) -> dict[str, int]:
    """Every memory record of a records file (NDJSON or a JSON array) checked
    as an export's are; the count, as :func:`_check_slice` gives it."""
    from memexd.memory.validation import Limits
    from memexd.transplant.memories import checked_record

    limits, count = Limits.of(settings), 0
    for where, raw in placed_values(path, label):
        try:
            checked_record(limits, where, raw)
        except (BadUserInput, InvalidTimestamp) as exc:
            raise BadUserInput(f"{label}: {exc.message}") from None
        count += 1
    return {"memories": count}


async def _write_records(
    path: Path, label: str, counts: dict[str, int], options: ImportOptions,
    settings: Settings, bar: Bar,
) -> tuple[ImportReport, float]:  # fmt: skip
    """The report and the seconds the writing took (from a ready engine)."""
    from memexd.transplant.memories import import_records

    async with _core(settings) as memex:
        start = time.perf_counter()
        with bar:
            report = await import_records(
                memex, placed_values(path, label), options, _origin(), bar.advance
            )
        return report, time.perf_counter() - start


def _check_slice(path: Path, label: str, settings: Settings) -> dict[str, int]:
    """Every record checked as ``parse_slice`` checks it; the count per kind."""
    from memexd.memory.validation import Limits

    limits, counts = Limits.of(settings), dict.fromkeys(KEYS, 0)
    for kind, record in export_records(path, label):
        try:
            parse_slice({kind: [record]}, limits, 1)
        except (BadUserInput, InvalidTimestamp) as exc:
            where = exc.message.replace(f"slice.{kind}[0]", f"{kind}[{counts[kind]}]", 1)
            raise BadUserInput(f"{label}: {where}") from None
        counts[kind] += 1
    return counts


async def _write_slices(
    path: Path, label: str, counts: dict[str, int], options: ImportOptions,
    settings: Settings, bar: Bar,
) -> tuple[ImportReport, float]:  # fmt: skip
    """The report and the seconds the writing took (from a ready engine)."""
    report, origin = ImportReport(), _origin()
    async with _core(settings) as memex:
        start = time.perf_counter()
        with bar:
            for page in export_pages(path, label, counts, settings.traversal_max_nodes):
                part = await Importer(memex).slice(page, options, origin)
                for bucket in ("created", "updated", "skipped", "conflicts"):
                    mine, theirs = getattr(report, bucket), getattr(part, bucket)
                    for kind in KEYS:
                        getattr(mine, kind).extend(getattr(theirs, kind))
                bar.advance(sum(len(records) for records in page.values()))
        return report, time.perf_counter() - start


# ---------------------------------------------------------------- export


def _export(args: argparse.Namespace, settings: Settings, done: Done) -> int:
    options = ExportOptions(
        args.memory_ids, args.intent_ids, args.task_ids, args.include_parents,
        args.include_children, args.include_aliases, args.include_related_tasks,
        args.include_related_intents,
    )  # fmt: skip
    anchored = bool(args.memory_ids or args.intent_ids or args.task_ids)
    walks = (options.include_parents, options.include_children, options.include_aliases,
             options.include_related_tasks, options.include_related_intents)  # fmt: skip
    if not anchored and any(walks):
        raise BadUserInput("--include-… walks from anchors: give --memory-ids, --intent-ids or "
                           "--task-ids (with none, the whole graph is exported)")  # fmt: skip
    bar = Bar(args, "exporting", None, done)
    start = time.perf_counter()
    with output(args.file) as out:
        writer = ExportWriter(out)
        asyncio.run(_read_graph(options if anchored else None, writer, settings, bar))
        writer.close()
    seconds = time.perf_counter() - start
    found = ", ".join(f"{kind} {n:,}" for kind, n in writer.counts.items())
    where = "stdout" if args.file == STDIO else args.file
    _say(args, f"exported {found} to {where} in {seconds:.1f} s", data_on_stdout=where == "stdout")
    return 0


async def _read_graph(
    options: ExportOptions | None, writer: ExportWriter, settings: Settings, bar: Bar
) -> None:
    async with _core(settings) as memex:
        if options is not None:
            writer.add(await Exporter(memex).slice(options))
            return
        with bar:
            async for page in Exporter(memex).everything(min(EXPORT_PAGE, settings.max_page)):
                bar.advance(writer.add(page))


HANDLERS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {
    "export": _guarded(_export),
    "import": _guarded(_import),
    "replay": _guarded(_replay),
}
