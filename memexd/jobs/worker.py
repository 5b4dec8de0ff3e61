"""The job worker each serving process runs (SPEC §13).

Every ``MEMEXD_JOBS_POLL_S`` it marks FAILED the running jobs whose lease
lapsed (their process died: killed, or cut off from the engine longer than
the lease), fires the schedules that are due (:mod:`memexd.jobs.schedules`),
and claims queued jobs while it runs fewer than ``MEMEXD_JOBS_CONCURRENCY``.
Claims and firings are single statements that only one process can win
(writes run one at a time on both engines), so however many replicas run,
a job runs once and a tick fires once. A running job renews its lease after
every batch and every third of the lease; a process that stops marks its
running jobs FAILED (interrupted) at once, and one that dies leaves them to
the next poll of any process after the lease, or its own next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from memexd.errors import MemexError, StorageUnavailable
from memexd.graph import Graph
from memexd.ids import new_id
from memexd.jobs.kinds import kind_of
from memexd.jobs.model import Job, job_from_row, json_text
from memexd.jobs.queue import job_event
from memexd.jobs.run import Cancelled, JobRun, Lost, Pace, now_ms
from memexd.jobs.schedules import Schedules
from memexd.settings import Settings
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = ["JobWorker", "jobs_running"]

log = logging.getLogger("memexd.jobs")

#: How long the worker waits after a fault (engine down), in seconds.
PAUSE = 2.0
#: Lapsed jobs marked per poll (the rest at the next).
REAP = 100


class JobWorker:
    def __init__(self, memex: Memex, settings: Settings, only: str | None = None) -> None:
        #: ``only``: claim this job and no other, fire no schedule (``memexd
        #: jobs run`` follows its own job; it must not take others to a
        #: process that exits when its job ends)
        self.memex, self.settings, self.only = memex, settings, only
        self.graph: Graph = memex.graph
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{new_id()[-12:]}"
        self.lease_ms = int(settings.jobs_lease_s * 1000)
        self.schedules = Schedules(memex.graph, memex.limits, settings)
        self.running: dict[str, asyncio.Task[None]] = {}
        #: the jobs this process claimed and has not ended yet
        self.claimed: dict[str, Job] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="memexd-jobs")

    async def stop(self) -> None:
        """Stop polling; the jobs still running end FAILED (interrupted)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        jobs = dict(self.claimed)
        for task in list(self.running.values()):
            task.cancel()
        await asyncio.gather(*self.running.values(), return_exceptions=True)
        for job in jobs.values():  # a job that ended meanwhile is left as it ended
            await self._finish(job, self.owner, "FAILED", None,
                               "interrupted: the server stopped while it ran")  # fmt: skip

    async def _loop(self) -> None:
        while True:
            try:
                await self.poll()
            except MemexError as error:  # the engine is down or busy: later
                log.warning("jobs paused: %s", error.message)
                await asyncio.sleep(PAUSE)
            await asyncio.sleep(self.settings.jobs_poll_s)

    async def poll(self) -> None:
        await self.reap()
        if self.only is None:
            await self.schedules.fire_due()
        while len(self.running) < self.settings.jobs_concurrency:
            job = await self.claim()
            if job is None:
                return
            task = asyncio.get_running_loop().create_task(self.execute(job))
            self.running[job.id] = task
            task.add_done_callback(self._forget(job.id))

    def _forget(self, job_id: str) -> Callable[[asyncio.Task[None]], None]:
        def forget(_: asyncio.Task[None]) -> None:
            self.running.pop(job_id, None)

        return forget

    async def reap(self) -> None:
        """Mark FAILED the running jobs whose lease lapsed."""
        now = now_ms()
        for row in await self.graph.read("job_lapsed", {"now": now, "limit": REAP}):
            job = job_from_row(row["job"])
            reason = "interrupted: its process stopped while it ran (its lease lapsed)"
            await self._finish(job, row["owner"], "FAILED", job.result, reason, lapsed=now)

    async def claim(self) -> Job | None:
        """The oldest queued job this process could claim, claimed."""
        if self.only is None:
            rows = await self.graph.read("job_next", {"limit": 8})
        else:
            rows = await self.graph.read("job_get", {"ids": [self.only]})
        for row in rows:
            job = job_from_row(row["job"])
            started = replace(job, status="RUNNING", started_at=now_ms(), progress=0.0)
            claimed = await self.graph.write("job_claim", {
                "id": job.id, "owner": self.owner, "now": started.started_at,
                "lease_until": now_ms() + self.lease_ms,
                "events": [job_event(started, "job.started", "job.start")]})  # fmt: skip
            if claimed:
                mine = job_from_row(claimed[0]["job"])
                self.claimed[mine.id] = mine
                return mine
        return None

    async def execute(self, job: Job) -> None:
        pace = Pace(self.settings.jobs_batch, self.settings.jobs_yield, self.lease_ms)
        run = JobRun(job, self.memex.as_caller(job.access), self.owner, pace)
        renewing = asyncio.get_running_loop().create_task(self._renew(run))
        try:
            result = await kind_of(job.type).run(run)
        except Cancelled:
            await self._finish(job, self.owner, "CANCELLED", run.result, None)
        except Lost:
            log.warning("job %s: its lease lapsed; another process marked it", job.id)
        except StorageUnavailable as error:  # the engine restarts, a failover: its batches stay
            reason = f"interrupted: the graph engine was unavailable ({error.message})"
            await self._finish(job, self.owner, "FAILED", run.result, reason)
        except MemexError as error:
            await self._finish(job, self.owner, "FAILED", run.result,
                               f"{error.code}: {error.message}")  # fmt: skip
        except Exception:
            log.exception("job %s failed", job.id)
            await self._finish(job, self.owner, "FAILED", run.result, "INTERNAL: see the log")
        else:
            await self._finish(job, self.owner, "COMPLETED", result, None)
        finally:
            renewing.cancel()
            self.claimed.pop(job.id, None)

    async def _renew(self, run: JobRun) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            with contextlib.suppress(MemexError):
                await run.renew()

    async def _finish(self, job: Job, owner: str, status: str, result: JSONObject | None,
                      error: str | None, lapsed: int | None = None) -> None:  # fmt: skip
        done = replace(job, status=status, finished_at=now_ms(), result=result, error=error,
                       progress=1.0 if status == "COMPLETED" else job.progress)  # fmt: skip
        event = job_event(done, f"job.{status.lower()}", f"job.{status.lower()}")
        try:
            await self.graph.write("job_finish", {
                "id": job.id, "owner": owner, "status": status,
                "result": None if result is None else json_text(result), "error": error,
                "now": done.finished_at, "lapsed_before": lapsed, "events": [event]})  # fmt: skip
        except MemexError as fault:  # its lease lapses: another process marks it
            log.warning("job %s: could not record its end: %s", job.id, fault.message)


@contextlib.asynccontextmanager
async def jobs_running(memex: Memex | None, settings: Settings) -> AsyncIterator[None]:
    """Run the job worker while the body runs (unless MEMEXD_JOBS_CONCURRENCY
    is 0: this process then runs no maintenance at all)."""
    if memex is None or settings.jobs_concurrency == 0:
        yield
        return
    worker = JobWorker(memex, settings)
    worker.start()
    try:
        yield
    finally:
        await worker.stop()
