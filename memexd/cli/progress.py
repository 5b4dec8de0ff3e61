"""The commands' progress bar: rich on stderr, shown on a terminal or when
asked for (``--progress``), never with ``--quiet``; it also counts what was
done, so an interrupted command can say how far it got."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Bar", "Done"]


@dataclass
class Done:
    """How many entries a run has processed (told when it stops half-way)."""

    count: int = 0


class Bar:
    """A progress bar for ``what`` out of ``total`` (unknown: ``None``)."""

    def __init__(
        self, args: argparse.Namespace, what: str, total: int | None, done: Done | None = None
    ) -> None:
        self.done = Done() if done is None else done
        self.progress: Any = None
        if args.quiet or not (args.progress or sys.stderr.isatty()):
            return
        from rich import progress as p
        from rich.console import Console

        self.progress = p.Progress(
            p.TextColumn(what), p.BarColumn(), p.MofNCompleteColumn(), p.TimeElapsedColumn(),
            p.TimeRemainingColumn(), console=Console(stderr=True),
        )  # fmt: skip
        self.task = self.progress.add_task(what, total=total)

    def __enter__(self) -> Bar:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def advance(self, count: int) -> None:
        self.done.count += count
        if self.progress is not None:
            self.progress.advance(self.task, count)
