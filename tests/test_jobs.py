"""Maintenance jobs (SPEC §13): queued through GraphQL, run by a worker in
batches under the grants of whoever queued them, once however many workers
poll, cancelled between batches, and marked FAILED when their process dies.
DECAY_UPDATE and CONSOLIDATE, each with its dry run; bad input and limits."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import pytest

from memexd.core import Memex
from memexd.graph.errors import ConnectionLost
from memexd.graph.migrations import migrate
from memexd.jobs.kinds import kind_of
from memexd.jobs.worker import JobWorker
from memexd.settings import Settings
from tests.conftest import ApiFactory
from tests.support import Api

RUN = """mutation($i: JobInput!) { runJob(input: $i) {
  id type status scopePrefix params dryRun author createdAt progress } }"""
JOB = """query($id: ID!) { job(id: $id) {
  id status progress result error runner startedAt finishedAt scheduleId } }"""
JOBS = "query($s: JobStatus, $t: JobType) { jobs(status: $s, type: $t) { id status type } }"
CANCEL = "mutation($id: ID!) { cancelJob(id: $id) { id status } }"
EVENTS = """query($ns: [String!]) { events(filter: {namespaces: $ns}) {
  type payload } }"""
ITEM = "query($id: ID!) { item(id: $id) { id archived } }"
EDGES = 'query($to: ID!) { edges(filter: {to: $to, kind: "SUPERSEDES"}) { from to author } }'


def job(type_: str = "DECAY_UPDATE", **fields: Any) -> dict[str, Any]:
    return {"type": type_, "author": "ops", **fields}


def worker(api: Api, tmp_path: Path, **settings: Any) -> JobWorker:
    config = Settings(**{"keys_file": tmp_path / "worker-keys.json", **settings})
    return JobWorker(Memex(api.store, config), config)


async def drain(w: JobWorker) -> None:
    """Let ``w`` run every queued job to its end."""
    for _ in range(100):
        await w.poll()
        if not w.running:
            return
        await asyncio.gather(*list(w.running.values()))
    raise AssertionError("jobs kept coming")


async def queued(api: Api, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = (await api.ok(RUN, i=job(**fields)))["runJob"]
    return data


async def status(api: Api, job_id: str) -> dict[str, Any]:
    found: dict[str, Any] = (await api.ok(JOB, id=job_id))["job"]
    return found


async def stored_decay(api: Api) -> dict[str, float]:
    """Each item's stored decay score, by id (from a snapshot of the graph)."""
    nodes = await api.graph.read("admin_snapshot_nodes")
    return {r["props"]["id"]: r["props"]["decay_stored"] for r in nodes
            if "Item" in r["labels"] and "decay_stored" in r["props"]}  # fmt: skip


# ---------------------------------------------------------------- queue and run


async def test_a_job_is_queued_at_once_and_a_worker_runs_it(api: Api, tmp_path: Path) -> None:
    items = [await api.create(scope="d/") for _ in range(5)]
    queued_job = await queued(api, type_="DECAY_UPDATE", scopePrefix="d/")
    assert queued_job["status"] == "QUEUED"
    assert queued_job["progress"] is None
    assert await stored_decay(api) == {}
    await drain(worker(api, tmp_path, jobs_batch=2))
    done = await status(api, queued_job["id"])
    assert done["status"] == "COMPLETED"
    assert done["progress"] == 1.0
    assert done["runner"] is None
    assert done["startedAt"]
    assert done["finishedAt"]
    assert done["result"]["scored"] == done["result"]["stored"] == 5
    assert done["result"]["belowArchive"] == 0
    scores = await stored_decay(api)
    assert set(scores) == {i["id"] for i in items}
    assert all(0.9 < s <= 1.0 for s in scores.values())  # just written: recency ≈ 1


async def test_decay_scores_that_barely_moved_are_left_as_stored(api: Api, tmp_path: Path) -> None:
    for _ in range(3):
        await api.create(scope="d/")
    first = await queued(api, scopePrefix="d/")
    await drain(worker(api, tmp_path))
    stored = await stored_decay(api)
    again = await queued(api, scopePrefix="d/")  # moments later: under the tolerance
    await drain(worker(api, tmp_path))
    assert (await status(api, again["id"]))["result"]["stored"] == 0
    assert await stored_decay(api) == stored
    faster = await queued(api, scopePrefix="d/", params={"halfLifeMs": 1})  # all decayed
    await drain(worker(api, tmp_path))
    result = (await status(api, faster["id"]))["result"]
    assert (result["scored"], result["stored"], result["belowArchive"]) == (3, 3, 3)
    assert all(s < 0.1 for s in (await stored_decay(api)).values())
    assert (await status(api, first["id"]))["result"]["stored"] == 3


async def test_the_job_lifecycle_is_in_the_log(api: Api, tmp_path: Path) -> None:
    await api.create(scope="d/")
    queued_job = await queued(api, scopePrefix="d/")
    await drain(worker(api, tmp_path))
    events = (await api.ok(EVENTS, ns=["job"]))["events"]
    assert [e["type"] for e in events] == ["job.queued", "job.started", "job.completed"]
    assert {e["payload"]["job"]["id"] for e in events} == {queued_job["id"]}
    assert events[-1]["payload"]["job"]["result"]["scored"] == 1


async def test_a_dry_run_reports_and_writes_nothing_but_the_job(api: Api, tmp_path: Path) -> None:
    for _ in range(3):
        await api.create(scope="d/")
    before = await api.snapshot()
    queued_job = await queued(api, dryRun=True)
    await drain(worker(api, tmp_path))
    done = await status(api, queued_job["id"])
    assert done["status"] == "COMPLETED"
    assert done["result"]["scored"] == 3
    assert await stored_decay(api) == {}
    after = await api.snapshot()
    changed = [n for n in after[0] if n not in before[0]]
    assert all('"Job"' in n or '"Event"' in n or '"Counter"' in n for n in changed)


async def test_a_job_runs_once_however_many_workers_poll(api: Api, tmp_path: Path) -> None:
    await api.create(scope="d/")
    queued_job = await queued(api)
    workers = [worker(api, tmp_path) for _ in range(4)]
    claimed = await asyncio.gather(*(w.claim() for w in workers))
    assert [c.id for c in claimed if c is not None] == [queued_job["id"]]
    started = [e for e in (await api.ok(EVENTS, ns=["job"]))["events"]
               if e["type"] == "job.started"]  # fmt: skip
    assert len(started) == 1


async def test_a_job_whose_process_died_is_marked_failed(api: Api, tmp_path: Path) -> None:
    for _ in range(3):
        await api.create(scope="d/")
    queued_job = await queued(api)
    # a lease long enough that a slow engine (CI, Neo4j) still reaps within it
    dead = worker(api, tmp_path, jobs_lease_s=2.0)
    claimed = await dead.claim()  # claimed, then its process "dies": no renewal
    assert claimed is not None
    assert (await status(api, queued_job["id"]))["runner"] == dead.owner
    survivor = worker(api, tmp_path)
    await survivor.reap()
    assert (await status(api, queued_job["id"]))["status"] == "RUNNING"  # the lease holds
    await asyncio.sleep(2.1)
    await survivor.reap()
    done = await status(api, queued_job["id"])
    assert done["status"] == "FAILED"
    assert done["error"].startswith("interrupted")
    assert done["runner"] is None
    await dead.execute(claimed)  # the lost process finds out at its first step
    assert (await status(api, queued_job["id"]))["status"] == "FAILED"
    assert [e["type"] for e in (await api.ok(EVENTS, ns=["job"]))["events"]] == [
        "job.queued", "job.started", "job.failed"]  # fmt: skip


async def test_a_stopping_server_fails_its_running_jobs(api: Api, tmp_path: Path) -> None:
    for _ in range(3):
        await api.create(scope="d/")
    queued_job = await queued(api)
    w = worker(api, tmp_path)
    claimed = await w.claim()
    assert claimed is not None
    w.running[claimed.id] = asyncio.get_running_loop().create_task(w.execute(claimed))
    await w.stop()  # before the job's first batch
    done = await status(api, queued_job["id"])
    assert done["status"] == "FAILED", done
    assert done["error"] == "interrupted: the server stopped while it ran"


async def test_a_job_the_engine_fails_under_ends_interrupted(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch the engine could not take (down, restarting, a failover whose
    gap outlasts the wait) ends the job FAILED as interrupted, not as the
    caller's fault."""
    await api.create(scope="d/")
    queued_job = await queued(api)
    w = worker(api, tmp_path)
    claimed = await w.claim()
    assert claimed is not None

    async def unavailable(run: object) -> None:
        raise ConnectionLost("the connection to the graph engine broke")

    monkeypatch.setattr(kind_of(claimed.type), "run", unavailable)
    await w.execute(claimed)
    done = await status(api, queued_job["id"])
    assert done["status"] == "FAILED", done
    assert done["error"] == ("interrupted: the graph engine was unavailable "
                             "(the connection to the graph engine broke)")  # fmt: skip


# ---------------------------------------------------------------- cancel


async def test_cancelling_a_queued_job_is_immediate(api: Api, tmp_path: Path) -> None:
    queued_job = await queued(api)
    assert (await api.ok(CANCEL, id=queued_job["id"]))["cancelJob"]["status"] == "CANCELLED"
    await drain(worker(api, tmp_path))
    assert (await status(api, queued_job["id"]))["status"] == "CANCELLED"
    assert await api.codes(CANCEL, id=queued_job["id"]) == ["INVALID_TRANSITION"]
    types = [e["type"] for e in (await api.ok(EVENTS, ns=["job"]))["events"]]
    assert types == ["job.queued", "job.cancelled"]


async def test_cancelling_a_running_job_stops_it_between_batches(api: Api, tmp_path: Path) -> None:
    for _ in range(6):
        await api.create(scope="d/")
    queued_job = await queued(api)
    w = worker(api, tmp_path, jobs_batch=1)
    claimed = await w.claim()
    assert claimed is not None
    asked = (await api.ok(CANCEL, id=queued_job["id"]))["cancelJob"]
    assert asked["status"] == "RUNNING"  # asked to stop; it stops after its batch
    await w.execute(claimed)
    done = await status(api, queued_job["id"])
    assert done["status"] == "CANCELLED"
    assert done["progress"] < 1.0
    assert done["result"]["scored"] <= 1  # one batch ran at most


async def test_cancel_needs_a_known_job_and_a_write_grant(api: Api) -> None:
    queued_job = await queued(api, scopePrefix="d/")
    assert await api.codes(CANCEL, id="0190c0de-0000-7000-8000-000000000000") == [
        "JOB_NOT_FOUND"]  # fmt: skip
    assert await api.codes(CANCEL, id="nope") == ["BAD_USER_INPUT"]
    reader = api.with_grants("read:d/")
    assert await reader.codes(CANCEL, id=queued_job["id"]) == ["FORBIDDEN"]
    assert (await status(reader, queued_job["id"]))["status"] == "QUEUED"


# ---------------------------------------------------------------- grants


async def test_jobs_run_under_the_grants_of_whoever_queued_them(api: Api, tmp_path: Path) -> None:
    mine = [await api.create(scope="a/") for _ in range(2)]
    await api.create(scope="b/")
    tenant = api.with_grants("write:a/")
    assert await tenant.codes(RUN, i=job(scopePrefix="b/")) == ["FORBIDDEN"]
    queued_job = (await tenant.ok(RUN, i=job()))["runJob"]
    assert queued_job["scopePrefix"] is None
    await drain(worker(api, tmp_path))
    done = (await tenant.ok(JOB, id=queued_job["id"]))["job"]
    assert done["result"]["scored"] == 2
    assert set(await stored_decay(api)) == {i["id"] for i in mine}


async def test_a_job_is_seen_only_by_who_can_read_all_it_reaches(api: Api) -> None:
    a = api.with_grants("write:a/")
    b = api.with_grants("write:b/")
    queued_job = (await a.ok(RUN, i=job()))["runJob"]
    assert (await b.ok(JOB, id=queued_job["id"]))["job"] is None
    assert (await b.ok(JOBS))["jobs"] == []
    assert await b.codes(CANCEL, id=queued_job["id"]) == ["JOB_NOT_FOUND"]
    assert [j["id"] for j in (await a.ok(JOBS))["jobs"]] == [queued_job["id"]]
    assert (await b.ok(EVENTS, ns=["job"]))["events"] == []
    assert len((await a.ok(EVENTS, ns=["job"]))["events"]) == 1
    both = api.with_grants("read:")
    assert (await both.ok(JOB, id=queued_job["id"]))["job"]["id"] == queued_job["id"]


async def test_jobs_lists_by_status_and_type(api: Api) -> None:
    first = await queued(api)
    second = await queued(api, type_="CONSOLIDATE")
    await api.ok(CANCEL, id=first["id"])
    listed = (await api.ok(JOBS))["jobs"]
    assert [j["id"] for j in listed] == [second["id"], first["id"]]  # newest first
    assert [j["id"] for j in (await api.ok(JOBS, s="CANCELLED"))["jobs"]] == [first["id"]]
    assert [j["id"] for j in (await api.ok(JOBS, t="CONSOLIDATE"))["jobs"]] == [second["id"]]
    assert await api.codes("{ jobs(limit: 0) { id } }") == ["BAD_USER_INPUT"]


# ---------------------------------------------------------------- bad input, limits


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"params": [1]}, "BAD_USER_INPUT"),
        ({"params": {"halfLife": 1}}, "BAD_USER_INPUT"),
        ({"params": {"halfLifeMs": -5}}, "BAD_USER_INPUT"),
        ({"params": {"halfLifeMs": "soon"}}, "BAD_USER_INPUT"),
        ({"type_": "CONSOLIDATE", "params": {"x": 1}}, "BAD_USER_INPUT"),
        ({"author": ""}, "BAD_USER_INPUT"),
        ({"scopePrefix": "s" * 513}, "BAD_USER_INPUT"),
        ({"type_": "PATTERNS_EXTRACT", "params": {"minCount": 0}}, "BAD_USER_INPUT"),
    ],
)
async def test_a_bad_job_is_refused_and_nothing_is_queued(
    api: Api, fields: dict[str, Any], code: str
) -> None:
    type_ = fields.pop("type_", "DECAY_UPDATE")
    assert await api.codes(RUN, i=job(type_, **fields)) == [code]
    assert (await api.ok(JOBS))["jobs"] == []
    assert (await api.ok(EVENTS, ns=["job"]))["events"] == []


async def test_an_unknown_job_type_is_a_validation_error(api: Api) -> None:
    body = await api.run(RUN, {"i": job("DEFRAG")})
    assert body["errors"]
    assert (await api.ok(JOBS))["jobs"] == []


async def test_a_full_queue_refuses_more(make_api: ApiFactory) -> None:
    api = await make_api(jobs_max_queued=2)
    await queued(api)
    await queued(api)
    assert await api.codes(RUN, i=job()) == ["RESOURCE_EXHAUSTED"]
    assert len((await api.ok(JOBS))["jobs"]) == 2


# ---------------------------------------------------------------- CONSOLIDATE


async def twins(api: Api) -> dict[str, Any]:
    """Three twins in c/ (oldest first), one other content, a twin's content
    in another scope and under another kind, and a retracted twin."""
    made = {"twins": [await api.create(scope="c/", kind="fact", content={"x": 1, "y": 2})
                      for _ in range(3)]}  # fmt: skip
    made["other"] = await api.create(scope="c/", kind="fact", content={"x": 2})
    made["elsewhere"] = await api.create(scope="e/", kind="fact", content={"x": 1, "y": 2})
    made["kind"] = await api.create(scope="c/", kind="note", content={"x": 1, "y": 2})
    gone = await api.create(scope="c/", kind="fact", content={"y": 2, "x": 1})
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=gone["id"])  # fmt: skip
    return made


async def test_consolidation_archives_twins_under_their_oldest(api: Api, tmp_path: Path) -> None:
    made = await twins(api)
    keeper, *dups = made["twins"]
    queued_job = await queued(api, type_="CONSOLIDATE")
    await drain(worker(api, tmp_path, jobs_batch=3))
    done = await status(api, queued_job["id"])
    assert done["status"] == "COMPLETED", done
    assert done["result"] == {"duplicates": 2, "keyed": 0, "unkeyed": 0}
    for dup in dups:
        assert (await api.ok(ITEM, id=dup["id"]))["item"]["archived"] is True
        edges = (await api.ok(EDGES, to=dup["id"]))["edges"]
        assert [(e["from"], e["author"]) for e in edges] == [(keeper["id"], "ops")]
    for kept in (keeper, made["other"], made["elsewhere"], made["kind"]):
        assert (await api.ok(ITEM, id=kept["id"]))["item"]["archived"] is False
    types = [e["type"] for e in (await api.ok(EVENTS, ns=["memory"]))["events"]]
    assert types.count("memory.archived") == 2
    assert types.count("edge.created") == 2
    # again: nothing more to do
    again = await queued(api, type_="CONSOLIDATE")
    await drain(worker(api, tmp_path))
    assert (await status(api, again["id"]))["result"]["duplicates"] == 0


async def test_a_consolidation_dry_run_writes_nothing(api: Api, tmp_path: Path) -> None:
    await twins(api)
    before = await api.snapshot()
    queued_job = await queued(api, type_="CONSOLIDATE", dryRun=True)
    await drain(worker(api, tmp_path))
    assert (await status(api, queued_job["id"]))["result"]["duplicates"] == 2
    after = await api.snapshot()
    assert [n for n in after[0] if '"Item"' in n] == [n for n in before[0] if '"Item"' in n]
    assert after[1] == before[1]  # no edge


async def test_consolidation_keys_items_written_before_keys(api: Api, tmp_path: Path) -> None:
    made = await twins(api)
    # as an older server left them: no key
    await api.graph.store.write("MATCH (n:Item) SET n.content_key = null RETURN count(n)", {})
    dry = await queued(api, type_="CONSOLIDATE", dryRun=True)
    await drain(worker(api, tmp_path))
    assert (await status(api, dry["id"]))["result"] == {
        "duplicates": 0, "keyed": 0, "unkeyed": 6}  # fmt: skip
    real = await queued(api, type_="CONSOLIDATE")
    await drain(worker(api, tmp_path))
    result = (await status(api, real["id"]))["result"]
    assert result == {"duplicates": 2, "keyed": 6, "unkeyed": 0}
    assert (await api.ok(ITEM, id=made["twins"][2]["id"]))["item"]["archived"] is True


async def test_content_keys_written_whole_are_cut_and_twins_still_found(
    api: Api, tmp_path: Path
) -> None:
    """Keys are 32 hex digits; those a server wrote whole (64) are cut to the
    same by migration content_key_short, and twins are found across both."""
    made = await twins(api)
    store = api.graph.store
    keys = await store.read("MATCH (n:Item) RETURN n.id AS id, n.content_key AS key", {})
    assert {r["id"]: len(r["key"]) for r in keys} == {r["id"]: 32 for r in keys}
    old = made["twins"][0]["id"]  # as an older server left it: the whole hash
    tail = hashlib.sha256(b"the rest of a whole hash").hexdigest()[32:]
    grow = "MATCH (n:Item {id: $id}) SET n.content_key = n.content_key + $tail"
    await store.write(grow, {"id": old, "tail": tail})
    grown = await store.read("MATCH (n:Item {id: $id}) RETURN n.content_key AS key", {"id": old})
    assert len(grown[0]["key"]) == 64
    await store.write("MATCH (m:Migration {name: 'content_key_short'}) DELETE m", {})
    assert [m.name for m in await migrate(api.graph)] == ["content_key_short"]
    after = await store.read("MATCH (n:Item) RETURN n.id AS id, n.content_key AS key", {})
    assert {r["id"]: r["key"] for r in after} == {r["id"]: r["key"] for r in keys}
    real = await queued(api, type_="CONSOLIDATE")
    await drain(worker(api, tmp_path))
    assert (await status(api, real["id"]))["result"]["duplicates"] == 2


async def test_consolidation_respects_the_callers_grants(api: Api, tmp_path: Path) -> None:
    made = await twins(api)
    await api.create(scope="e/", kind="fact", content={"x": 1, "y": 2})
    tenant = api.with_grants("write:e/")
    admin = api.with_grants("read:", "write:")
    queued_job = (await tenant.ok(RUN, i=job("CONSOLIDATE")))["runJob"]
    await drain(worker(api, tmp_path))
    assert (await tenant.ok(JOB, id=queued_job["id"]))["job"]["result"]["duplicates"] == 1
    for twin in made["twins"][1:]:  # c/ is not the tenant's
        assert (await admin.ok(ITEM, id=twin["id"]))["item"]["archived"] is False


async def test_a_consolidation_that_loses_a_race_reads_its_page_again(
    api: Api, tmp_path: Path
) -> None:
    made = await twins(api)
    w = worker(api, tmp_path)
    real_read = w.graph.read
    touched = False

    async def racing_read(name: str, params: Any = None, **slots: Any) -> Any:
        nonlocal touched
        rows = await real_read(name, params, **slots)
        if name == "job_duplicates" and not touched:  # another writer changes a twin
            touched = True
            await api.ok('mutation($id: ID!) { updateItem(id: $id, author: "u", '
                         'patch: {importance: 0.9}) { item { id } } }',
                         id=made["twins"][1]["id"])  # fmt: skip
        return rows

    queued_job = await queued(api, type_="CONSOLIDATE")
    claimed = await w.claim()
    assert claimed is not None
    caller = w.memex.as_caller(claimed.access)
    caller.graph.read = racing_read  # type: ignore[method-assign]
    w.memex.as_caller = lambda access: caller  # type: ignore[method-assign]
    await w.execute(claimed)
    done = await status(api, queued_job["id"])
    assert done["status"] == "COMPLETED"
    assert done["result"]["duplicates"] == 2
    assert touched
    item = (await api.ok(ITEM, id=made["twins"][1]["id"]))["item"]
    assert item["archived"] is True


@pytest.mark.parametrize("type_", ["CONSOLIDATE", "DECAY_UPDATE", "CLEANUP", "ARCHIVE_CREATE",
                                   "PATTERNS_EXTRACT"])  # fmt: skip
async def test_every_job_completes_on_an_empty_graph(api: Api, tmp_path: Path, type_: str) -> None:
    queued_job = await queued(api, type_=type_)
    await drain(worker(api, tmp_path))
    done = await status(api, queued_job["id"])
    assert done["status"] == "COMPLETED", done


async def test_a_worker_for_one_job_takes_no_other(api: Api, tmp_path: Path) -> None:
    first = await queued(api)
    second = await queued(api)
    config = Settings(keys_file=tmp_path / "k.json")
    only = JobWorker(Memex(api.store, config), config, only=second["id"])
    claimed = await only.claim()
    assert claimed is not None
    assert claimed.id == second["id"]
    assert await only.claim() is None
    assert (await status(api, first["id"]))["status"] == "QUEUED"
