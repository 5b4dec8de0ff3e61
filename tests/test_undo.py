"""Undo by trace (SPEC §14): everything one command did, taken back in one
write, through every way in (createItems, POST /items, replays, imports,
updates, new edges); conflicts with later commands named and nothing
written; dry runs; bad input and grants."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from memexd.ids import uuid7_at
from tests.support import ITEM_FIELDS, Api

UNDO = """mutation($t: ID!, $dry: Boolean) {
  undoTrace(traceId: $t, author: "ops", reason: "bad ingest", dryRun: $dry) {
    traceId dryRun retractedItemIds restoredItemIds retractedEdgeIds conflicts
    events { type traceId causeId payload } } }"""
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
UPDATE = """mutation($id: ID!, $p: MemoryItemPatch!) {
  updateItem(id: $id, patch: $p, author: "u") { item { id } } }"""
EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
ALIAS = 'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") { events { id } } }'
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'
ITEM = f"query($id: ID!) {{ item(id: $id, includeRetracted: true) {{ {ITEM_FIELDS} }} }}"
REPLAY = """mutation($c: JSON!) { replayCommands(commands: $c) { applied } }"""
IMPORT = """mutation($s: JSON!) { importSlice(slice: $s) { created { memories } } }"""
LOG = "query($ids: [ID!]) { events(limit: 100, filter: {itemIds: $ids}) { type payload } }"


def row(n: int, **extra: Any) -> dict[str, Any]:
    return {"scope": "team:a/x", "kind": "note", "content": {"n": n}, "author": "agent",
            "sourceKind": "o", "authority": 0.5, **extra}  # fmt: skip


async def traced(api: Api, trace: str, query: str, **variables: Any) -> dict[str, Any]:
    body = await api.run(query, variables, **{"x-trace-id": trace})
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


async def test_an_ingest_is_taken_back_whole(api: Api) -> None:
    keep = await api.create(content={"keep": True})
    made = await traced(api, "ingest-1", CREATE, i=[row(1), row(2), row(3)])
    ids = [x["id"] for x in made["createItems"]["items"]]
    edge = (await traced(api, "ingest-1", EDGE, a=ids[0], b=ids[1]))["createEdge"]["edge"]
    before = await api.snapshot()
    dry = (await api.ok(UNDO, t="ingest-1", dry=True))["undoTrace"]
    assert dry["dryRun"] is True
    assert sorted(dry["retractedItemIds"]) == sorted(ids)
    assert dry["retractedEdgeIds"] == [edge["edgeId"]]
    assert (dry["conflicts"], dry["events"], dry["restoredItemIds"]) == ([], [], [])
    assert await api.snapshot() == before  # a dry run writes nothing
    done = (await api.ok(UNDO, t="ingest-1"))["undoTrace"]
    assert done["dryRun"] is False
    assert sorted(done["retractedItemIds"]) == sorted(ids)
    for item_id in ids:
        assert (await api.ok(ITEM, id=item_id))["item"]["retracted"] is True
    assert (await api.ok(ITEM, id=keep["id"]))["item"]["retracted"] is False
    edges = await api.ok("query($id: ID!) { edge(edgeId: $id) { edgeId } }", id=edge["edgeId"])
    assert edges["edge"] is None
    kinds = [e["type"] for e in done["events"]]
    assert kinds.count("memory.retracted") == 3
    assert kinds.count("edge.retracted") == 1
    assert {e["causeId"] for e in done["events"]} == {"ingest-1"}  # they name the trace
    assert {e["payload"]["cause_type"] for e in done["events"]} == {"trace.undo"}
    logged = (await api.ok(LOG, ids=ids))["events"]  # the log says so too
    retracted = [e for e in logged if e["type"] == "memory.retracted"]
    assert [e["payload"]["cause_type"] for e in retracted] == ["trace.undo"] * 3
    assert all(e["traceId"] not in (None, "ingest-1") for e in done["events"])
    # an undo of an undone trace is refused, and writes nothing
    after = await api.snapshot()
    assert await api.codes(UNDO, t="ingest-1") == ["CONFLICT"]
    assert await api.snapshot() == after


async def test_changes_go_back_to_what_they_were(api: Api) -> None:
    item = await api.create(content={"v": 1}, authority=0.4, meta={"env": "prod"})
    first = (await api.ok(ITEM, id=item["id"]))["item"]
    patch = {"content": {"v": 2}, "authority": 0.9, "meta": {"env": "dev", "x": 1}}
    await traced(api, "edit-1", UPDATE, id=item["id"], p=patch)
    await traced(api, "edit-1", UPDATE, id=item["id"], p={"kind": "fact"})
    changed = (await api.ok(ITEM, id=item["id"]))["item"]
    assert changed != first
    done = (await api.ok(UNDO, t="edit-1"))["undoTrace"]
    assert done["restoredItemIds"] == [item["id"]]
    assert done["retractedItemIds"] == []
    assert (await api.ok(ITEM, id=item["id"]))["item"] == first
    (event,) = done["events"]
    assert event["type"] == "memory.updated"
    assert event["payload"]["cause_type"] == "trace.undo"
    assert event["payload"]["item"]["content"] == {"v": 1}
    found = await api.ok('{ items(filter: {meta: {env: "prod"}}) { id } }')
    assert [x["id"] for x in found["items"]] == [item["id"]]  # the filters see it back


async def test_a_later_command_stops_the_undo_and_is_named(api: Api) -> None:
    made = await traced(api, "ingest-2", CREATE, i=[row(1), row(2)])
    a, b = (x["id"] for x in made["createItems"]["items"])
    await traced(api, "other-1", UPDATE, id=a, p={"authority": 0.7})
    child = (await traced(api, "other-2", CREATE, i=[row(3, parents=[b])]))["createItems"]
    keep = await api.create()
    edge = (await traced(api, "other-3", EDGE, a=keep["id"], b=b))["createEdge"]["edge"]
    before = await api.snapshot()
    report = (await api.ok(UNDO, t="ingest-2"))["undoTrace"]
    assert report["events"] == []
    updated, *on_b = sorted(report["conflicts"], key=lambda c: not c.startswith(a))
    assert updated.startswith(f"{a}: memory.updated ")
    assert updated.endswith("by other-1 came after")
    assert sorted(on_b) == sorted([
        f"{b}: child {child['items'][0]['id']} by other-2 came after",
        f"{b}: edge {edge['edgeId']} by another command came after",
    ])  # fmt: skip
    assert await api.snapshot() == before


async def test_every_way_in_has_a_trace_to_undo(api: Api) -> None:
    lines = "".join(json.dumps(row(n)) + "\n" for n in range(3))
    answer = await api.client.post("/items", content=lines,
                                   headers={"content-type": "application/x-ndjson"})  # fmt: skip
    assert answer.status_code == 200
    trace = answer.headers["x-trace-id"]  # minted: the caller sent none
    done = (await api.ok(UNDO, t=trace))["undoTrace"]
    assert len(done["retractedItemIds"]) == 3
    doc = {"id": uuid7_at(1_700_000_000_000), "scope": "team:a/x", "kind": "k",
           "content": {}, "author": "u", "source_kind": "o", "authority": 0.5,
           "created_at": 1_700_000_000_000}  # fmt: skip
    await traced(api, "replay-1", REPLAY, c=[{"type": "memory.create", "item": doc}])
    assert (await api.ok(UNDO, t="replay-1"))["undoTrace"]["retractedItemIds"] == [doc["id"]]
    other = {**doc, "id": uuid7_at(1_700_000_000_001), "created_at": 1_700_000_000_001}
    await traced(api, "import-1", IMPORT,
                 s={"memories": [other], "edges": [], "intents": [], "tasks": []})  # fmt: skip
    assert (await api.ok(UNDO, t="import-1"))["undoTrace"]["retractedItemIds"] == [other["id"]]


async def test_an_alias_marked_is_unmarked(api: Api) -> None:
    a, b = await api.create(), await api.create()
    await traced(api, "alias-1", ALIAS, a=a["id"], b=b["id"])
    group = "query($id: ID!) { aliasGroup(id: $id) { id } }"
    assert len((await api.ok(group, id=a["id"]))["aliasGroup"]) == 2
    done = (await api.ok(UNDO, t="alias-1"))["undoTrace"]
    assert done["retractedEdgeIds"]
    assert all(e["type"] == "edge.retracted" for e in done["events"])
    assert [x["id"] for x in (await api.ok(group, id=a["id"]))["aliasGroup"]] == [a["id"]]


async def test_bad_undos_are_refused_and_write_nothing(api: Api) -> None:
    item = await api.create()
    await traced(api, "gone-1", RETRACT, id=item["id"])
    before = await api.snapshot()
    assert await api.codes(UNDO, t="bad trace!") == ["BAD_USER_INPUT"]
    assert await api.codes(UNDO, t="x" * 129) == ["BAD_USER_INPUT"]
    assert await api.codes(UNDO, t="never-seen") == ["BAD_USER_INPUT"]
    assert await api.codes(UNDO, t="gone-1") == ["BAD_USER_INPUT"]  # a retraction
    empty = 'mutation { undoTrace(traceId: "gone-1", author: "") { traceId } }'
    assert await api.codes(empty) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_only_what_the_caller_could_write(api: Api) -> None:
    admin = api.with_grants("read:", "write:")
    await traced(admin, "team-b", CREATE, i=[row(1, scope="team:b/x")])
    reader = api.with_grants("read:team:b/", "write:team:a/")
    assert await reader.codes(UNDO, t="team-b") == ["FORBIDDEN"]
    stranger = api.with_grants("read:team:a/", "write:team:a/")
    assert await stranger.codes(UNDO, t="team-b") == ["FORBIDDEN"]
    assert (await admin.ok(UNDO, t="team-b"))["undoTrace"]["retractedItemIds"]


async def test_racing_undos_of_one_trace_undo_it_once(api: Api) -> None:
    await traced(api, "race-1", CREATE, i=[row(n) for n in range(5)])
    answers = await asyncio.gather(*(api.run(UNDO, {"t": "race-1"}) for _ in range(4)))
    reports = [a["data"]["undoTrace"] for a in answers if not a.get("errors")]
    codes = {a["errors"][0]["extensions"]["code"] for a in answers if a.get("errors")}
    wrote = [r for r in reports if r["events"]]
    assert len(wrote) == 1
    assert len(wrote[0]["retractedItemIds"]) == 5
    # the others lost: refused as undone already, or stopped by what the winner retracted
    assert codes <= {"CONFLICT"}
    assert all(r["conflicts"] for r in reports if not r["events"])
    log = await api.ok("{ events(limit: 1000) { type causeId } }")
    assert sum(e["causeId"] == "race-1" for e in log["events"]) == 5  # retracted once each


async def test_a_conflict_the_caller_cannot_read_stops_it_unnamed(api: Api) -> None:
    admin = api.with_grants("read:", "write:")
    made = await traced(admin, "mine-1", CREATE, i=[row(1)])
    mine = made["createItems"]["items"][0]["id"]
    hidden = await traced(admin, "theirs-1", CREATE, i=[row(2, scope="team:c/x", parents=[mine])])
    child = hidden["createItems"]["items"][0]["id"]
    owner = api.with_grants("read:team:a/", "write:team:a/")
    report = (await owner.ok(UNDO, t="mine-1"))["undoTrace"]
    assert report["events"] == []
    assert report["conflicts"] == [
        f"{mine}: a later change by another command, to something you cannot read"
    ]
    assert child not in report["conflicts"][0]
    assert "theirs-1" not in report["conflicts"][0]


async def test_a_child_made_after_the_check_stops_the_write(api: Api) -> None:
    """The undo's write checks each retracted item's live children against
    the count its plan read: a child another command made between the
    conflict check and the write leaves everything as it was."""
    made = await traced(api, "ingest-9", CREATE, i=[row(1)])
    parent = made["createItems"]["items"][0]["id"]
    await traced(api, "other-9", CREATE, i=[row(2, parents=[parent])])
    stored = await api.graph.read("item_get", {"ids": [parent], "include_retracted": False})
    version = stored[0]["item"]["version"]
    doomed = {"id": parent, "version": version, "event_id": str(uuid7_at(0)), "at": 0}
    params = {"updates": [], "edge_ids": [], "unlinked": [], "undo": None, "events": [],
              "count": 1, "marks": {"retracted_by": "ops"}}  # fmt: skip
    before = await api.snapshot()
    stale = await api.graph.write("bulk_apply", {**params, "doomed": [{**doomed, "children": 0}]})
    assert stale[0]["ok"] is False
    assert await api.snapshot() == before
    fresh = await api.graph.write("bulk_apply", {**params, "doomed": [{**doomed, "children": 1}]})
    assert fresh[0]["ok"] is True  # the same write with the count read now goes through
