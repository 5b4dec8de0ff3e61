"""One job while it runs: what its kind reads and reports through.

A kind (:mod:`memexd.jobs.kinds`) works in batches, each one atomic
statement with its events, through :attr:`JobRun.graph` (bound to the grants
of whoever queued the job), and calls :meth:`JobRun.step` after each: the
step records progress and the result so far, renews the lease, and raises
:class:`Cancelled` when cancelJob asked the job to stop, or :class:`Lost`
when the lease lapsed and another process marked the job FAILED.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memexd.graph import Graph
from memexd.jobs.model import Job, json_text
from memexd.memory.validation import Limits
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = ["Cancelled", "JobRun", "Lost", "Pace", "now_ms"]


class Cancelled(Exception):
    """cancelJob asked the job to stop: it ends CANCELLED after this batch."""


class Lost(Exception):
    """The job is no longer this process's (its lease lapsed)."""


#: How often a running job records its progress, in seconds.
RECORD_EVERY = 0.5


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Pace:
    """How a job uses the engine: items a batch, the sleep after each as a
    multiple of the batch's time, and the lease it renews."""

    batch: int
    yield_ratio: float
    lease_ms: int


class JobRun:
    def __init__(self, job: Job, memex: Memex, owner: str, pace: Pace) -> None:
        #: the core as whoever queued the job (its grants on every query)
        self.memex = memex
        self.graph: Graph = memex.graph
        self.limits: Limits = memex.limits
        self.job, self.owner, self.pace = job, owner, pace
        #: the result so far (kept when the job is cancelled or fails)
        self.result: JSONObject = {}
        self._since = time.monotonic()
        self._recorded = 0.0  # the first batch records at once

    @property
    def batch(self) -> int:
        return self.pace.batch

    @property
    def params(self) -> JSONObject:
        return self.job.params or {}

    @property
    def dry_run(self) -> bool:
        return self.job.dry_run

    async def step(self, progress: float, result: JSONObject) -> None:
        """After a batch: record its progress (0 to 1) and the result so far
        (at most every :data:`RECORD_EVERY` seconds, which is also how soon a
        cancellation is seen), then give the engine back for a while."""
        self.result = result
        if time.monotonic() - self._recorded >= RECORD_EVERY:
            await self._record(progress, result)
            self._recorded = time.monotonic()
        await self.breathe()

    async def breathe(self) -> None:
        """Give the engine back for as long as the work since the last pause
        took, times the yield ratio: callers' queries run in between."""
        await asyncio.sleep((time.monotonic() - self._since) * self.pace.yield_ratio)
        self._since = time.monotonic()

    async def _record(self, progress: float, result: JSONObject) -> None:
        rows = await self.graph.write("job_step", {
            "id": self.job.id, "owner": self.owner, "progress": min(max(progress, 0.0), 1.0),
            "result": json_text(result), "lease_until": now_ms() + self.pace.lease_ms})  # fmt: skip
        if not rows:
            raise Lost(self.job.id)
        if rows[0]["cancel"]:
            raise Cancelled(self.job.id)

    async def renew(self) -> bool:
        """Renew the lease between batches (a batch may take a while)."""
        rows = await self.graph.write("job_step", {
            "id": self.job.id, "owner": self.owner, "progress": None, "result": None,
            "lease_until": now_ms() + self.pace.lease_ms})  # fmt: skip
        return bool(rows)
