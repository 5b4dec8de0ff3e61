"""The lifecycle fields (SPEC §11): tier, priority, tags and session on items,
in inputs, patches, filters, events, POST /items and MemEX round trips."""

from __future__ import annotations

from typing import Any

import memex
import orjson

from memexd.graph.migrations import migrate
from memexd.ids import uuid7_at
from memexd.types import GraphStore
from tests.memex_session import wire
from tests.support import Api

FIELDS = "id lifecycle priority tags sessionId meta"
CREATE = f"""mutation($i: MemoryItemInput!) {{ createItem(input: $i) {{
  item {{ {FIELDS} }} events {{ payload }} }} }}"""
UPDATE = f"""mutation($id: ID!, $p: MemoryItemPatch!) {{
  updateItem(id: $id, patch: $p, author: "user:e") {{
    item {{ {FIELDS} }} events {{ payload }} }} }}"""
FIND = "query($f: MemoryFilter) { items(filter: $f, limit: 100) { id } }"
EXPORT = "query($i: ExportInput!) { exportSlice(input: $i) }"
IMPORT = "mutation($s: JSON!) { importSlice(slice: $s) { created { memories } } }"


def draft(**fields: Any) -> dict[str, Any]:
    return {"scope": "s", "kind": "note", "content": {"v": 1}, "author": "agent:a",
            "sourceKind": "observed", "authority": 0.5, **fields}  # fmt: skip


async def create(api: Api, **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = (await api.ok(CREATE, i=draft(**fields)))["createItem"]["item"]
    return item


async def test_defaults_leave_meta_as_it_was(api: Api) -> None:
    item = await create(api)
    assert (item["lifecycle"], item["priority"], item["tags"]) == ("PROJECT", "P2", [])
    assert (item["sessionId"], item["meta"]) == (None, None)
    same = await create(api, lifecycle="PROJECT", priority="P2", tags=[], meta={"k": 1})
    assert same["meta"] == {"k": 1}  # defaults are not written out


async def test_fields_live_in_meta_and_travel_with_the_event(api: Api) -> None:
    data = await api.ok(CREATE, i=draft(lifecycle="SESSION", priority="P0",
                                        tags=["b", "a:x", "b"], sessionId="s-1",
                                        meta={"agent_id": "agent:a"}))  # fmt: skip
    item = data["createItem"]["item"]
    assert (item["lifecycle"], item["priority"], item["tags"]) == ("SESSION", "P0", ["a:x", "b"])
    assert item["sessionId"] == "s-1"
    memexd_meta = {"lifecycle": "SESSION", "priority": "P0", "tags": ["a:x", "b"]}
    assert item["meta"] == {"agent_id": "agent:a", "session_id": "s-1", "memexd": memexd_meta}
    event = data["createItem"]["events"][0]["payload"]
    assert event["item"]["meta"] == item["meta"]


async def test_meta_memexd_given_directly_is_checked_and_canonical(api: Api) -> None:
    item = await create(api, meta={"memexd": {"tags": ["z", "y"], "priority": "P2"}})
    assert item["meta"] == {"memexd": {"tags": ["y", "z"]}}
    typed_wins = await create(api, meta={"memexd": {"lifecycle": "TASK"}}, lifecycle="SESSION")
    assert typed_wins["lifecycle"] == "SESSION"
    empty = await create(api, meta={"memexd": {}, "k": 1})
    assert empty["meta"] == {"k": 1}


async def test_patches_replace_fields_and_keep_the_rest_of_meta(api: Api) -> None:
    item = await create(api, lifecycle="TASK", tags=["a"], meta={"k": 1}, sessionId="s")
    data = await api.ok(UPDATE, id=item["id"], p={"tags": ["b", "c"], "priority": "P3"})
    patched = data["updateItem"]["item"]
    assert (patched["lifecycle"], patched["priority"], patched["tags"]) == (
        "TASK",
        "P3",
        ["b", "c"],
    )
    assert patched["meta"]["k"] == 1
    assert patched["sessionId"] == "s"
    defaults = {"lifecycle": "PROJECT", "priority": "P2", "tags": []}
    back = (await api.ok(UPDATE, id=item["id"], p=defaults))["updateItem"]["item"]
    assert back["meta"] == {"k": 1, "session_id": "s"}
    assert (await api.ok(FIND, f={"tagsAny": ["b"]}))["items"] == []
    # a patch of meta replaces meta.memexd whole (MemEX's shallow merge)
    replaced = {"meta": {"memexd": {"lifecycle": "EPHEMERAL"}}}
    again = (await api.ok(UPDATE, id=item["id"], p=replaced))["updateItem"]["item"]
    assert (again["lifecycle"], again["tags"]) == ("EPHEMERAL", [])


async def ids(api: Api, **flt: Any) -> set[str]:
    return {i["id"] for i in (await api.ok(FIND, f=flt))["items"]}


async def test_filters_on_tier_priority_tags_and_session(api: Api) -> None:
    a = (await create(api, lifecycle="SESSION", priority="P0", tags=["x", "y"], sessionId="s1"))[
        "id"
    ]
    b = (await create(api, lifecycle="TASK", priority="P1", tags=["y"], sessionId="s2"))["id"]
    c = (await create(api))["id"]
    assert await ids(api, lifecycle=["SESSION", "TASK"]) == {a, b}
    assert await ids(api, lifecycle=["PROJECT"]) == {c}
    assert await ids(api, priority=["P2"]) == {c}
    assert await ids(api, priority=["P0", "P1"], lifecycle=["TASK"]) == {b}
    assert await ids(api, tagsAny=["x", "nope"]) == {a}
    assert await ids(api, tagsAny=["y"]) == {a, b}
    assert await ids(api, tagsAll=["x", "y"]) == {a}
    assert await ids(api, tagsAll=["x", "nope"]) == set()
    assert await ids(api, sessionId="s2") == {b}
    assert await ids(api, **{"not": {"tagsAny": ["y"]}}) == {c}
    assert await ids(api, **{"or": [{"sessionId": "s1"}, {"lifecycle": ["PROJECT"]}]}) == {a, c}
    assert await ids(api, meta={"memexd.lifecycle": "SESSION"}) == {a}  # the MemEX path too


async def test_bad_lifecycle_input_writes_nothing(api: Api) -> None:
    item = await create(api)
    before = await api.snapshot()
    bad_creates = [
        {"tags": ["Upper"]}, {"tags": ["-lead"]}, {"tags": ["x" * 65]},
        {"tags": [f"t{n}" for n in range(33)]}, {"sessionId": ""},
        {"meta": {"memexd": {"lifecycle": "FOREVER"}}}, {"meta": {"memexd": {"mood": 1}}},
        {"meta": {"memexd": []}}, {"meta": {"memexd": {"tags": "a"}}},
    ]  # fmt: skip
    for fields in bad_creates:
        assert await api.codes(CREATE, i=draft(**fields)) == ["BAD_USER_INPUT"], fields
    assert await api.codes(UPDATE, id=item["id"], p={"tags": ["a b"]}) == ["BAD_USER_INPUT"]
    for flt in ({"tagsAny": []}, {"tagsAll": ["BAD"]}, {"lifecycle": []}, {"sessionId": ""}):
        body = await api.run(FIND, {"f": flt})
        codes = [e["extensions"]["code"] for e in body["errors"]]
        assert codes == ["BAD_USER_INPUT"], flt
    assert await api.codes(CREATE, i=draft(lifecycle="FOREVER")) == ["BAD_USER_INPUT"]
    assert await api.codes(FIND, f={"priority": ["P9"]}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_post_items_takes_the_fields(api: Api) -> None:
    row = draft(lifecycle="EPHEMERAL", tags=["scratch"], sessionId="s9")
    response = await api.client.post("/items", content=orjson.dumps(row) + b"\n",
                                     headers={"content-type": "application/x-ndjson"})  # fmt: skip
    assert response.status_code == 200, response.text
    assert await ids(api, lifecycle=["EPHEMERAL"], tagsAll=["scratch"], sessionId="s9")
    bad = await api.client.post("/items", content=orjson.dumps(draft(tags=["Bad"])) + b"\n",
                                headers={"content-type": "application/x-ndjson"})  # fmt: skip
    assert b"BAD_USER_INPUT" in bad.content


async def test_memex_round_trip_keeps_the_fields(make_api: Any) -> None:
    api: Api = await make_api()
    made = [
        await create(api, lifecycle="SESSION", priority="P1", tags=["t"], sessionId="s"),
        await create(api, meta={"k": {"deep": 1}}),
    ]
    ids_ = [m["id"] for m in made]
    exported = (await api.ok(EXPORT, i={"memoryIds": ids_}))["exportSlice"]
    assert exported["memories"][0]["meta"]["memexd"] == {
        "lifecycle": "SESSION", "priority": "P1", "tags": ["t"]}  # fmt: skip
    state = memex.import_slice(memex.create_graph_state(), memex.create_intent_state(),
                               memex.create_task_state(), exported)  # fmt: skip
    theirs = memex.export_slice(state[0], state[1], state[2], memory_ids=ids_)
    theirs = wire(theirs)
    other: Api = await make_api()
    await other.graph.write("admin_wipe")
    await migrate(other.graph)
    await other.ok(IMPORT, s=exported)
    got = (await other.ok(f"query($i: [ID!]!) {{ items(filter: {{ids: $i}}) {{ {FIELDS} }} }}",
                          i=ids_))["items"]  # fmt: skip
    assert sorted(got, key=lambda i: i["id"]) == sorted(made, key=lambda i: i["id"])
    again = (await other.ok(EXPORT, i={"memoryIds": ids_}))["exportSlice"]
    assert again == exported
    by_id = {m["id"]: m for m in theirs["memories"]}
    assert [by_id[m["id"]] for m in exported["memories"]] == exported["memories"]


async def test_items_written_before_take_the_defaults(api: Api, store: GraphStore) -> None:
    """Migration 0013 backfills the typed properties an older item lacks."""
    item = await create(api, id=uuid7_at(1_700_000_000_000))
    await store.write("MATCH (n:Item {id: $id}) SET n.lifecycle = null, n.priority = null, "
                      "n.tags = null", {"id": item["id"]})  # fmt: skip
    await store.write("MATCH (m:Migration {version: 13}) DELETE m", {})
    assert await ids(api, lifecycle=["PROJECT"]) == set()
    assert [m.version for m in await migrate(api.graph)] == [13]
    assert await ids(api, lifecycle=["PROJECT"], priority=["P2"]) == {item["id"]}
    assert await ids(api, **{"not": {"tagsAny": ["x"]}}) == {item["id"]}


async def test_create_items_takes_the_fields_too(api: Api) -> None:
    batch = """mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) {
      items { lifecycle priority tags sessionId } } }"""
    got = await api.ok(batch, i=[draft(lifecycle="TASK", priority="P1", tags=["a"], sessionId="s")])
    assert got["createItems"]["items"] == [
        {"lifecycle": "TASK", "priority": "P1", "tags": ["a"], "sessionId": "s"}
    ]
