"""Schedules (SPEC §13): a job queued on a cron expression.

A schedule keeps the job to queue (checked when it is created, under the
grants of whoever created it, which it remembers and runs under), a cron
expression (five fields or a macro such as ``@hourly``, read by croniter), a
time zone (UTC unless given) and an overlap policy: ``SKIP`` (the default)
fires no run while one of its jobs waits or runs, ``BUFFER_ONE`` lets at
most one wait, ``ALLOW`` always fires. ``nextRunAt`` is the next tick after
now (null while paused: a paused schedule has none). Ticks missed while no
server ran, or while paused, are not replayed one by one: the first poll
after a server comes back fires once (as the policy allows) and moves the
schedule to its next tick after that moment; resuming starts from the next
tick after the resume. Each tick fires once however many replicas poll
(``cypher/schedule_fire``). ``triggerSchedule`` queues the job now, as the
policy allows (else ``INVALID_TRANSITION``), and leaves the ticks as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson
from croniter import CroniterBadDateError, croniter

from memexd.access.grants import Access
from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput, Forbidden, InvalidTransition, ScheduleNotFound
from memexd.graph import Graph
from memexd.ids import new_id
from memexd.jobs.model import Job, job_props
from memexd.jobs.queue import JobQueue, JobRequest, job_event
from memexd.jobs.run import now_ms
from memexd.memory.validation import Limits, check_text, check_uuid
from memexd.settings import Settings
from memexd.types import JSONObject, Row

__all__ = ["OVERLAPS", "Schedule", "ScheduleRequest", "Schedules", "next_tick"]

OVERLAPS = ("SKIP", "BUFFER_ONE", "ALLOW")
#: Due schedules fired per poll (the rest at the next).
FIRE = 100


@dataclass(frozen=True, slots=True)
class ScheduleRequest:
    name: Any
    cron: Any
    job: JobRequest
    overlap: Any = None
    time_zone: Any = None


@dataclass(frozen=True, slots=True)
class Schedule:
    id: str
    name: str
    cron: str
    time_zone: str
    job: JSONObject
    overlap: str
    paused: bool
    next_run_at: int | None
    last_job_id: str | None
    created_at: int
    version: int
    reach: tuple[str, ...]
    read_grants: tuple[str, ...]
    write_grants: tuple[str, ...]
    caller: str
    queued: int = 0
    running: int = 0

    @property
    def access(self) -> Access:
        return Access(self.caller, self.read_grants, self.write_grants, ())

    def admits(self) -> bool:
        """Whether its overlap policy lets a new run be queued now."""
        if self.overlap == "SKIP":
            return self.queued + self.running == 0
        if self.overlap == "BUFFER_ONE":
            return self.queued == 0
        return True


def next_tick(cron: str, zone: str, after_ms: int) -> int:
    """The first tick of ``cron`` in ``zone`` after ``after_ms`` (epoch ms)."""
    start = datetime.fromtimestamp(after_ms / 1000, tz=UTC).astimezone(ZoneInfo(zone))
    return int(croniter(cron, start).get_next(datetime).timestamp() * 1000)


class Schedules:
    def __init__(self, graph: Graph, limits: Limits, settings: Settings) -> None:
        self.graph, self.limits, self.settings = graph, limits, settings
        self.queue = JobQueue(graph, limits, settings.jobs_max_queued)

    async def create(self, r: ScheduleRequest) -> Schedule:
        name = check_text(r.name, "name", max_len=200)
        zone = _zone(r.time_zone)
        cron = _cron(r.cron, zone)
        job = self.queue.draft(r.job)  # checks type, params, grants
        access = self.graph.access
        props = {
            "id": new_id(), "name": name, "cron": cron, "time_zone": zone,
            "job": orjson.dumps(_request(job)).decode(), "overlap": _overlap(r.overlap),
            "paused": False, "next_run_at": next_tick(cron, zone, now_ms()),
            "created_at": now_ms(), "version": 0, "reach": list(job.reach),
            "read_grants": list(access.read), "write_grants": list(access.write),
            "caller": access.name,
        }  # fmt: skip
        rows = await self.graph.write("schedule_create", {"schedule": props})
        return schedule_from_row(rows[0])

    async def all(self) -> list[Schedule]:
        return [schedule_from_row(r) for r in await self.graph.read("schedule_get", {"ids": None})]

    async def get(self, schedule_id: Any) -> Schedule:
        checked = check_uuid(schedule_id)
        rows = await self.graph.read("schedule_get", {"ids": [checked]})
        if not rows:
            raise ScheduleNotFound(checked)
        found = schedule_from_row(rows[0])
        if not all(self.graph.access.can_write(s) for s in found.reach):
            raise Forbidden("changing a schedule needs a write grant on every scope it reaches")
        return found

    async def pause(self, schedule_id: Any, paused: bool) -> Schedule:
        async def attempt() -> Schedule | None:
            s = await self.get(schedule_id)
            if s.paused == paused:
                return s
            upcoming = None if paused else next_tick(s.cron, s.time_zone, now_ms())
            rows = await self.graph.write("schedule_set", {
                "id": s.id, "version": s.version, "paused": paused,
                "next_run_at": upcoming})  # fmt: skip
            return schedule_from_row(rows[0]) if rows else None

        return await compare_and_set(attempt, "schedule")

    async def delete(self, schedule_id: Any) -> bool:
        s = await self.get(schedule_id)
        rows = await self.graph.write("schedule_delete", {"id": s.id})
        return bool(rows) and int(rows[0]["deleted"]) > 0

    async def trigger(self, schedule_id: Any) -> Job:
        async def attempt() -> Job | None:
            s = await self.get(schedule_id)
            if not s.admits():
                raise InvalidTransition("schedule", s.id, "running (overlap policy "
                                        f"{s.overlap})", "triggered")  # fmt: skip
            job = self._job(s)
            rows = await self.graph.write("schedule_trigger", {
                "id": s.id, "queued": s.queued, "running": s.running, "job": job_props(job),
                "events": [job_event(job, "job.queued", "schedule.trigger")],
                "max_queued": self.settings.jobs_max_queued})  # fmt: skip
            return job if rows else None

        return await compare_and_set(attempt, "schedule")

    async def fire_due(self) -> int:
        """Fire every due schedule once (the worker's poll); how many fired."""
        fired = 0
        for row in await self.graph.read("schedule_due", {"now": now_ms(), "limit": FIRE}):
            s = schedule_from_row(row)
            job = self._job(s) if s.admits() else None
            rows = await self.graph.write("schedule_fire", {
                "id": s.id, "version": s.version, "queued": s.queued, "running": s.running,
                "next_run_at": next_tick(s.cron, s.time_zone, now_ms()),
                "job": None if job is None else job_props(job),
                "events": [] if job is None else [job_event(job, "job.queued", "schedule.tick")],
                "max_queued": self.settings.jobs_max_queued})  # fmt: skip
            fired += bool(rows and rows[0]["firing"])
        return fired

    def _job(self, s: Schedule) -> Job:
        """The schedule's job, as whoever created it would queue it now."""
        queue = JobQueue(self.graph.bound(s.access), self.limits, self.settings.jobs_max_queued)
        r = s.job
        return replace(queue.draft(JobRequest(r["type"], r["author"], r.get("scopePrefix"),
                                              r.get("params"), r.get("dryRun"))),
                       schedule_id=s.id)  # fmt: skip


def schedule_from_row(row: Row) -> Schedule:
    s = row["schedule"]
    return Schedule(
        id=s["id"], name=s["name"], cron=s["cron"], time_zone=s.get("time_zone") or "UTC",
        job=orjson.loads(s["job"]), overlap=s["overlap"], paused=bool(s["paused"]),
        next_run_at=None if s.get("next_run_at") is None else int(s["next_run_at"]),
        last_job_id=s.get("last_job_id"), created_at=int(s["created_at"]),
        version=int(s["version"]), reach=tuple(s.get("reach") or ()),
        read_grants=tuple(s.get("read_grants") or ()),
        write_grants=tuple(s.get("write_grants") or ()), caller=s.get("caller") or "",
        queued=int(row.get("queued") or 0), running=int(row.get("running") or 0),
    )  # fmt: skip


def _request(job: Job) -> JSONObject:
    return {"type": job.type, "scopePrefix": job.scope_prefix, "params": job.params,
            "dryRun": job.dry_run, "author": job.author}  # fmt: skip


def _zone(value: Any) -> str:
    if value is None:
        return "UTC"
    if not isinstance(value, str) or not value or len(value) > 64:
        raise BadUserInput("must be an IANA time zone name", field="timeZone")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadUserInput(f"unknown time zone {value!r}", field="timeZone") from None
    return value


def _cron(value: Any, zone: str) -> str:
    if not isinstance(value, str) or len(value) > 200:
        raise BadUserInput("must be a cron expression", field="cron")
    text = " ".join(value.split())
    macro = text.startswith("@")
    if not (macro or len(text.split()) == 5) or not croniter.is_valid(text):
        raise BadUserInput(f"{value!r} is not a cron expression (five fields, or a macro "
                           "such as @hourly)", field="cron")  # fmt: skip
    try:
        next_tick(text, zone, now_ms())
    except CroniterBadDateError:
        raise BadUserInput(f"{value!r} never fires", field="cron") from None
    return text


def _overlap(value: Any) -> str:
    plain = getattr(value, "value", value)
    if plain is None:
        return "SKIP"
    if plain not in OVERLAPS:
        raise BadUserInput(f"{plain!r} is not one of {', '.join(OVERLAPS)}", field="overlap")
    return str(plain)
