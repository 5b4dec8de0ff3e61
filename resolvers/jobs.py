"""Resolvers for maintenance jobs and schedules (schema/jobs.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.jobs import (
    Job,
    JobInput,
    JobStatus,
    JobType,
    MemoryArchive,
    Schedule,
    ScheduleInput,
)

__all__ = [
    "archives",
    "cancel_job",
    "create_schedule",
    "delete_schedule",
    "job",
    "jobs",
    "pause_schedule",
    "resume_schedule",
    "run_job",
    "schedules",
    "trigger_schedule",
]

_ID = strawberry.argument(description="Its id.")


async def job(info: Info, id: Annotated[strawberry.ID, _ID]) -> Job | None:
    found = await info.context.memex.jobs.get(id)
    return None if found is None else Job.of(found)


async def jobs(
    info: Info,
    status: Annotated[JobStatus | None, strawberry.argument(description="Only these.")] = None,
    type: Annotated[JobType | None, strawberry.argument(description="Only these.")] = None,
    limit: Annotated[
        int | None, strawberry.argument(description="The newest this many (100; at most 1,000).")
    ] = None,
) -> list[Job]:
    return [Job.of(j) for j in await info.context.memex.jobs.list(status, type, limit)]


async def archives(
    info: Info,
    scope_prefix: Annotated[
        str | None, strawberry.argument(description="Archives of scopes under it only.")
    ] = None,
) -> list[MemoryArchive]:
    return [MemoryArchive.of(a) for a in await info.context.memex.jobs.archives(scope_prefix)]


async def schedules(info: Info) -> list[Schedule]:
    return [Schedule.of(s) for s in await info.context.memex.schedules.all()]


async def run_job(
    info: Info, input: Annotated[JobInput, strawberry.argument(description="The job.")]
) -> Job:
    return Job.of(await info.context.memex.jobs.run(input.request()))


async def cancel_job(info: Info, id: Annotated[strawberry.ID, _ID]) -> Job:
    return Job.of(await info.context.memex.jobs.cancel(id))


async def create_schedule(
    info: Info, input: Annotated[ScheduleInput, strawberry.argument(description="The schedule.")]
) -> Schedule:
    return Schedule.of(await info.context.memex.schedules.create(input.request()))


async def pause_schedule(info: Info, id: Annotated[strawberry.ID, _ID]) -> Schedule:
    return Schedule.of(await info.context.memex.schedules.pause(id, True))


async def resume_schedule(info: Info, id: Annotated[strawberry.ID, _ID]) -> Schedule:
    return Schedule.of(await info.context.memex.schedules.pause(id, False))


async def trigger_schedule(info: Info, id: Annotated[strawberry.ID, _ID]) -> Job:
    return Job.of(await info.context.memex.schedules.trigger(id))


async def delete_schedule(info: Info, id: Annotated[strawberry.ID, _ID]) -> bool:
    return await info.context.memex.schedules.delete(id)
