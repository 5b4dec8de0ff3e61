"""Maintenance jobs and schedules in GraphQL (memexd.jobs)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from memexd.schema.common import Info
from strawberry.scalars import JSON

from memexd.ids import ms_to_datetime
from memexd.jobs import archives, model
from memexd.jobs.queue import JobRequest
from memexd.jobs.schedules import Schedule as ScheduleRecord
from memexd.jobs.schedules import ScheduleRequest

__all__ = [
    "Job",
    "JobInput",
    "JobStatus",
    "JobType",
    "MemoryArchive",
    "OverlapPolicy",
    "Schedule",
    "ScheduleInput",
]


@strawberry.enum(description='What a job does (README, "Maintenance").')
class JobType(Enum):
    CONSOLIDATE = strawberry.enum_value(
        "CONSOLIDATE",
        description="Archive duplicates under a SUPERSEDES edge from their oldest twin.",
    )
    DECAY_UPDATE = strawberry.enum_value(
        "DECAY_UPDATE", description="Store every item's decay score."
    )
    CLEANUP = strawberry.enum_value(
        "CLEANUP",
        description="Purge old archived or retracted items of low score.",
    )
    ARCHIVE_CREATE = strawberry.enum_value(
        "ARCHIVE_CREATE",
        description="Store a compressed export in the database.",
    )
    ARCHIVE_RESTORE = strawberry.enum_value(
        "ARCHIVE_RESTORE", description="Import an archive back."
    )
    PATTERNS_EXTRACT = strawberry.enum_value(
        "PATTERNS_EXTRACT", description="Learn repeated task sequences as pattern items."
    )


@strawberry.enum(description="QUEUED → RUNNING → COMPLETED, FAILED or CANCELLED.")
class JobStatus(Enum):
    QUEUED = strawberry.enum_value("QUEUED", description="Waiting for a worker.")
    RUNNING = strawberry.enum_value("RUNNING", description="A worker runs it, batch by batch.")
    COMPLETED = strawberry.enum_value("COMPLETED", description="Done; result says what it did.")
    FAILED = strawberry.enum_value(
        "FAILED", description="Stopped by an error or an interruption; completed batches stay."
    )
    CANCELLED = strawberry.enum_value(
        "CANCELLED", description="Stopped by cancelJob; completed batches stay."
    )


@strawberry.enum(description="What a schedule does at a tick while one of its runs waits or runs.")
class OverlapPolicy(Enum):
    SKIP = strawberry.enum_value("SKIP", description="Fires nothing (the default).")
    BUFFER_ONE = strawberry.enum_value("BUFFER_ONE", description="At most one run waits.")
    ALLOW = strawberry.enum_value("ALLOW", description="Always fires.")


@strawberry.input(description="A job to run (runJob) or to schedule.")
class JobInput:
    type: JobType = strawberry.field(description="What it does.")
    scope_prefix: str | None = strawberry.field(
        default=None, description="Items under it only (a write grant there is needed); "
        "without it, every scope the caller may write.")  # fmt: skip
    params: JSON | None = strawberry.field(
        default=None, description='The type\'s parameters (README, "Maintenance").'
    )
    dry_run: bool | None = strawberry.field(
        default=None, description="Report what it would do; write nothing but the job record."
    )
    author: str = strawberry.field(description="Who runs it (on the events it writes).")

    def request(self) -> JobRequest:
        return JobRequest(self.type, self.author, self.scope_prefix, self.params, self.dry_run)


@strawberry.type(description="A maintenance job and how it went.")
class Job:
    id: strawberry.ID = strawberry.field(description="Its id.")
    type: JobType = strawberry.field(description="What it does.")
    status: JobStatus = strawberry.field(description="Where it is.")
    scope_prefix: str | None = strawberry.field(
        description="Items under it only; null: every scope its caller may write."
    )
    params: JSON | None = strawberry.field(description="The type's parameters.")
    dry_run: bool = strawberry.field(description="It reports and writes nothing but itself.")
    author: str = strawberry.field(description="Who runs it.")
    created_at: datetime = strawberry.field(description="When it was queued.")
    started_at: datetime | None = strawberry.field(description="When a worker claimed it.")
    finished_at: datetime | None = strawberry.field(description="When it ended.")
    progress: float | None = strawberry.field(description="0 to 1, updated after every batch.")
    result: JSON | None = strawberry.field(
        description="What it did (or, on a dry run, would do), updated after every batch."
    )
    error: str | None = strawberry.field(description="Why it FAILED (a code, then a message).")
    schedule_id: strawberry.ID | None = strawberry.field(description="The schedule that queued it.")
    runner: str | None = strawberry.field(
        description="The process running it (host:pid:nonce), while it runs: which replica."
    )

    @classmethod
    def of(cls, j: model.Job) -> Job:
        return cls(
            id=strawberry.ID(j.id), type=JobType(j.type), status=JobStatus(j.status),
            scope_prefix=j.scope_prefix, params=_json(j.params), dry_run=j.dry_run, author=j.author,
            created_at=ms_to_datetime(j.created_at), started_at=_time(j.started_at),
            finished_at=_time(j.finished_at), progress=j.progress, result=_json(j.result),
            error=j.error,
            schedule_id=None if j.schedule_id is None else strawberry.ID(j.schedule_id),
            runner=j.owner,
        )  # fmt: skip


@strawberry.input(description="A schedule: a job queued on a cron expression.")
class ScheduleInput:
    name: str = strawberry.field(description="A name for people.")
    cron: str = strawberry.field(
        description="Five fields (minute hour day-of-month month day-of-week) or a macro "
        "such as @hourly.")  # fmt: skip
    job: JobInput = strawberry.field(description="The job each tick queues.")
    overlap: OverlapPolicy | None = strawberry.field(default=None, description="SKIP unless given.")
    time_zone: str | None = strawberry.field(
        default=None, description="The IANA time zone the expression reads in (UTC unless given)."
    )

    def request(self) -> ScheduleRequest:
        return ScheduleRequest(self.name, self.cron, self.job.request(), self.overlap,
                               self.time_zone)  # fmt: skip


@strawberry.type(description="A schedule and its next run.")
class Schedule:
    id: strawberry.ID = strawberry.field(description="Its id.")
    name: str = strawberry.field(description="Its name.")
    cron: str = strawberry.field(description="Its cron expression.")
    time_zone: str = strawberry.field(description="The time zone its expression reads in.")
    job: JSON = strawberry.field(description="The job it queues (JobInput's fields).")
    overlap: OverlapPolicy = strawberry.field(description="Its overlap policy.")
    paused: bool = strawberry.field(description="Its ticks are stopped.")
    next_run_at: datetime | None = strawberry.field(
        description="Its next tick after now; null while paused."
    )
    last_job_id: strawberry.Private[str | None]

    @strawberry.field(description="The job it queued last.")
    async def last_job(self, info: Info) -> Job | None:
        if self.last_job_id is None:
            return None
        found = await info.context.memex.jobs.get(self.last_job_id)
        return None if found is None else Job.of(found)

    @classmethod
    def of(cls, s: ScheduleRecord) -> Schedule:
        return cls(
            id=strawberry.ID(s.id), name=s.name, cron=s.cron, time_zone=s.time_zone,
            job=JSON(s.job),
            overlap=OverlapPolicy(s.overlap), paused=s.paused, next_run_at=_time(s.next_run_at),
            last_job_id=s.last_job_id,
        )  # fmt: skip


@strawberry.type(description="An archive ARCHIVE_CREATE made: a compressed export kept in the "
                 "database (ARCHIVE_RESTORE imports it back).")  # fmt: skip
class MemoryArchive:
    id: strawberry.ID = strawberry.field(description="Its id (ARCHIVE_RESTORE's archiveId).")
    scope_prefix: str | None = strawberry.field(description="The scope prefix it holds.")
    from_: datetime | None = strawberry.field(name="from", description="Items created from.")
    to: datetime | None = strawberry.field(description="Items created before.")
    entry_count: int = strawberry.field(description="Items and edges it holds.")
    bytes: int = strawberry.field(description="Its compressed size.")
    compressed: bool = strawberry.field(description="gzip-compressed (always).")
    created_at: datetime = strawberry.field(description="When it was made.")
    job_id: strawberry.ID | None = strawberry.field(description="The job that made it.")

    @classmethod
    def of(cls, a: archives.MemoryArchive) -> MemoryArchive:
        return cls(
            id=strawberry.ID(a.id), scope_prefix=a.scope_prefix, from_=_time(a.from_ms),
            to=_time(a.to_ms), entry_count=a.entry_count, bytes=a.bytes,
            compressed=a.compressed, created_at=ms_to_datetime(a.created_at),
            job_id=None if a.job_id is None else strawberry.ID(a.job_id),
        )  # fmt: skip


def _json(value: dict[str, Any] | None) -> JSON | None:
    return None if value is None else JSON(value)


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else ms_to_datetime(ms)
