"""Schedules (SPEC §13): cron expressions read by croniter in a time zone,
the three overlap policies, pause, resume, trigger and delete; a tick fires
once however many workers poll, and ticks missed while down fire once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memexd.jobs.run import now_ms
from tests.support import Api
from tests.test_jobs import JOBS, worker

FIELDS = "id name cron timeZone job overlap paused nextRunAt lastJob { id status scheduleId }"
CREATE = f"mutation($i: ScheduleInput!) {{ createSchedule(input: $i) {{ {FIELDS} }} }}"
LIST = f"{{ schedules {{ {FIELDS} }} }}"
PAUSE = f"mutation($id: ID!) {{ pauseSchedule(id: $id) {{ {FIELDS} }} }}"
RESUME = f"mutation($id: ID!) {{ resumeSchedule(id: $id) {{ {FIELDS} }} }}"
TRIGGER = "mutation($id: ID!) { triggerSchedule(id: $id) { id status scheduleId } }"
DELETE = "mutation($id: ID!) { deleteSchedule(id: $id) }"
EVENTS = '{ events(filter: {namespaces: ["job"]}) { type payload } }'
UNKNOWN = "0190c0de-0000-7000-8000-000000000000"


def schedule(cron: str = "*/5 * * * *", **fields: Any) -> dict[str, Any]:
    job = fields.pop("job", {"type": "DECAY_UPDATE", "author": "ops"})
    return {"name": "decay", "cron": cron, "job": job, **fields}


async def created(api: Api, **fields: Any) -> dict[str, Any]:
    made: dict[str, Any] = (await api.ok(CREATE, i=schedule(**fields)))["createSchedule"]
    return made


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def due_now(api: Api, schedule_id: str, ago: timedelta = timedelta(seconds=1)) -> None:
    """Make the schedule's next tick lie in the past, as time passing would."""
    past = now_ms() - int(ago.total_seconds() * 1000)
    await api.graph.store.write(
        "MATCH (s:Schedule {id: $id}) SET s.next_run_at = $t RETURN s.id",
        {"id": schedule_id, "t": past},
    )


# ---------------------------------------------------------------- create, read


async def test_a_schedule_knows_its_next_tick(api: Api) -> None:
    before = datetime.now(UTC)
    made = await created(api)
    tick = instant(made["nextRunAt"])
    assert made["paused"] is False
    assert made["overlap"] == "SKIP"
    assert made["timeZone"] == "UTC"
    assert tick.minute % 5 == 0
    assert tick.second == 0
    assert tick.microsecond == 0
    assert before < tick <= before + timedelta(minutes=5)
    assert made["job"] == {"type": "DECAY_UPDATE", "author": "ops", "scopePrefix": None,
                           "params": None, "dryRun": False}  # fmt: skip
    assert made["lastJob"] is None
    assert [s["id"] for s in (await api.ok(LIST))["schedules"]] == [made["id"]]


async def test_a_time_zone_moves_the_ticks(api: Api) -> None:
    made = await created(api, cron="0 3 * * *", timeZone="Asia/Kolkata")  # UTC+05:30
    tick = instant(made["nextRunAt"])
    assert (tick.hour, tick.minute) == (21, 30)
    assert made["timeZone"] == "Asia/Kolkata"
    hourly = await created(api, cron="@hourly")
    assert instant(hourly["nextRunAt"]).minute == 0


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"cron": "61 * * * *"}, "BAD_USER_INPUT"),
        ({"cron": "every day"}, "BAD_USER_INPUT"),
        ({"cron": "* * * * * *"}, "BAD_USER_INPUT"),  # seconds: five fields only
        ({"cron": "0 0 31 2 *"}, "BAD_USER_INPUT"),  # never fires
        ({"timeZone": "Mars/Olympus"}, "BAD_USER_INPUT"),
        ({"name": ""}, "BAD_USER_INPUT"),
        ({"job": {"type": "DECAY_UPDATE", "author": "ops", "params": {"x": 1}}}, "BAD_USER_INPUT"),
        (
            {"job": {"type": "PATTERNS_EXTRACT", "author": "ops", "params": {"minLength": "x"}}},
            "BAD_USER_INPUT",
        ),
    ],
)
async def test_a_bad_schedule_is_refused_and_nothing_is_kept(
    api: Api, fields: dict[str, Any], code: str
) -> None:
    assert await api.codes(CREATE, i=schedule(**fields)) == [code]
    assert (await api.ok(LIST))["schedules"] == []


async def test_a_schedule_needs_a_write_grant_where_its_job_runs(api: Api) -> None:
    tenant = api.with_grants("write:a/")
    job = {"type": "DECAY_UPDATE", "author": "ops", "scopePrefix": "b/"}
    assert await tenant.codes(CREATE, i=schedule(job=job)) == ["FORBIDDEN"]
    assert (await tenant.ok(LIST))["schedules"] == []


async def test_schedules_are_seen_and_changed_by_their_own(api: Api) -> None:
    a = api.with_grants("write:a/")
    b = api.with_grants("write:b/")
    reader = api.with_grants("read:a/")
    made = (await a.ok(CREATE, i=schedule()))["createSchedule"]
    assert (await b.ok(LIST))["schedules"] == []
    assert await b.codes(PAUSE, id=made["id"]) == ["SCHEDULE_NOT_FOUND"]
    assert [s["id"] for s in (await reader.ok(LIST))["schedules"]] == [made["id"]]
    assert await reader.codes(TRIGGER, id=made["id"]) == ["FORBIDDEN"]
    assert await reader.codes(DELETE, id=made["id"]) == ["FORBIDDEN"]


# ---------------------------------------------------------------- pause, resume, delete


async def test_pause_and_resume(api: Api) -> None:
    made = await created(api)
    paused = (await api.ok(PAUSE, id=made["id"]))["pauseSchedule"]
    assert paused["paused"] is True
    assert paused["nextRunAt"] is None
    assert (await api.ok(PAUSE, id=made["id"]))["pauseSchedule"]["paused"] is True
    resumed = (await api.ok(RESUME, id=made["id"]))["resumeSchedule"]
    assert resumed["paused"] is False
    assert instant(resumed["nextRunAt"]) > datetime.now(UTC)
    for query in (PAUSE, RESUME, TRIGGER, DELETE):
        assert await api.codes(query, id=UNKNOWN) == ["SCHEDULE_NOT_FOUND"]


async def test_a_paused_schedule_does_not_fire(api: Api, tmp_path: Path) -> None:
    made = await created(api)
    await due_now(api, made["id"])
    await api.ok(PAUSE, id=made["id"])
    assert await worker(api, tmp_path).schedules.fire_due() == 0
    assert (await api.ok(JOBS))["jobs"] == []


async def test_deleting_a_schedule_keeps_its_jobs(api: Api) -> None:
    made = await created(api)
    fired = (await api.ok(TRIGGER, id=made["id"]))["triggerSchedule"]
    assert (await api.ok(DELETE, id=made["id"]))["deleteSchedule"] is True
    assert (await api.ok(LIST))["schedules"] == []
    assert [j["id"] for j in (await api.ok(JOBS))["jobs"]] == [fired["id"]]


# ---------------------------------------------------------------- trigger and overlap


async def test_trigger_queues_the_job_as_the_policy_allows(api: Api) -> None:
    skip = await created(api)
    fired = (await api.ok(TRIGGER, id=skip["id"]))["triggerSchedule"]
    assert fired["status"] == "QUEUED"
    assert fired["scheduleId"] == skip["id"]
    assert await api.codes(TRIGGER, id=skip["id"]) == ["INVALID_TRANSITION"]
    listed = {s["id"]: s for s in (await api.ok(LIST))["schedules"]}
    assert listed[skip["id"]]["lastJob"]["id"] == fired["id"]
    buffer = await created(api, overlap="BUFFER_ONE")
    await api.ok(TRIGGER, id=buffer["id"])
    assert await api.codes(TRIGGER, id=buffer["id"]) == ["INVALID_TRANSITION"]
    allow = await created(api, overlap="ALLOW")
    for _ in range(3):
        await api.ok(TRIGGER, id=allow["id"])
    assert len((await api.ok(JOBS))["jobs"]) == 5


async def test_buffer_one_lets_one_wait_behind_a_running_one(api: Api, tmp_path: Path) -> None:
    made = await created(api, overlap="BUFFER_ONE")
    await api.ok(TRIGGER, id=made["id"])
    assert await worker(api, tmp_path).claim() is not None  # now running
    waiting = (await api.ok(TRIGGER, id=made["id"]))["triggerSchedule"]
    assert waiting["status"] == "QUEUED"
    assert await api.codes(TRIGGER, id=made["id"]) == ["INVALID_TRANSITION"]


# ---------------------------------------------------------------- ticks


async def test_a_due_tick_fires_once_however_many_workers_poll(api: Api, tmp_path: Path) -> None:
    made = await created(api)
    await due_now(api, made["id"])
    workers = [worker(api, tmp_path) for _ in range(4)]
    fired = await asyncio.gather(*(w.schedules.fire_due() for w in workers))
    assert sum(fired) == 1
    jobs = (await api.ok(JOBS))["jobs"]
    assert len(jobs) == 1
    events = (await api.ok(EVENTS))["events"]
    assert [e["payload"]["cause_type"] for e in events] == ["schedule.tick"]
    after = (await api.ok(LIST))["schedules"][0]
    assert instant(after["nextRunAt"]) > datetime.now(UTC)
    assert after["lastJob"]["id"] == jobs[0]["id"]
    assert await workers[0].schedules.fire_due() == 0  # not due any more


async def test_ticks_missed_while_down_fire_once(api: Api, tmp_path: Path) -> None:
    made = await created(api, cron="* * * * *")
    await due_now(api, made["id"], ago=timedelta(days=3))  # 4,320 ticks missed
    w = worker(api, tmp_path)
    assert await w.schedules.fire_due() == 1
    assert await w.schedules.fire_due() == 0
    assert len((await api.ok(JOBS))["jobs"]) == 1
    tick = instant((await api.ok(LIST))["schedules"][0]["nextRunAt"])
    assert datetime.now(UTC) < tick <= datetime.now(UTC) + timedelta(minutes=1)


async def test_skip_moves_on_without_firing_while_a_run_waits(api: Api, tmp_path: Path) -> None:
    made = await created(api)
    await api.ok(TRIGGER, id=made["id"])
    await due_now(api, made["id"])
    assert await worker(api, tmp_path).schedules.fire_due() == 0
    assert len((await api.ok(JOBS))["jobs"]) == 1
    assert instant((await api.ok(LIST))["schedules"][0]["nextRunAt"]) > datetime.now(UTC)


async def test_a_scheduled_job_runs_under_its_creators_grants(api: Api, tmp_path: Path) -> None:
    await api.create(scope="a/")
    await api.create(scope="b/")
    tenant = api.with_grants("write:a/")
    made = (await tenant.ok(CREATE, i=schedule()))["createSchedule"]
    await due_now(api, made["id"])
    w = worker(api, tmp_path)
    assert await w.schedules.fire_due() == 1
    await w.poll()
    await asyncio.gather(*list(w.running.values()))
    job = (await tenant.ok(LIST))["schedules"][0]["lastJob"]
    assert job["status"] == "COMPLETED"
    result = await tenant.ok("query($id: ID!) { job(id: $id) { result } }", id=job["id"])
    assert result["job"]["result"]["scored"] == 1
