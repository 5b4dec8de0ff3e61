"""Jobs as a caller queues, reads and cancels them (SPEC §13).

``runJob`` checks everything before it queues (type, params, scope, grants)
and returns the ``QUEUED`` job at once; a worker in some process runs it
(:mod:`memexd.jobs.worker`). A job runs under the grants of whoever queued
it: with a scope prefix it needs a write grant there; without one it reaches
every scope the caller may write. Who may read every scope a job reaches
sees it (``job``, ``jobs``, its events); who may write them may cancel it.
At most ``MEMEXD_JOBS_MAX_QUEUED`` jobs wait: past that runJob is
``RESOURCE_EXHAUSTED`` and nothing is queued.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import (
    BadUserInput,
    Forbidden,
    InvalidTransition,
    JobNotFound,
    ResourceExhausted,
)
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import event_props
from memexd.graph import Graph
from memexd.ids import new_id
from memexd.jobs.archives import MemoryArchive, archive_from_row
from memexd.jobs.kinds import kind_of
from memexd.jobs.model import (
    FINISHED,
    JOB_TYPES,
    STATUSES,
    Job,
    job_from_row,
    job_props,
    job_record,
)
from memexd.jobs.run import now_ms
from memexd.memory.validation import Limits, check_flag, check_text, check_uuid

__all__ = ["JobQueue", "JobRequest", "job_event"]

#: The longest scope prefix a job takes, as filters do.
MAX_PREFIX = 512


@dataclass(frozen=True, slots=True)
class JobRequest:
    type: Any
    author: Any
    scope_prefix: Any = None
    params: Any = None
    dry_run: Any = None


def job_event(job: Job, type_: str, cause: str) -> dict[str, Any]:
    """A job.* event's stored properties."""
    return event_props(ev.job_changed(type_, cause, job_record(job), job.author, job.reach))


class JobQueue:
    def __init__(self, graph: Graph, limits: Limits, max_queued: int) -> None:
        self.graph, self.limits, self.max_queued = graph, limits, max_queued

    def draft(self, r: JobRequest, schedule_id: str | None = None) -> Job:
        """A new QUEUED job from a request, checked (nothing written)."""
        type_ = _choice(r.type, JOB_TYPES, "type")
        params = kind_of(type_).check(r.params)
        prefix = _prefix(r.scope_prefix)
        access = self.graph.access
        if prefix is not None:
            access.require_write(prefix)
        elif not access.write:
            raise Forbidden("a job needs a write grant on some scope")
        return Job(
            id=new_id(), type=type_, status="QUEUED", scope_prefix=prefix, params=params or None,
            dry_run=check_flag(r.dry_run, "dryRun"), author=check_text(r.author, "author"),
            created_at=now_ms(), schedule_id=schedule_id,
            reach=(prefix,) if prefix is not None else access.write,
            read_grants=access.read, write_grants=access.write, caller=access.name,
        )  # fmt: skip

    async def run(self, r: JobRequest) -> Job:
        job = self.draft(r)
        await self.enqueue(job)
        return job

    async def enqueue(self, job: Job) -> None:
        rows = await self.graph.write("job_create", {
            "job": job_props(job), "events": [job_event(job, "job.queued", "job.run")],
            "max_queued": self.max_queued})  # fmt: skip
        if not rows:
            raise ResourceExhausted(f"{self.max_queued} jobs are queued already; "
                                    "wait for some to run or cancel some")  # fmt: skip

    async def get(self, job_id: Any) -> Job | None:
        rows = await self.graph.read("job_get", {"ids": [check_uuid(job_id)]})
        return job_from_row(rows[0]["job"]) if rows else None

    async def archives(self, prefix: Any = None) -> list[MemoryArchive]:
        """The archives the caller may see, under ``prefix`` when given."""
        rows = await self.graph.read("archive_list", {
            "prefix": _prefix(prefix), "ids": None, "limit": self.limits.max_list})  # fmt: skip
        return [archive_from_row(r) for r in rows]

    async def list(self, status: Any = None, type_: Any = None, limit: Any = None) -> list[Job]:
        cap = self.limits.max_list
        count = 100 if limit is None else limit
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= cap:
            raise BadUserInput(f"must be within [1, {cap}]", field="limit")
        rows = await self.graph.read("job_list", {
            "status": None if status is None else _choice(status, STATUSES, "status"),
            "type": None if type_ is None else _choice(type_, JOB_TYPES, "type"),
            "limit": count})  # fmt: skip
        return [job_from_row(r["job"]) for r in rows]

    async def cancel(self, job_id: Any) -> Job:
        """A queued job is CANCELLED at once; a running one is asked to stop
        and ends CANCELLED after the batch under way (the job returned is
        still RUNNING); a finished one is INVALID_TRANSITION."""
        checked = check_uuid(job_id)

        async def attempt() -> Job | None:
            job = await self.get(checked)
            if job is None:
                raise JobNotFound(checked)
            if not all(self.graph.access.can_write(s) for s in job.reach):
                raise Forbidden("cancelling a job needs a write grant on every scope it reaches")
            if job.status in FINISHED:
                raise InvalidTransition("job", job.id, job.status, "CANCELLED")
            events = []
            if job.status == "QUEUED":
                done = replace(job, status="CANCELLED", finished_at=now_ms())
                events = [job_event(done, "job.cancelled", "job.cancel")]
            rows = await self.graph.write("job_cancel", {
                "id": job.id, "status": job.status, "now": now_ms(), "events": events})  # fmt: skip
            return job_from_row(rows[0]["job"]) if rows else None

        return await compare_and_set(attempt, f"job {checked}")


def _choice(value: Any, allowed: tuple[str, ...], field: str) -> str:
    plain = getattr(value, "value", value)
    if plain not in allowed:
        raise BadUserInput(f"{plain!r} is not one of {', '.join(allowed)}", field=field)
    return str(plain)


def _prefix(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_PREFIX:
        raise BadUserInput(f"must be a string of at most {MAX_PREFIX} characters",
                           field="scopePrefix")  # fmt: skip
    return value
