"""CLEANUP (SPEC §13): archived or retracted items, old and of low decay
score, not pinned, are purged for good; the log keeps a content-free
memory.purged event; edges, walks and exports stay consistent."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from memexd.ids import uuid7_at
from tests.support import Api
from tests.test_jobs import drain, job, status, worker

RUN = "mutation($i: JobInput!) { runJob(input: $i) { id } }"
ITEM = "query($id: ID!) { item(id: $id) { id parents } }"
EVENTS = """query($ids: [ID!]) { events(filter: {itemIds: $ids}) { type payload } }"""
DAY = 86_400_000
EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
ARCHIVE = """mutation($ids: [ID!]!) { archiveByDecay(input: {author: "u", filter: {ids: $ids},
  threshold: 10}) { archivedIds } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'


async def old(api: Api, days: float, **fields: Any) -> dict[str, Any]:
    """A TASK item (PROJECT ones are never archived) created ``days`` days ago."""
    ms = int(time.time() * 1000 - days * DAY)
    return await api.create(id=uuid7_at(ms), lifecycle="TASK", **fields)


async def corpus(api: Api) -> dict[str, dict[str, Any]]:
    made = {
        "archived": await old(api, 90, scope="k/", content={"secret": "archived"}),
        "retracted": await old(api, 90, scope="k/", content={"secret": "retracted"}),
        "pinned": await old(api, 90, scope="k/", tags=["pinned"]),
        "live": await old(api, 90, scope="k/"),
        "recent": await old(api, 1, scope="k/"),
        "other": await old(api, 90, scope="o/"),
    }
    made["child"] = await api.create(scope="k/", parents=[made["archived"]["id"]])
    made["edge"] = (await api.ok(EDGE, a=made["live"]["id"], b=made["archived"]["id"]))[
        "createEdge"]["edge"]  # fmt: skip
    ids = [made[k]["id"] for k in ("archived", "pinned", "recent", "other")]
    await api.ok(ARCHIVE, ids=ids)
    await api.ok(RETRACT, id=made["retracted"]["id"])
    return made


async def test_cleanup_purges_old_archived_and_retracted_items(api: Api, tmp_path: Path) -> None:
    made = await corpus(api)
    tenant = api.with_grants("write:k/")
    admin = api.with_grants("read:", "write:")
    queued = (await tenant.ok(RUN, i=job("CLEANUP")))["runJob"]
    await drain(worker(api, tmp_path, jobs_batch=2))
    done = await status(admin, queued["id"])
    assert done["status"] == "COMPLETED", done
    assert done["result"]["purged"] == 2
    for name in ("archived", "retracted"):
        gone = made[name]["id"]
        assert (await admin.ok(ITEM, id=gone))["item"] is None
        events = (await admin.ok(EVENTS, ids=[gone]))["events"]
        memory = [e for e in events if e["type"].startswith("memory.")]
        assert [e["type"] for e in memory] == ["memory.purged"]  # its content went with it
        events = memory
        assert "content" not in events[0]["payload"]["item"]
        assert events[0]["payload"]["item"]["id"] == gone
    for name in ("pinned", "live", "recent", "other", "child"):  # kept
        assert (await admin.ok(ITEM, id=made[name]["id"]))["item"] is not None
    edge = made["edge"]["edgeId"]
    assert (await admin.ok("query($e: ID!) { edge(edgeId: $e) { edgeId } }", e=edge))[
        "edge"] is None  # fmt: skip
    child = made["child"]["id"]
    assert (await admin.ok(ITEM, id=child))["item"]["parents"] == [made["archived"]["id"]]
    assert (await admin.ok("query($id: ID!) { parents(id: $id) { id } }", id=child))[
        "parents"] == []  # fmt: skip
    snapshot = str(await api.snapshot())
    assert '\\"secret\\"' not in snapshot
    assert '"secret"' not in snapshot


async def test_a_purged_parent_restored_links_its_children_again(api: Api, tmp_path: Path) -> None:
    made = await corpus(api)
    await api.ok(RUN, i=job("CLEANUP"))
    await drain(worker(api, tmp_path))
    parent = made["archived"]
    again = {k: parent[k] for k in ("id", "scope", "kind", "content", "author", "authority")}
    await api.create(**again, sourceKind="observed")
    parents = await api.ok("query($id: ID!) { parents(id: $id) { id } }", id=made["child"]["id"])
    assert parents["parents"] == [{"id": parent["id"]}]


async def test_a_cleanup_dry_run_purges_nothing(api: Api, tmp_path: Path) -> None:
    await corpus(api)
    before = await api.snapshot()
    queued = (await api.ok(RUN, i=job("CLEANUP", dryRun=True)))["runJob"]
    await drain(worker(api, tmp_path))
    assert (await status(api, queued["id"]))["result"]["purged"] == 3  # o/ too: every grant
    after = await api.snapshot()
    assert [n for n in after[0] if '"Item"' in n] == [n for n in before[0] if '"Item"' in n]
    assert after[1] == before[1]


async def test_cleanup_params(api: Api, tmp_path: Path) -> None:
    made = await corpus(api)
    young = {"olderThanDays": 0.5}
    queued = (await api.ok(RUN, i=job("CLEANUP", params=young)))["runJob"]
    await drain(worker(api, tmp_path))
    assert (await status(api, queued["id"]))["result"]["purged"] == 3  # recent: score 0.97
    loose = {"olderThanDays": 0.5, "maxDecay": 1.0}
    queued = (await api.ok(RUN, i=job("CLEANUP", params=loose)))["runJob"]
    await drain(worker(api, tmp_path))
    assert (await status(api, queued["id"]))["result"]["purged"] == 1  # recent too
    assert (await api.ok(ITEM, id=made["pinned"]["id"]))["item"] is not None
    for params in ({"olderThanDays": -1}, {"maxDecay": "x"}, {"keep": True}):
        assert await api.codes(RUN, i=job("CLEANUP", params=params)) == ["BAD_USER_INPUT"]
