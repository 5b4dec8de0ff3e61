"""Compact event storage: an item's memory.created event is the item node
until the item changes, and reads back the same before and after
(docs/events.md, "Storage")."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from memexd import cli as memexd
from memexd.events.retention import Folded, compact_log
from memexd.events.vocabulary import Origin, Why
from memexd.graph.migrations import migrate
from memexd.ids import creation_event_id, uuid7_at
from memexd.memory.retraction import Retraction
from memexd.types import GraphStore
from tests.support import Api

EVENT = "id namespace type ts traceId causeId author reason payload"
LOG = f"""
query($f: EventFilter, $after: ID, $limit: Int) {{
  events(filter: $f, after: $after, limit: $limit) {{ {EVENT} }}
}}
"""
CREATE = f"""
mutation($input: MemoryItemInput!) {{
  createItem(input: $input) {{ item {{ id }} events {{ {EVENT} }} }}
}}
"""
UPDATE = """
mutation($id: ID!, $patch: MemoryItemPatch!) {
  updateItem(id: $id, patch: $patch, author: "user:u", reason: "r") { events { id } }
}
"""
FIELDS = ["id", "namespace", "type", "ts", "traceId", "causeId", "author", "reason", "payload"]
EXTRA = [
    {},
    {"parents": [], "meta": {"a": {"b": [1, "x"]}, "f": 0.1 + 0.2}, "conviction": 0.0,
     "importance": 1.0},
    {"parents": ["0190a000-0000-7000-8000-0000000000aa"],
     "content": {"q": "\"quoted\" \\ \u00e9 \n", "big": 2**62, "x": 1e-7}},
]  # fmt: skip


async def stored_creations(store: GraphStore) -> int:
    """memory.created events stored as nodes of their own."""
    rows = await store.read("MATCH (e:Event {type: 'memory.created'}) RETURN count(e) AS n", {})
    return int(rows[0]["n"])


def item_input(**fields: Any) -> dict[str, Any]:
    return {"scope": "proj:a", "kind": "k", "content": {"n": 1}, "author": "agent:a",
            "sourceKind": "o", "authority": 0.1 + 0.2, **fields}  # fmt: skip


@pytest.mark.parametrize("fields", EXTRA)
async def test_the_creation_event_reads_back_as_returned_before_and_after_a_change(
    api: Api, store: GraphStore, fields: dict[str, Any]
) -> None:
    headers = {"x-trace-id": "trace-1", "x-cause-id": "cause-1"}
    body = await api.run(CREATE, {"input": item_input(**fields)}, **headers)
    returned = body["data"]["createItem"]["events"]
    item = body["data"]["createItem"]["item"]
    before = (await api.ok(LOG))["events"]
    assert [{k: e[k] for k in FIELDS} for e in before] == [
        {k: e[k] for k in FIELDS} for e in returned
    ]
    assert before[0]["id"] == creation_event_id(item["id"])
    assert (before[0]["traceId"], before[0]["causeId"]) == ("trace-1", "cause-1")
    assert (before[0]["author"], before[0]["reason"]) == ("agent:a", None)
    assert await stored_creations(store) == 0

    await api.ok(UPDATE, id=item["id"], patch={"authority": 0.9, "scope": "proj:b"})
    after = (await api.ok(LOG))["events"]
    assert after[0] == before[0]  # the record as created, not as it is now
    assert [e["type"] for e in after] == ["memory.created", "memory.updated"]
    assert after[1]["payload"]["item"]["scope"] == "proj:b"
    assert await stored_creations(store) == 1


async def test_a_given_id_keeps_the_command_s_time(api: Api) -> None:
    """An id given by the caller may carry any time: the event's ts is when
    the command ran, not the id's time."""
    old = uuid7_at(1_000_000_000_000)
    created = (await api.ok(CREATE, input=item_input(id=old)))["createItem"]
    event = (await api.ok(LOG))["events"][0]
    assert event["ts"] == created["events"][0]["ts"]
    assert event["ts"] > "2025-"  # ISO times sort as text; the id says 2001
    assert event["payload"]["item"]["created_at"] == 1_000_000_000_000


async def test_cursors_and_filters_see_creation_events_either_way(
    api: Api, store: GraphStore
) -> None:
    a = await api.create(scope="proj:a")
    b = await api.create(scope="proj:b")
    await api.ok(UPDATE, id=a["id"], patch={"importance": 0.5})  # a's event becomes a node
    c = await api.create(scope="proj:a")
    log = (await api.ok(LOG))["events"]
    ids = [e["id"] for e in log]
    assert ids[:2] == [creation_event_id(a["id"]), creation_event_id(b["id"])]
    assert [e["type"] for e in log] == ["memory.created"] * 2 + ["memory.updated"] + [
        "memory.created"
    ]
    for i, event_id in enumerate(ids):  # a stored and a compact event are cursors alike
        page = (await api.ok(LOG, after=event_id, limit=2))["events"]
        assert [e["id"] for e in page] == ids[i + 1 : i + 3]
    scoped = await api.ok(LOG, f={"scopePrefix": "proj:a", "types": ["memory.created"]})
    assert [e["id"] for e in scoped["events"]] == [ids[0], ids[3]]
    about_c = (await api.ok(LOG, f={"itemIds": [c["id"]]}))["events"]
    assert [e["id"] for e in about_c] == [creation_event_id(c["id"])]
    assert (await api.ok(LOG, f={"namespaces": ["edge"]}))["events"] == []
    reader = api.with_grants("read:proj:b")
    assert [e["id"] for e in (await reader.ok(LOG))["events"]] == [ids[1]]
    assert await reader.codes(LOG, after=ids[0]) == ["BAD_USER_INPUT"]  # not its to see
    assert await stored_creations(store) == 1


async def test_every_change_keeps_the_record_as_created(api: Api, store: GraphStore) -> None:
    """The writes that change an item (update, a lost contradiction, a bulk
    transform) each store its creation event first."""
    winner, loser, adjusted = [await api.create(scope=f"proj:{n}") for n in "wla"]
    first = (await api.ok(LOG))["events"]
    await api.ok('mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, author: "u") '
                 "{ edge { edgeId } } }", a=winner["id"], b=loser["id"])  # fmt: skip
    await api.ok('mutation($w: ID!, $l: ID!) { resolveContradiction(winnerId: $w, loserId: $l, '
                 'author: "u") { events { id } } }', w=winner["id"], l=loser["id"])  # fmt: skip
    await api.ok('mutation($f: MemoryFilter) { bulkAdjustScores(filter: $f, '
                 'delta: {importance: 0.25}, author: "u") { events { id } } }',
                 f={"scope": "proj:a"})  # fmt: skip
    log = (await api.ok(LOG))["events"]
    assert log[:3] == first
    assert await stored_creations(store) == 2  # the loser's and the adjusted item's
    items = {e["payload"]["item"]["id"]: e for e in log if e["type"] == "memory.updated"}
    assert set(items) == {loser["id"], adjusted["id"]}


async def test_a_retraction_event_is_kept_on_its_item(api: Api, store: GraphStore) -> None:
    """A retracted item is final: it keeps its memory.retracted event, which
    reads back the same as the command returned."""
    item = await api.create(scope="proj:a", meta={"k": [1, 2.5]})
    done = await api.ok(
        f'mutation($id: ID!) {{ retractItem(id: $id, author: "u", reason: "r") '
        f"{{ events {{ {EVENT} }} }} }}",
        id=item["id"],
    )
    log = (await api.ok(LOG))["events"]
    assert log[1:] == done["retractItem"]["events"]
    assert log[1]["payload"]["item"]["meta"] == {"k": [1, 2.5]}
    rows = await store.read("MATCH (e:Event {type: 'memory.retracted'}) RETURN e.id AS id", {})
    assert rows == []  # the item keeps the event: its id, position, time, author, reason
    kept = await store.read("MATCH (n:Item {id: $id}) RETURN n.retracted_event AS event, "
                            "n.retracted_by AS author, n.retracted_reason AS reason",
                            {"id": item["id"]})  # fmt: skip
    assert kept == [{"event": log[1]["id"], "author": "u", "reason": "r"}]


async def test_a_retraction_that_lost_a_race_leaves_no_trace(api: Api, store: GraphStore) -> None:
    """Written at a stale version, a retraction changes nothing: the item is
    back as it was, with no event kept, and the log's counter did not move."""
    item = await api.create()
    retraction = Retraction(api.graph)
    plan = await retraction.plan([item["id"]])
    await api.ok(UPDATE, id=item["id"], patch={"importance": 0.5})  # a newer version
    head = await store.read("MATCH (c:Counter {name: 'event'}) RETURN c.value AS v", {})
    assert await retraction.write([item["id"]], plan, Origin(), Why("u"), closed=True) is None
    props = await store.read("MATCH (n:Item {id: $id}) RETURN properties(n) AS p",
                             {"id": item["id"]})  # fmt: skip
    assert not [k for k in props[0]["p"] if k.startswith("retracted_")]
    assert props[0]["p"]["retracted"] is False
    assert await store.read("MATCH (c:Counter {name: 'event'}) RETURN c.value AS v", {}) == head


async def test_a_cascade_reads_its_payloads_only_when_asked(api: Api) -> None:
    """A command's memory.retracted payloads are read from the items after the
    write, through fragments too, and equal the log's; without ``payload``
    selected, nothing is read for them."""
    root = await api.create(content={"n": "root"})
    child = await api.create(parents=[root["id"]], content={"n": "child"})
    cascade = """mutation($id: ID!) { cascadeRetract(id: $id, author: "u", reason: "r") {
      retracted events { ...told } } } fragment told on Event { id type payload }"""
    done = (await api.ok(cascade, id=root["id"]))["cascadeRetract"]
    assert done["retracted"] == [child["id"], root["id"]]
    log = (await api.ok(LOG, f={"types": ["memory.retracted"]}))["events"]
    assert done["events"] == [{k: e[k] for k in ("id", "type", "payload")} for e in log]
    assert [e["payload"]["item"]["content"] for e in done["events"]] == [
        {"n": "child"},
        {"n": "root"},
    ]
    other, third = await api.create(), await api.create()
    bare = """mutation($id: ID!) { cascadeRetract(id: $id, author: "u") {
      retracted events { id type } } }"""
    api.store.reads = 0
    assert (await api.ok(bare, id=other["id"]))["cascadeRetract"]["retracted"] == [other["id"]]
    without = api.store.reads
    api.store.reads = 0
    await api.ok(cascade, id=third["id"])
    assert api.store.reads == without + 1  # the one read of the payloads


# ------------------------------------------------------------------ retention


def now_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_retention_folds_histories_older_than_the_cut(api: Api, store: GraphStore) -> None:
    a = await api.create(scope="proj:a")
    await api.ok(UPDATE, id=a["id"], patch={"importance": 0.5})
    await api.ok(UPDATE, id=a["id"], patch={"content": {"v": 2}})
    gone = await api.create(scope="proj:c")
    await api.ok(UPDATE, id=gone["id"], patch={"conviction": 0.5})
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=gone["id"])  # fmt: skip
    await asyncio.sleep(0.01)
    cut = now_ms()
    await asyncio.sleep(0.01)
    b = await api.create(scope="proj:b")
    await api.ok(UPDATE, id=b["id"], patch={"importance": 0.5})
    before = (await api.ok(LOG))["events"]
    current = {i["id"]: i for i in (await api.ok(
        "query($ids: [ID!]) { items(filter: {ids: $ids}, includeRetracted: true) "
        "{ id content importance conviction } }", ids=[a["id"], gone["id"]]))["items"]}  # fmt: skip

    assert await compact_log(api.graph, cut) == Folded(seen=3, folded=2)
    after = (await api.ok(LOG))["events"]
    kept = [e for e in before if e["type"] != "memory.updated" or e["payload"]["item"]["id"]
            == b["id"]]  # fmt: skip
    assert [e["id"] for e in after] == [e["id"] for e in kept]
    folded = {e["payload"]["item"]["id"]: e for e in after if e["type"] == "memory.created"}
    assert folded[a["id"]]["payload"]["item"]["content"] == current[a["id"]]["content"]
    assert current[a["id"]]["content"]["v"] == 2  # as it is now, not as created
    assert folded[a["id"]]["ts"] == before[0]["ts"]  # its time and id stay
    assert folded[gone["id"]]["payload"]["item"]["conviction"] == 0.5
    assert [e["type"] for e in after if e["payload"]["item"]["id"] == gone["id"]] == [
        "memory.created", "memory.retracted"
    ]  # fmt: skip
    assert await stored_creations(store) == 1  # b's, newer than the cut
    assert await compact_log(api.graph, cut) == Folded(seen=1, folded=0)  # idempotent

    await api.ok(UPDATE, id=a["id"], patch={"importance": 0.75})  # a changes again
    again = (await api.ok(LOG))["events"]
    assert again[0] == after[0]
    assert again[-1]["payload"]["item"]["importance"] == 0.75
    assert await compact_log(api.graph, now_ms() + 1_000) == Folded(seen=2, folded=2)


async def test_retention_leaves_events_logged_before_ids_were_derived(
    api: Api, store: GraphStore
) -> None:
    """An item whose creation event has an id of its own (logged before
    migration 0009) keeps its history: folding it would change that id."""
    a = await api.create()
    await api.ok(UPDATE, id=a["id"], patch={"importance": 0.5})
    await store.write("MATCH (e:Event {type: 'memory.created'}) SET e.id = $id",
                      {"id": "0190a000-0000-7000-8000-0000000000aa"})  # fmt: skip
    before = await api.snapshot()
    assert await compact_log(api.graph, now_ms() + 1_000) == Folded(seen=1, folded=0)
    assert await api.snapshot() == before


def test_compact_log_refuses_a_bad_age() -> None:
    for bad in ("-1", "nan", "1e9"):
        assert memexd.main(["compact-log", "--older-than-days", bad]) == 1


async def test_an_upgraded_graph_reads_its_stored_creation_events_once(
    api: Api, store: GraphStore
) -> None:
    """Before migration 0009 every creation event was a node with an id of
    its own: the migration marks those items, so each event reads once."""
    item = await api.create(scope="proj:a")
    (virtual,) = (await api.ok(LOG))["events"]
    stored = {"id": "0190a000-0000-7000-8000-0000000000cc", "namespace": "memory",
              "type": "memory.created", "ts": 5, "payload": json.dumps(virtual["payload"]),
              "author": "agent:x", "scope": "proj:a", "scopes": ["proj:a"],
              "subject": item["id"], "item_ids": [item["id"]]}  # fmt: skip
    await store.write("MATCH (n:Item {id: $id}) CREATE (e:Event) SET e = $e, e.seq = n.seq",
                      {"id": item["id"], "e": stored})  # fmt: skip
    await store.write("MATCH (m:Migration {version: 9}) DELETE m", {})
    assert [m.version for m in await migrate(api.graph)] == [9]
    (event,) = (await api.ok(LOG))["events"]
    assert (event["id"], event["author"]) == (stored["id"], "agent:x")
    assert event["payload"] == virtual["payload"]
    assert [m.version for m in await migrate(api.graph)] == []


async def test_an_upgraded_graph_keeps_its_retraction_events_on_the_items(
    api: Api, store: GraphStore
) -> None:
    """Before migration 0010 a memory.retracted event was a node of its own:
    the migration moves it onto its item, and the log reads it the same."""
    item = await api.create(scope="proj:a")
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u", reason: "r") '
                 "{ events { id } } }", id=item["id"])  # fmt: skip
    before = (await api.ok(LOG))["events"]
    await store.write(
        "MATCH (n:Item {id: $id}) CREATE (e:Event) SET e = {id: n.retracted_event, "
        "namespace: 'memory', type: 'memory.retracted', seq: n.retracted_seq, "
        "ts: n.retracted_at, author: n.retracted_by, reason: n.retracted_reason, "
        "trace_id: n.retracted_trace, cause_id: n.retracted_cause, "
        "scope: n.scope, scopes: [n.scope], subject: n.id, item_ids: [n.id]}",
        {"id": item["id"]},
    )
    for mark in ("event", "seq", "at", "by", "reason", "trace", "cause"):
        await store.write(f"MATCH (n:Item {{id: $id}}) SET n.retracted_{mark} = null",
                          {"id": item["id"]})  # fmt: skip
    await store.write("MATCH (m:Migration {version: 10}) DELETE m", {})
    assert [m.version for m in await migrate(api.graph)] == [10]
    assert (await api.ok(LOG))["events"] == before
    nodes = await store.read("MATCH (e:Event {type: 'memory.retracted'}) RETURN e.id AS id", {})
    assert nodes == []
