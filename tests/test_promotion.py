"""Promotion (SPEC §11): promoteItem and promoteFromTask, the item, edge and
events they write in one statement, dry runs, once per source, grants and
bad input."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memexd import concurrency
from memexd.ids import uuid7_at
from memexd.memory.promotion import Promotion
from tests.support import Api

RESULT = """source { id } dryRun
  promoted { id scope kind content author lifecycle priority tags sessionId parents taskId }
  edge { kind from to author active }"""
PROMOTE = f"""mutation($id: ID!, $tag: PromotionTag!, $dry: Boolean) {{
  promoteItem(id: $id, tag: $tag, author: "user:lead", dryRun: $dry) {{ {RESULT} }} }}"""
FROM_TASK = f"""mutation($t: ID!, $dry: Boolean) {{
  promoteFromTask(taskId: $t, tag: DECISION, author: "user:lead", dryRun: $dry) {{ {RESULT} }} }}"""
INTENT = """mutation { createIntent(input: {label: "ship", priority: 0.5, owner: "user:o"})
  { intent { id } } }"""
TASK = """mutation($i: ID!) { createTask(input: {intentId: $i, action: "write", priority: 0.5})
  { task { id } } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { type } } }'
ARCHIVE = """mutation { archiveByDecay(input: {author: "u", threshold: 10}) { archivedIds } }"""


async def learned(api: Api, **fields: Any) -> dict[str, Any]:
    """A session's finding."""
    defaults = {"scope": "tenant:a/app", "kind": "discovery", "lifecycle": "SESSION",
                "sessionId": "s-1", "priority": "P1", "tags": ["db"],
                "content": {"text": "retry writes on lock timeouts"}}  # fmt: skip
    return await api.create(**{**defaults, **fields})


async def new_task(api: Api) -> str:
    intent = (await api.ok(INTENT))["createIntent"]["intent"]["id"]
    return str((await api.ok(TASK, i=intent))["createTask"]["task"]["id"])


async def test_promotion_makes_a_project_item_with_its_edge(api: Api) -> None:
    source = await learned(api)
    done = (await api.ok(PROMOTE, id=source["id"], tag="PATTERN"))["promoteItem"]
    promoted = done["promoted"]
    assert done["source"] == {"id": source["id"]}
    assert done["dryRun"] is False
    assert promoted == {
        "id": promoted["id"], "scope": "tenant:a/app", "kind": "discovery",
        "content": {"text": "retry writes on lock timeouts"}, "author": "user:lead",
        "lifecycle": "PROJECT", "priority": "P1", "tags": ["db", "pattern"],
        "sessionId": None, "parents": [source["id"]], "taskId": None,
    }  # fmt: skip
    assert done["edge"] == {"kind": "DISCOVERED_FROM", "from": promoted["id"],
                            "to": source["id"], "author": "user:lead", "active": True}  # fmt: skip
    found = await api.ok('{ items(filter: {tagsAll: ["pattern"], lifecycle: [PROJECT]}) { id } }')
    assert found["items"] == [{"id": promoted["id"]}]
    edges = await api.ok("query($id: ID!) { edges(filter: {to: $id, kind: \"DISCOVERED_FROM\"})"
                         " { from } }", id=source["id"])  # fmt: skip
    assert edges["edges"] == [{"from": promoted["id"]}]
    log = await api.ok('{ events(filter: {types: ["memory.created", "edge.created"]}) '
                       "{ type payload } }")  # fmt: skip
    assert [e["type"] for e in log["events"]] == [
        "memory.created", "memory.created", "edge.created"]  # fmt: skip
    assert log["events"][2]["payload"]["edge"]["from"] == promoted["id"]


async def test_a_dry_run_writes_nothing(api: Api) -> None:
    source = await learned(api)
    before = await api.snapshot()
    done = (await api.ok(PROMOTE, id=source["id"], tag="FAQ", dry=True))["promoteItem"]
    assert done == {"source": {"id": source["id"]}, "dryRun": True, "promoted": None,
                    "edge": None}  # fmt: skip
    assert await api.snapshot() == before


async def test_a_source_is_promoted_once(api: Api) -> None:
    source = await learned(api)
    first = (await api.ok(PROMOTE, id=source["id"], tag="PATTERN"))["promoteItem"]
    before = await api.snapshot()
    again = (await api.ok(PROMOTE, id=source["id"], tag="PITFALL"))["promoteItem"]
    assert again == first
    dry = (await api.ok(PROMOTE, id=source["id"], tag="PITFALL", dry=True))["promoteItem"]
    assert dry == {**first, "dryRun": True}  # the promotion it has, the flag echoed
    assert await api.snapshot() == before
    await api.ok(RETRACT, id=first["promoted"]["id"])  # its promotion gone: promote anew
    fresh = (await api.ok(PROMOTE, id=source["id"], tag="PITFALL"))["promoteItem"]
    assert fresh["promoted"]["id"] != first["promoted"]["id"]
    assert fresh["promoted"]["tags"] == ["db", "pitfall"]


async def test_racing_promotions_of_one_item_make_one(api: Api) -> None:
    source = await learned(api)
    done = await asyncio.gather(
        *(api.ok(PROMOTE, id=source["id"], tag="DECISION") for _ in range(6))
    )
    promoted = {d["promoteItem"]["promoted"]["id"] for d in done}
    assert len(promoted) == 1
    found = await api.ok("{ items(filter: {lifecycle: [PROJECT]}) { id } }")
    assert [i["id"] for i in found["items"]] == list(promoted)


async def test_a_task_promotes_its_summaries(api: Api) -> None:
    task = await new_task(api)
    first = await learned(api, kind="summary", taskId=task, content={"text": "use WAL"})
    await learned(api, kind="note", taskId=task)  # not a summary
    await learned(api, kind="summary")  # not the task's
    second = await learned(api, kind="summary", taskId=task, content={"text": "pin deps"})
    dry = (await api.ok(FROM_TASK, t=task, dry=True))["promoteFromTask"]
    assert [d["source"]["id"] for d in dry] == [first["id"], second["id"]]
    done = (await api.ok(FROM_TASK, t=task))["promoteFromTask"]
    assert [d["promoted"]["content"] for d in done] == [{"text": "use WAL"}, {"text": "pin deps"}]
    assert all(d["promoted"]["tags"] == ["db", "decision"] for d in done)
    third = await learned(api, kind="summary", taskId=task)
    before = [d["promoted"]["id"] for d in done]
    again = (await api.ok(FROM_TASK, t=task))["promoteFromTask"]
    assert [d["promoted"]["id"] for d in again][:2] == before  # kept, not made again
    assert again[2]["source"]["id"] == third["id"]
    assert again[2]["promoted"]["id"] not in before


async def test_an_empty_task_promotes_nothing(api: Api) -> None:
    task = await new_task(api)
    assert (await api.ok(FROM_TASK, t=task))["promoteFromTask"] == []


async def test_grants_bound_promotion(api: Api) -> None:
    admin = api.with_grants("read:", "write:")
    theirs = await learned(admin, scope="tenant:b/app")
    reader = api.with_grants("read:tenant:")
    assert await reader.codes(PROMOTE, id=theirs["id"], tag="FAQ") == ["FORBIDDEN"]
    stranger = api.with_grants("read:tenant:a/", "write:tenant:a/")
    assert await stranger.codes(PROMOTE, id=theirs["id"], tag="FAQ") == ["MEMORY_NOT_FOUND"]
    assert await reader.codes(PROMOTE, id=theirs["id"], tag="FAQ", dry=True) == ["FORBIDDEN"]


async def test_bad_promotion_input_writes_nothing(api: Api) -> None:
    retracted = await learned(api)
    await api.ok(RETRACT, id=retracted["id"])
    archived = await learned(api, lifecycle="EPHEMERAL")
    await api.ok(ARCHIVE)
    before = await api.snapshot()
    assert await api.codes(PROMOTE, id=retracted["id"], tag="FAQ") == ["INVALID_TRANSITION"]
    assert await api.codes(PROMOTE, id=archived["id"], tag="FAQ") == ["INVALID_TRANSITION"]
    missing = uuid7_at(1_700_000_000_000)
    assert await api.codes(PROMOTE, id=missing, tag="FAQ") == ["MEMORY_NOT_FOUND"]
    assert await api.codes(PROMOTE, id="nope", tag="FAQ") == ["BAD_USER_INPUT"]
    assert await api.codes(PROMOTE, id=missing, tag="LORE") == ["BAD_USER_INPUT"]
    assert await api.codes(FROM_TASK, t=missing) == ["TASK_NOT_FOUND"]
    blank = 'mutation($id: ID!) { promoteItem(id: $id, tag: FAQ, author: "") { dryRun } }'
    assert await api.codes(blank, id=archived["id"]) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_the_write_itself_refuses_a_second_promotion(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Racing writers may all read "not promoted yet": the statement's own
    guard lets one through (seen here by hiding the read)."""

    async def nothing(self: Promotion, ids: list[str]) -> dict[str, Any]:
        return {}

    source = await learned(api)
    await api.ok(PROMOTE, id=source["id"], tag="FAQ")
    monkeypatch.setattr(Promotion, "_existing", nothing)
    monkeypatch.setattr(concurrency, "ATTEMPTS", 2)
    assert await api.codes(PROMOTE, id=source["id"], tag="FAQ") == ["CONFLICT"]
    found = await api.ok("{ items(filter: {lifecycle: [PROJECT]}) { id } }")
    assert len(found["items"]) == 1
