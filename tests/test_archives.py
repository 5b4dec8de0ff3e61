"""Archives (SPEC §13): ARCHIVE_CREATE keeps a compressed export of a range
and scope in the database; ARCHIVE_RESTORE imports it back, after a purge
or on a fresh graph."""

from __future__ import annotations

import time
from pathlib import Path

from memexd.ids import uuid7_at
from tests.support import Api
from tests.test_jobs import drain, job, status, worker

RUN = "mutation($i: JobInput!) { runJob(input: $i) { id } }"
ARCHIVES = """query($p: String) { archives(scopePrefix: $p) {
  id scopePrefix from to entryCount bytes compressed createdAt jobId } }"""
ITEM = "query($id: ID!) { item(id: $id) { id content } }"
EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
DAY = 86_400_000


async def run(api: Api, tmp_path: Path, **fields: object) -> dict[str, object]:
    queued = (await api.ok(RUN, i=job(**fields)))["runJob"]
    await drain(worker(api, tmp_path, jobs_batch=3))
    done: dict[str, object] = await status(api, queued["id"])
    return done


async def test_an_archive_holds_a_range_and_restores_it(api: Api, tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    inside = [await api.create(id=uuid7_at(now - 10 * DAY + n), scope="a/", content={"n": n})
              for n in range(4)]  # fmt: skip
    await api.create(id=uuid7_at(now - 40 * DAY), scope="a/")  # before the range
    await api.create(id=uuid7_at(now - 10 * DAY), scope="b/")  # another scope
    await api.ok(EDGE, a=inside[0]["id"], b=inside[1]["id"])
    params = {"from": now - 20 * DAY, "to": now}
    made = await run(api, tmp_path, type_="ARCHIVE_CREATE", scopePrefix="a/", params=params)
    assert made["status"] == "COMPLETED", made
    result = made["result"]
    assert (result["items"], result["edges"]) == (4, 1)
    archives = (await api.ok(ARCHIVES, p="a/"))["archives"]
    assert [a["id"] for a in archives] == [result["archiveId"]]
    assert archives[0]["entryCount"] == 5
    assert archives[0]["compressed"] is True
    assert archives[0]["bytes"] == result["bytes"] > 0
    assert archives[0]["jobId"]
    assert archives[0]["from"]
    assert archives[0]["to"]
    assert (await api.ok(ARCHIVES, p="b/"))["archives"] == []

    # restoring onto the same graph: every record exists already
    again = await run(api, tmp_path, type_="ARCHIVE_RESTORE",
                      params={"archiveId": result["archiveId"]})  # fmt: skip
    assert again["result"]["created"] == 0
    assert again["result"]["skipped"] == 5


async def test_an_archive_restores_what_a_cleanup_purged(api: Api, tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    old = [await api.create(id=uuid7_at(now - 90 * DAY + n), scope="a/", lifecycle="TASK",
                            content={"note": n}) for n in range(3)]  # fmt: skip
    made = await run(api, tmp_path, type_="ARCHIVE_CREATE", scopePrefix="a/")
    archive = made["result"]["archiveId"]
    ids = [i["id"] for i in old]
    await api.ok('mutation($ids: [ID!]!) { archiveByDecay(input: {author: "u", '
                 'filter: {ids: $ids}}) { archivedIds } }', ids=ids)  # fmt: skip
    purged = await run(api, tmp_path, type_="CLEANUP")
    assert purged["result"]["purged"] == 3
    assert (await api.ok(ITEM, id=ids[0]))["item"] is None
    restored = await run(api, tmp_path, type_="ARCHIVE_RESTORE", params={"archiveId": archive})
    assert restored["status"] == "COMPLETED", restored
    assert restored["result"]["created"] == 3
    assert (await api.ok(ITEM, id=ids[2]))["item"]["content"] == {"note": 2}


async def test_archives_follow_the_callers_grants_and_a_dry_run_keeps_none(
    api: Api, tmp_path: Path
) -> None:
    """A dry run of ARCHIVE_CREATE stores nothing; the caller's grants bound
    what an archive holds and who sees it."""
    await api.create(scope="a/")
    await api.create(scope="b/")
    tenant = api.with_grants("write:a/")
    dry = (await tenant.ok(RUN, i=job("ARCHIVE_CREATE", dryRun=True)))["runJob"]
    await drain(worker(api, tmp_path))
    result = await tenant.ok("query($id: ID!) { job(id: $id) { result } }", id=dry["id"])
    assert result["job"]["result"]["items"] == 1
    assert (await tenant.ok(ARCHIVES))["archives"] == []
    real = (await tenant.ok(RUN, i=job("ARCHIVE_CREATE")))["runJob"]
    await drain(worker(api, tmp_path))
    assert len((await tenant.ok(ARCHIVES))["archives"]) == 1
    other = api.with_grants("write:b/")
    assert (await other.ok(ARCHIVES))["archives"] == []
    assert real["id"]


async def test_bad_archive_params_are_refused(api: Api) -> None:
    for type_, params in (("ARCHIVE_CREATE", {"from": 5, "to": 5}),
                          ("ARCHIVE_CREATE", {"from": "yesterday"}),
                          ("ARCHIVE_CREATE", {"since": 1}),
                          ("ARCHIVE_RESTORE", {}),
                          ("ARCHIVE_RESTORE", {"archiveId": "x"})):  # fmt: skip
        assert await api.codes(RUN, i=job(type_, params=params)) == ["BAD_USER_INPUT"], params
    assert (await api.ok("{ jobs { id } }"))["jobs"] == []


async def test_restoring_an_unknown_archive_fails_the_job(api: Api, tmp_path: Path) -> None:
    done = await run(api, tmp_path, type_="ARCHIVE_RESTORE",
                     params={"archiveId": "0190c0de-0000-7000-8000-000000000000"})  # fmt: skip
    assert done["status"] == "FAILED"
    assert str(done["error"]).startswith("NOT_FOUND")
