"""Replay, export and import over GraphQL: the contract's fields, wired to
the services (whose rules tests/test_replay.py and tests/test_transplant.py
cover), with their bad-input answers and grants."""

from __future__ import annotations

from typing import Any

from memexd.graph.migrations import migrate
from memexd.ids import uuid7_at
from tests.support import Api

REPLAY = """mutation($c: JSON!) { replayCommands(commands: $c) {
  applied skipped { index code message } } }"""
ENVELOPES = """mutation($e: JSON!) { replayEnvelopes(envelopes: $e) {
  applied skipped { index code message } } }"""
EXPORT = "query($i: ExportInput!) { exportSlice(input: $i) }"
IMPORT = """mutation($s: JSON!, $o: ImportOptions) { importSlice(slice: $s, options: $o) {
  created { memories edges intents tasks } skipped { memories edges }
  conflicts { memories edges } } }"""


def item(ms: int, **extra: Any) -> dict[str, Any]:
    doc = {"id": uuid7_at(ms), "scope": "tenant:a/x", "kind": "k", "content": {"n": ms},
           "author": "u", "source_kind": "o", "authority": 0.5, "created_at": ms}  # fmt: skip
    return {**doc, **extra}


async def test_replay_export_import_round_trip(make_api: Any) -> None:
    api: Api = await make_api()
    a, b = item(1_700_000_000_000), item(1_700_000_000_001)
    b["parents"] = [a["id"]]
    edge = {"edge_id": uuid7_at(1_700_000_000_002), "from": a["id"], "to": b["id"],
            "kind": "SUPPORTS", "author": "u", "source_kind": "o", "authority": 1.0,
            "active": True}  # fmt: skip
    log = [
        {"type": "memory.create", "item": a},
        {"type": "memory.create", "item": b},
        {"type": "edge.create", "edge": edge},
        {"type": "memory.create", "item": a},  # 3: duplicate
        {"type": "memory.create", "item": {**item(5), "id": "m1"}},  # 4: not a UUIDv7
        "nonsense",  # 5
    ]
    result = (await api.ok(REPLAY, c=log))["replayCommands"]
    assert result["applied"] == 3
    assert [(s["index"], s["code"]) for s in result["skipped"]] == [
        (3, "DUPLICATE_MEMORY"), (4, "INVALID_TIMESTAMP"), (5, "BAD_USER_INPUT")
    ]  # fmt: skip
    exported = await api.ok(EXPORT, i={"memoryIds": [b["id"]], "includeParents": True})
    slice_ = exported["exportSlice"]
    assert slice_ == {"memories": [a, b], "edges": [edge], "intents": [], "tasks": []}

    other: Api = await make_api()  # the same test graph, emptied: a second service
    await other.graph.write("admin_wipe")
    await migrate(other.graph)
    report = (await other.ok(IMPORT, s=slice_))["importSlice"]
    assert report["created"] == {"memories": [a["id"], b["id"]], "edges": [edge["edge_id"]],
                                 "intents": [], "tasks": []}  # fmt: skip
    again = (await other.ok(IMPORT, s=slice_))["importSlice"]
    assert again["skipped"] == {"memories": [a["id"], b["id"]], "edges": [edge["edge_id"]]}
    assert (await other.ok(EXPORT, i={"memoryIds": [a["id"], b["id"]]}))["exportSlice"] == slice_


async def test_envelopes_in_time_order(api: Api) -> None:
    a = item(1_700_000_000_000)
    envelopes = [
        {"ts": "2024-01-01T00:00:02.000Z", "payload": {
            "type": "memory.update", "item_id": a["id"], "partial": {"content": {"v": 2}},
            "author": "u"}},
        {"ts": "2024-01-01T00:00:01Z", "payload": {"type": "memory.create", "item": a}},
        {"ts": "2024-02-31T00:00:00Z", "payload": {"type": "memory.create", "item": a}},
    ]  # fmt: skip
    result = (await api.ok(ENVELOPES, e=envelopes))["replayEnvelopes"]
    assert result["applied"] == 2
    assert [(s["index"], s["code"]) for s in result["skipped"]] == [(2, "INVALID_TIMESTAMP")]
    got = await api.ok("query($id: ID!) { item(id: $id) { content } }", id=a["id"])
    assert got["item"]["content"] == {"n": 1_700_000_000_000, "v": 2}


async def test_bad_input_changes_nothing(make_api: Any) -> None:
    api: Api = await make_api(max_batch=3)
    before = await api.snapshot()
    assert await api.codes(REPLAY, c={"type": "memory.create"}) == ["BAD_USER_INPUT"]
    assert await api.codes(REPLAY, c=[{}] * 4) == ["BAD_USER_INPUT"]  # over max_batch
    assert await api.codes(ENVELOPES, e="x") == ["BAD_USER_INPUT"]
    assert await api.codes(IMPORT, s=[1]) == ["BAD_USER_INPUT"]
    bad = {"memories": [item(1), {**item(2), "authority": 3}]}
    assert await api.codes(IMPORT, s=bad) == ["BAD_USER_INPUT"]
    assert await api.codes(EXPORT, i={"memoryIds": ["nope"]}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_grants_apply(api: Api) -> None:
    a = item(1_700_000_000_000)
    reader = api.with_grants("read:tenant:a/", name="reader")
    result = (await reader.ok(REPLAY, c=[{"type": "memory.create", "item": a}]))["replayCommands"]
    assert [(s["index"], s["code"]) for s in result["skipped"]] == [(0, "FORBIDDEN")]
    writer = api.with_grants("write:tenant:a/", name="writer")  # keys exist now: no open access
    await writer.ok(REPLAY, c=[{"type": "memory.create", "item": a}])
    outsider = api.with_grants("read:tenant:b/", name="outsider")
    got = (await outsider.ok(EXPORT, i={"memoryIds": [a["id"]]}))["exportSlice"]
    assert got == {"memories": [], "edges": [], "intents": [], "tasks": []}
    assert await reader.codes(IMPORT, s={"memories": [item(7)]}) == ["FORBIDDEN"]
