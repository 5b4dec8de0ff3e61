"""One job while it runs: what its kind reads and reports through.

A kind (:mod:`memexd.jobs.kinds`) works in batches, each one atomic
statement with its events, through :attr:`JobRun.graph` (bound to the grants
of whoever queued the job), and calls :meth:`JobRun.step` after each: the
step records progress and the result so far, renews the lease, and raises
:class:`Cancelled` when cancelJob asked the job to stop, or :class:`Lost`
when the lease lapsed and another process marked the job FAILED.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from memexd.graph import Graph
from memexd.jobs.model import Job
from memexd.memory.validation import Limits
from memexd.types import JSONObject

__all__ = ["Cancelled", "JobRun", "Lost", "now_ms"]


class Cancelled(Exception):
    """cancelJob asked the job to stop: it ends CANCELLED after this batch."""


class Lost(Exception):
    """The job is no longer this process's (its lease lapsed)."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class JobRun:
    def __init__(
        self, job: Job, graph: Graph, limits: Limits, owner: str, batch: int, lease_ms: int
    ) -> None:
        self.job, self.graph, self.limits = job, graph, limits
        self.owner, self.batch, self.lease_ms = owner, batch, lease_ms
        #: the result so far (kept when the job is cancelled or fails)
        self.result: JSONObject = {}

    @property
    def params(self) -> JSONObject:
        return self.job.params or {}

    @property
    def dry_run(self) -> bool:
        return self.job.dry_run

    async def step(self, progress: float, result: JSONObject) -> None:
        """Record a batch's progress (0 to 1) and the result so far."""
        self.result = result
        rows = await self.graph.write("job_step", {
            "id": self.job.id, "owner": self.owner, "progress": min(max(progress, 0.0), 1.0),
            "result": _text(result), "lease_until": now_ms() + self.lease_ms})  # fmt: skip
        if not rows:
            raise Lost(self.job.id)
        if rows[0]["cancel"]:
            raise Cancelled(self.job.id)

    async def renew(self) -> bool:
        """Renew the lease between batches (a batch may take a while)."""
        rows = await self.graph.write("job_step", {
            "id": self.job.id, "owner": self.owner, "progress": None, "result": None,
            "lease_until": now_ms() + self.lease_ms})  # fmt: skip
        return bool(rows)


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()
