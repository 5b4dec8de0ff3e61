"""Working memory with a capacity (SPEC §11, seed 001): the lowest-ranked
SESSION items of a session are archived in the same write as the new ones
that push it past its capacity, with their events; bounds, grants, races
and bad input."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from memexd.ids import uuid7_at
from tests.support import Api

SET = """mutation($s: String!, $id: String!, $c: Int) {
  setWorkingMemory(scope: $s, sessionId: $id, capacity: $c) { capacity items { id } } }"""
GET = """query($s: String!, $id: String!) {
  workingMemory(scope: $s, sessionId: $id) { scope sessionId capacity items { id } } }"""
CREATE_MANY = """mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) {
  items { id } events { type payload } } }"""
LIVE = "{ items(filter: {lifecycle: [SESSION]}) { id } }"
DAY = 86_400_000


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def note(days: float = 0, **fields: Any) -> dict[str, Any]:
    """A SESSION item of session s1 in tenant:a/chat, ``days`` old."""
    item = {"scope": "tenant:a/chat", "kind": "note", "content": {"n": days},
            "author": "agent:a", "sourceKind": "observed", "authority": 0.5,
            "lifecycle": "SESSION", "sessionId": "s1",
            "id": uuid7_at(now_ms() - int(days * DAY))}  # fmt: skip
    return {**item, **fields}


async def add(api: Api, *items: dict[str, Any]) -> dict[str, Any]:
    done: dict[str, Any] = (await api.ok(CREATE_MANY, i=list(items)))["createItems"]
    return done


async def live(api: Api) -> set[str]:
    return {i["id"] for i in (await api.ok(LIVE))["items"]}


async def test_past_its_capacity_the_lowest_ranked_are_archived(api: Api) -> None:
    await api.ok(SET, s="tenant:a/chat", id="s1", c=3)
    old = [note(days=d) for d in (9, 3, 6)]
    await add(api, *old)
    assert await live(api) == {i["id"] for i in old}
    fresh = note()
    done = await add(api, fresh)
    assert [e["type"] for e in done["events"]] == ["memory.created", "memory.archived"]
    assert done["events"][1]["payload"]["item"]["id"] == old[0]["id"]  # 9 days: lowest
    assert await live(api) == {old[1]["id"], old[2]["id"], fresh["id"]}
    both = await add(api, note(days=1), note(days=2))  # two in: the two lowest go
    archived = [e["payload"]["item"]["id"] for e in both["events"][2:]]
    assert archived == [old[2]["id"], old[1]["id"]]
    log = await api.ok('{ events(filter: {types: ["memory.archived"]}) { author reason } }')
    assert log["events"][0] == {"author": "agent:a",
                                "reason": "working memory over its capacity of 3"}  # fmt: skip


async def test_priority_and_access_rank_what_stays(api: Api) -> None:
    """Scores at 30-day half-life: vital (5 days, P0) 1.69; used (4 days,
    read 5 times) 0.875 * 1.18 = 1.03; plain (3 days) 0.905: plain goes,
    though used is older (unread, used would have gone: 0.875)."""
    await api.ok(SET, s="tenant:a/chat", id="s1", c=3)
    vital, used, plain = note(days=5, priority="P0"), note(days=4), note(days=3)
    await add(api, vital, used, plain)
    for _ in range(5):
        await api.ok("mutation($id: ID!) { recordAccess(ids: [$id]) { id } }", id=used["id"])
    fresh = note()
    await add(api, fresh)
    assert await live(api) == {vital["id"], used["id"], fresh["id"]}
    view = (await api.ok(GET, s="tenant:a/chat", id="s1"))["workingMemory"]
    assert view["capacity"] == 3
    # highest first: vital 1.69, used 1.03, fresh 1.0
    assert [i["id"] for i in view["items"]] == [vital["id"], used["id"], fresh["id"]]


async def test_new_items_are_never_the_ones_archived(api: Api) -> None:
    await api.ok(SET, s="tenant:a/chat", id="s1", c=2)
    old = note(days=1)
    await add(api, old)
    batch = [note(days=30), note(days=20), note(days=10)]  # older ids, but new
    done = await add(api, *batch)
    assert [e["payload"]["item"]["id"] for e in done["events"][3:]] == [old["id"]]
    assert await live(api) == {i["id"] for i in batch}


async def test_other_sessions_scopes_and_tiers_are_untouched(api: Api) -> None:
    await api.ok(SET, s="tenant:a/chat", id="s1", c=1)
    others = [note(sessionId="s2"), note(scope="tenant:a/other"),
              note(lifecycle="TASK"), note(sessionId=None)]  # fmt: skip
    first = note(days=2)
    await add(api, first, *others)
    done = await add(api, note(days=1))
    assert [e["type"] for e in done["events"]] == ["memory.created", "memory.archived"]
    assert done["events"][1]["payload"]["item"]["id"] == first["id"]
    everything = await api.ok("{ items { id } }")
    assert {i["id"] for i in others} <= {i["id"] for i in everything["items"]}


async def test_without_a_capacity_nothing_is_archived(api: Api) -> None:
    await add(api, *(note(days=d) for d in range(5)))
    set_ = (await api.ok(SET, s="tenant:a/chat", id="s1", c=2))["setWorkingMemory"]
    assert set_["capacity"] == 2
    assert len(set_["items"]) == 5  # setting archives nothing by itself
    await add(api, note())
    assert len(await live(api)) == 2  # the next one brings it down
    removed = (await api.ok(SET, s="tenant:a/chat", id="s1", c=None))["setWorkingMemory"]
    assert removed["capacity"] is None
    await add(api, note(), note())
    assert len(await live(api)) == 4


async def test_racing_writers_keep_the_capacity(api: Api) -> None:
    await api.ok(SET, s="tenant:a/chat", id="s1", c=4)
    await asyncio.gather(*(add(api, note(days=i / 10)) for i in range(12)))
    assert len(await live(api)) == 4
    archived = await api.ok('{ events(filter: {types: ["memory.archived"]}) { id } }')
    assert len(archived["events"]) == 8


async def test_post_items_keeps_the_capacity_too(api: Api) -> None:
    await api.ok(SET, s="tenant:a/chat", id="s1", c=2)
    lines = "\n".join(__import__("json").dumps(note(days=d)) for d in (3, 2, 1)) + "\n"
    response = await api.client.post("/items", content=lines,
                                     headers={"content-type": "application/x-ndjson"})  # fmt: skip
    assert response.status_code == 200, response.text
    await add(api, note())
    assert len(await live(api)) == 2


async def test_grants_bound_working_memory(api: Api) -> None:
    admin = api.with_grants("read:", "write:")
    reader = api.with_grants("read:tenant:a/")
    assert await reader.codes(SET, s="tenant:a/chat", id="s1", c=3) == ["FORBIDDEN"]
    await admin.ok(SET, s="tenant:b/chat", id="s1", c=1)
    theirs = note(scope="tenant:b/chat")
    await add(admin, theirs)
    stranger = api.with_grants("read:tenant:a/", "write:tenant:a/")
    view = (await stranger.ok(GET, s="tenant:b/chat", id="s1"))["workingMemory"]
    assert view == {"scope": "tenant:b/chat", "sessionId": "s1", "capacity": None,
                    "items": []}  # fmt: skip
    await add(stranger, note(), note())  # tenant a's s1 has no bound
    assert theirs["id"] in {i["id"] for i in (await admin.ok(LIVE))["items"]}


async def test_bad_working_memory_input_writes_nothing(api: Api) -> None:
    before = await api.snapshot()
    for capacity in (0, -1, 1001):
        codes = await api.codes(SET, s="tenant:a/chat", id="s1", c=capacity)
        assert codes == ["BAD_USER_INPUT"], capacity
    assert await api.codes(SET, s="", id="s1", c=3) == ["BAD_USER_INPUT"]
    assert await api.codes(SET, s="tenant:a/chat", id="", c=3) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
