"""cascadeRetract over long chains and many edges: everything goes, in MemEX's
order, and a retraction that finds the state moved on leaves it as it was."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from memexd.events.vocabulary import Origin, Why
from memexd.ids import new_id
from memexd.memory.retraction import Retraction
from tests.support import Api

CASCADE = """mutation($id: ID!) { cascadeRetract(id: $id, author: "u") {
  retracted events { type payload } } }"""
CREATE_ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
EDGE = """mutation($a: ID!, $b: ID!, $e: ID!) { createEdge(input: {from: $a, to: $b,
  kind: "SUPPORTS", author: "a", sourceKind: "o", authority: 0.5, edgeId: $e}) {
  edge { edgeId } } }"""
UPDATE = """mutation($id: ID!) { updateItem(id: $id, patch: {authority: 0.25}, author: "u") {
  item { id } } }"""
LOG = "query($n: Int) { events(limit: $n) { type payload } }"
LIVE = '{ items(filter: {scope: "scale"}, limit: 10000) { id } }'


async def chain(api: Api, length: int) -> list[str]:
    """Each item the single parent of the next, a thousand per request."""
    ids: list[str] = []
    for start in range(0, length, 1_000):
        drafts: list[dict[str, Any]] = []
        for n in range(start, min(start + 1_000, length)):
            item_id = new_id()
            parents = [ids[-1]] if ids else []
            drafts.append({"id": item_id, "scope": "scale", "kind": "k", "content": {"n": n},
                           "author": "w", "sourceKind": "o", "authority": 0.5,
                           "parents": parents})  # fmt: skip
            ids.append(item_id)
        await api.ok(CREATE_ITEMS, i=drafts)
    return ids


def subjects(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for e in events:
        doc = e["payload"].get("item") or e["payload"]["edge"]
        out.append((e["type"], doc.get("id") or doc["edge_id"]))
    return out


async def test_a_long_chain_goes_whole_children_first(api: Api) -> None:
    ids = await chain(api, 2_000)
    data = (await api.ok(CASCADE, id=ids[0]))["cascadeRetract"]
    assert data["retracted"] == ids[::-1]
    expected = [("memory.retracted", i) for i in ids[::-1]]
    assert subjects(data["events"]) == expected
    logged = [e for e in (await api.ok(LOG, n=10_000))["events"] if e["type"] != "memory.created"]
    assert subjects(logged) == expected
    assert (await api.ok(LIVE))["items"] == []


async def test_edges_go_with_the_first_of_their_items(api: Api) -> None:
    """Edge ids in random order, unlike their insertion order: the statement
    compares them sorted, the events keep insertion order."""
    rng = random.Random(3)
    ids = await chain(api, 40)
    outside = [(await api.create(scope="scale"))["id"] for _ in range(3)]
    edges: list[tuple[str, str, str]] = []
    for _ in range(30):
        a, b = rng.choice(ids), rng.choice(ids + outside)
        if rng.random() < 0.5:
            a, b = b, a
        edge_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        await api.ok(EDGE, a=a, b=b, e=edge_id)
        edges.append((edge_id, a, b))
    data = (await api.ok(CASCADE, id=ids[0]))["cascadeRetract"]
    expected: list[tuple[str, str]] = []
    reported: set[str] = set()
    for item in ids[::-1]:
        expected.append(("memory.retracted", item))
        for edge_id, a, b in edges:  # insertion order
            if item in (a, b) and edge_id not in reported:
                reported.add(edge_id)
                expected.append(("edge.retracted", edge_id))
    assert subjects(data["events"]) == expected
    assert len(reported) == len(edges)
    live = {i["id"] for i in (await api.ok(LIVE))["items"]}
    assert live == set(outside)
    assert (await api.ok("{ edges(filter: {}) { edgeId } }"))["edges"] == []


async def test_a_stale_retraction_leaves_everything_as_it_was(api: Api) -> None:
    ids = await chain(api, 50)
    retraction = Retraction(api.graph)
    plan = await retraction.plan(ids)
    await api.ok(UPDATE, id=ids[30])
    before = await api.snapshot()
    why = Why("u", None)
    assert await retraction.write(ids[::-1], plan, Origin(), why, closed=False) is None
    assert await api.snapshot() == before
    # a cascade that fails fences its items, and changes nothing else
    assert await retraction.write(ids[::-1], plan, Origin(), why, closed=True) is None
    nodes = await api.graph.read("admin_snapshot_nodes")
    fenced = {n["props"]["id"] for n in nodes if n["props"].pop("fence_until", None) is not None}
    assert fenced == set(ids)
    unfenced = sorted(json.dumps([sorted(n["labels"]), n["props"]], sort_keys=True) for n in nodes)
    assert unfenced == before[0]
    # read again, it goes through, and the fences with it
    events = await retraction.write(
        ids[::-1], await retraction.plan(ids), Origin(), why, closed=True
    )
    assert events is not None
    assert len(events) == len(ids)
    nodes = await api.graph.read("admin_snapshot_nodes")
    items = [n["props"] for n in nodes if "Item" in n["labels"]]
    assert all(p["retracted"] and "fence_until" not in p for p in items)
