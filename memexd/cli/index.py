"""``memexd index PATH…``: a project's documents as PROJECT items (seed 000).

Files are read here; splitting, hashing and the writes are
:mod:`memexd.memory.documents`'. A directory is indexed for its Markdown files
(``.md``, ``.markdown``; hidden files and directories left out), and what was
indexed under it before and is gone now is retracted; a file named is indexed
whatever its kind (Markdown split by heading, anything else whole). Paths are
kept relative to the working directory when under it, so a project indexed
from its root names its files as its people do. Opens the graph itself, with
every grant, like ``memexd archive``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from memexd.cli.lifecycle import runner
from memexd.core import Memex
from memexd.errors import BadUserInput
from memexd.events.vocabulary import Origin
from memexd.memory.documents import MARKDOWN, Document, DocumentIndex, IndexReport
from memexd.settings import Settings

__all__ = ["HANDLERS", "add_parsers"]

#: At most this many files a run.
MAX_FILES = 10_000


def add_parsers(commands: Any) -> list[argparse.ArgumentParser]:
    index = commands.add_parser("index", help="index a project's documents as PROJECT items")
    index.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or directories")
    index.add_argument("--scope", default="project", help="the items' scope (project)")
    index.add_argument("--author", default="memexd:index", help="on every event (memexd:index)")
    index.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    index.add_argument("--json", action="store_true", help="the whole report as JSON")
    return [index]


def _index(args: argparse.Namespace, memex: Memex) -> Awaitable[str]:
    docs, gone = collect(args.paths)

    async def run() -> str:
        report = await DocumentIndex(memex.items, memex.item_reads, memex.limits).index(
            docs, gone, scope=args.scope, author=args.author, dry_run=args.dry_run,
            origin=Origin(),
        )  # fmt: skip
        return _report(report, len(docs), as_json=args.json)

    return run()


def collect(paths: list[Path]) -> tuple[list[Document], list[str]]:
    """The documents under ``paths`` and the indexed directories' prefixes."""
    files: dict[str, Document] = {}
    gone: list[str] = []
    for path in paths:
        if path.is_dir():
            gone.append(_name(path).rstrip("/") + "/")
            for found in sorted(path.rglob("*")):
                if (
                    found.suffix.lower() in MARKDOWN
                    and found.is_file()
                    and not _hidden(found, path)
                ):
                    files.setdefault(_name(found), _read(found, markdown=True))
        elif path.is_file():
            files.setdefault(_name(path), _read(path, markdown=_markdown(path)))
        else:
            raise BadUserInput(f"{path}: no such file or directory", field="path")
        if len(files) > MAX_FILES:
            raise BadUserInput(f"more than {MAX_FILES:,} files", field="path")
    return list(files.values()), gone


def _name(path: Path) -> str:
    full = path.resolve()
    try:
        return full.relative_to(Path.cwd().resolve()).as_posix() or "."
    except ValueError:
        return full.as_posix()


def _markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _read(path: Path, *, markdown: bool) -> Document:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadUserInput(f"{path}: not UTF-8 text", field="path") from None
    return Document(_name(path), text, markdown)


def _report(r: IndexReport, files: int, *, as_json: bool) -> str:
    if as_json:
        return json.dumps({"created": r.created, "updated": r.updated, "skipped": r.skipped,
                           "retracted": r.retracted, "dryRun": r.dry_run})  # fmt: skip
    verb = "would be " if r.dry_run else ""
    return (f"files: {files:,}; {verb}created {len(r.created):,}, {verb}updated "
            f"{len(r.updated):,}, skipped {len(r.skipped):,} unchanged, {verb}retracted "
            f"{len(r.retracted):,} sections")  # fmt: skip


HANDLERS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {"index": runner(_index)}
