"""The event log: commit order, cursors, filters, trace ids."""

from __future__ import annotations

from typing import Any

from memexd.graph.migrations import migrate
from memexd.memory.validation import check_uuid
from tests.support import CREATE_ITEM, Api

EVENTS = """
query($f: EventFilter, $after: ID, $limit: Int) {
  events(filter: $f, after: $after, limit: $limit) { id namespace type ts traceId causeId payload }
}
"""


async def test_log_order_cursor_and_limit(api: Api) -> None:
    a = await api.create(scope="project:x/a")
    b = await api.create(scope="user:y", parents=[a["id"]])
    await api.ok(
        'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }', id=a["id"]
    )
    log = (await api.ok(EVENTS))["events"]
    assert [(e["namespace"], e["type"]) for e in log] == [
        ("memory", "memory.created"), ("memory", "memory.created"), ("memory", "memory.retracted")
    ]  # fmt: skip
    assert log[1]["payload"]["item"]["parents"] == [a["id"]]
    after_first = (await api.ok(EVENTS, after=log[0]["id"]))["events"]
    assert [e["id"] for e in after_first] == [e["id"] for e in log[1:]]
    assert [e["id"] for e in (await api.ok(EVENTS, limit=1))["events"]] == [log[0]["id"]]
    assert (await api.ok(EVENTS, after=log[-1]["id"]))["events"] == []
    scoped = (await api.ok(EVENTS, f={"scopePrefix": "project:"}))["events"]
    assert [e["type"] for e in scoped] == ["memory.created", "memory.retracted"]
    typed = (await api.ok(EVENTS, f={"types": ["memory.retracted"]}))["events"]
    assert [e["id"] for e in typed] == [log[2]["id"]]
    assert (await api.ok(EVENTS, f={"namespaces": ["edge"]}))["events"] == []
    assert b["id"] in {e["payload"].get("item", {}).get("id") for e in log}


async def test_returned_events_are_the_stored_ones(api: Api) -> None:
    data = await api.ok(
        CREATE_ITEM,
        input={"scope": "s", "kind": "k", "content": {}, "author": "a", "sourceKind": "o",
               "authority": 0.1},
    )  # fmt: skip
    returned = data["createItem"]["events"]
    stored = (await api.ok(EVENTS))["events"]
    assert [(e["id"], e["type"], e["payload"]) for e in stored] == [
        (e["id"], e["type"], e["payload"]) for e in returned
    ]


async def test_trace_id_from_headers(api: Api) -> None:
    item = {"scope": "s", "kind": "k", "content": {}, "author": "a", "sourceKind": "o",
            "authority": 0.1}  # fmt: skip
    await api.run(CREATE_ITEM, {"input": item}, **{"x-trace-id": "trace-123"})
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    await api.run(CREATE_ITEM, {"input": item}, traceparent=parent)
    log = (await api.ok(EVENTS))["events"]
    assert [e["traceId"] for e in log] == ["trace-123", "0af7651916cd43dd8448eb211c80319c"]


async def test_a_request_without_a_usable_trace_id_gets_one(api: Api) -> None:
    item = {"scope": "s", "kind": "k", "content": {}, "author": "a", "sourceKind": "o",
            "authority": 0.1}  # fmt: skip
    body = {"query": CREATE_ITEM, "variables": {"input": item}}
    minted = []
    for headers in ({}, {"x-trace-id": "bad trace id!"}, {"x-trace-id": "x" * 129}):
        answer = await api.client.post("/graphql", json=body, headers=headers)
        assert answer.status_code == 200
        assert "errors" not in answer.json()
        minted.append(answer.headers["x-trace-id"])
    assert len(set(minted)) == 3
    assert all(check_uuid(t) == t for t in minted)
    log = (await api.ok(EVENTS))["events"]
    assert [e["traceId"] for e in log] == minted
    # the caller's own comes back as sent, reads too
    sent = await api.client.post("/graphql", json={"query": "{ stats { items { total } } }"},
                                 headers={"x-trace-id": "mine-1"})  # fmt: skip
    assert sent.headers["x-trace-id"] == "mine-1"
    read = await api.client.post("/graphql", json={"query": "{ stats { items { total } } }"})
    assert check_uuid(read.headers["x-trace-id"])


async def test_cause_id_from_header_on_every_event_of_a_command(api: Api) -> None:
    """An agent ties a change to what caused it: ``x-cause-id`` lands on every
    event the command logs, those a cascade or an item's edges add included."""
    a = await api.create()
    b = await api.create(parents=[a["id"]])
    await api.ok(
        'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") { events { id } } }',
        a=a["id"], b=b["id"],
    )  # fmt: skip
    cascade = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { events { causeId } } }'
    body = await api.run(cascade, {"id": a["id"]}, **{"x-cause-id": "evt-42", "x-trace-id": "t1"})
    returned = body["data"]["cascadeRetract"]["events"]
    assert len(returned) == 4  # b, the two alias edges (they touch b), then a
    assert {e["causeId"] for e in returned} == {"evt-42"}
    log = (await api.ok(EVENTS))["events"]
    assert [(e["causeId"], e["traceId"]) for e in log[-4:]] == [("evt-42", "t1")] * 4
    item = {"scope": "s", "kind": "k", "content": {}, "author": "a", "sourceKind": "o",
            "authority": 0.1}  # fmt: skip
    await api.run(CREATE_ITEM, {"input": item}, **{"x-cause-id": "not a token!"})
    assert (await api.ok(EVENTS))["events"][-1]["causeId"] is None


async def test_bad_cursor_and_limits(api: Api) -> None:
    assert await api.codes(EVENTS, after="nope") == ["BAD_USER_INPUT"]
    assert await api.codes(EVENTS, after="01900000-0000-7000-8000-000000000000") == [
        "BAD_USER_INPUT"
    ]
    assert await api.codes(EVENTS, limit=-5) == ["BAD_USER_INPUT"]


EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
RETRACT_EDGE = 'mutation($e: ID!) { retractEdge(edgeId: $e, author: "u") { events { id } } }'
INTENT = """mutation($i: IntentInput!) { createIntent(input: $i) { intent { id } } }"""


async def _graph(api: Api) -> dict[str, str]:
    """Items x (scope p/a), y (p/b), z (p/a); edges xy and yz (retracted);
    an intent rooted at x."""
    made = {name: (await api.create(scope=scope))["id"]
            for name, scope in (("x", "p/a"), ("y", "p/b"), ("z", "p/a"))}  # fmt: skip
    for name, a, b in (("xy", "x", "y"), ("yz", "y", "z")):
        made[name] = (await api.ok(EDGE, a=made[a], b=made[b]))["createEdge"]["edge"]["edgeId"]
    await api.ok(RETRACT_EDGE, e=made["yz"])
    plan = {
        "label": "l",
        "priority": 0.5,
        "owner": "o",
        "scope": "p/a",
        "rootMemoryIds": [made["x"]],
    }
    await api.ok(INTENT, i=plan)
    return made


def _subjects(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(type, id of the item or edge) of each event."""
    return [
        (e["type"], e["payload"]["item"]["id"] if "item" in e["payload"]
         else e["payload"]["edge"]["edge_id"])
        for e in events
    ]  # fmt: skip


async def test_item_ids_filter_events_about_items_and_the_edges_touching_them(api: Api) -> None:
    g = await _graph(api)
    about_x = (await api.ok(EVENTS, f={"itemIds": [g["x"]]}))["events"]
    assert _subjects(about_x) == [("memory.created", g["x"]), ("edge.created", g["xy"])]
    about_z = (await api.ok(EVENTS, f={"itemIds": [g["z"].upper()]}))["events"]  # any case
    assert _subjects(about_z) == [
        ("memory.created", g["z"]), ("edge.created", g["yz"]), ("edge.retracted", g["yz"])
    ]  # fmt: skip
    both = await api.ok(EVENTS, f={"itemIds": [g["x"], g["z"]], "types": ["edge.created"]})
    assert _subjects(both["events"]) == [("edge.created", g["xy"]), ("edge.created", g["yz"])]
    assert (await api.ok(EVENTS, f={"itemIds": []}))["events"] == []
    # intent and task events are about no item
    assert (await api.ok(EVENTS, f={"itemIds": [g["x"]], "namespaces": ["intent"]}))["events"] == []


async def test_scope_prefix_matches_either_end_of_an_edge(api: Api) -> None:
    g = await _graph(api)
    in_b = (await api.ok(EVENTS, f={"scopePrefix": "p/b"}))["events"]
    assert _subjects(in_b) == [
        ("memory.created", g["y"]), ("edge.created", g["xy"]), ("edge.created", g["yz"]),
        ("edge.retracted", g["yz"]),
    ]  # fmt: skip


async def test_bad_item_ids_change_nothing(api: Api) -> None:
    for bad in (["nope"], [7], ["01900000-0000-7000-8000-000000000000"] * 1001):
        assert await api.codes(EVENTS, f={"itemIds": bad}) == ["BAD_USER_INPUT"]


async def test_migration_names_the_items_of_existing_events(api: Api) -> None:
    """0007 fills ``item_ids`` for events logged before it; running it again
    changes nothing."""
    g = await _graph(api)
    flt = {"itemIds": [g["z"]]}
    before = (await api.ok(EVENTS, f=flt))["events"]
    store = api.graph.store
    await store.write("MATCH (e:Event) REMOVE e.item_ids", {})
    await store.write("MATCH (m:Migration {version: 7}) DELETE m", {})
    # memory.created events of unchanged items are their items (docs/events.md)
    created = [e for e in before if e["type"] == "memory.created"]
    assert created
    assert len(created) < len(before)
    assert (await api.ok(EVENTS, f=flt))["events"] == created
    assert [m.version for m in await migrate(api.graph)] == [7]
    assert (await api.ok(EVENTS, f=flt))["events"] == before
    await store.write("MATCH (m:Migration {version: 7}) DELETE m", {})
    await migrate(api.graph)
    assert (await api.ok(EVENTS, f=flt))["events"] == before


async def test_the_log_keeps_who_and_why(api: Api) -> None:
    """The author and reason of a command come back from the stored log."""
    item = await api.create(author="agent:maker")
    await api.ok(
        'mutation($id: ID!) { retractItem(id: $id, author: "user:judge", reason: "wrong") '
        "{ events { id } } }",
        id=item["id"],
    )
    query = "{ events { type author reason } }"
    stored = [(e["type"], e["author"], e["reason"]) for e in (await api.ok(query))["events"]]
    assert stored == [
        ("memory.created", "agent:maker", None),
        ("memory.retracted", "user:judge", "wrong"),
    ]
