"""A job's pass over every item, a page a batch (``cypher/shapes/scan_match``).

The cursor is the engine's own (an id on Neo4j, an internal id range on
FalkorDB) and opaque here; progress is the share of the items passed.
"""

from __future__ import annotations

from typing import Any

from memexd.jobs.run import JobRun
from memexd.types import Row

__all__ = ["Scan"]


class Scan:
    def __init__(self, run: JobRun, total: int, end: Any, start: Any) -> None:
        self.run, self.total, self.end = run, total, end
        self.after: Any = start
        self.seen = 0
        self.done = False

    @classmethod
    async def start(cls, run: JobRun) -> Scan:
        row = (await run.graph.read("job_scan_start"))[0]
        return cls(run, int(row["items"]), row["scan_end"], row["start"])

    @property
    def progress(self) -> float:
        return 1.0 if self.done else min(self.seen / max(self.total, 1), 0.99)

    async def page(self, statement: str, params: dict[str, Any], *, write: bool = True) -> Row:
        """Run the statement over the current page (it includes the scan's
        page); :meth:`advance` moves on (a batch that lost a race runs its
        page again)."""
        asked = {**params, "after": self.after, "limit": self.run.batch, "scan_end": self.end}
        run = self.run.graph.write if write else self.run.graph.read
        return (await run(statement, asked))[0]

    def advance(self, row: Row) -> None:
        self.after, self.seen = row["next"], self.seen + int(row["seen"])
        self.done = self.after is None
