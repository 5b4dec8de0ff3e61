"""Provenance, dependents, staleness, contradictions, aliases, cascade retraction."""

from __future__ import annotations

import itertools
from typing import Any

from tests.conftest import ApiFactory
from tests.support import Api

TREE = """query($id: ID!, $d: Int) { supportTree(id: $id, maxDepth: $d) {
  root nodes { item { id } depth } links { child parent } truncated } }"""
SET = "query($id: ID!) { supportSet(id: $id) { id } }"
DEPS = "query($id: ID!, $t: Boolean) { dependents(id: $id, transitive: $t) { id } }"
STALE = "{ staleItems { item { id } missingParents } }"
CASCADE = """mutation($id: ID!) { cascadeRetract(id: $id, author: "user:x", reason: "bad") {
  retracted events { type payload } } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'
MARK_C = """mutation($a: ID!, $b: ID!) {
  markContradiction(a: $a, b: $b, author: "agent:c", meta: {why: "x"}) {
    edge { edgeId from to kind active sourceKind authority } events { type } } }"""
GROUP = "query($id: ID!) { aliasGroup(id: $id) { id } }"
RESOLVE = """mutation($w: ID!, $l: ID!) { resolveContradiction(winnerId: $w, loserId: $l,
  author: "user:judge", reason: "checked") { events { type payload } } }"""
ALIAS = """mutation($a: ID!, $b: ID!, $skip: Boolean = false) {
  markAlias(a: $a, b: $b, author: "user:x", skipExisting: $skip) { events { type payload } } }"""
MISSING = "01900000-0000-7000-8000-00000000dead"


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


async def chain(api: Api, n: int) -> list[str]:
    out: list[str] = []
    for _ in range(n):
        out.append((await api.create(parents=out[-1:]))["id"])
    return out


async def test_support_tree_and_set(api: Api) -> None:
    a, b = (await api.create())["id"], (await api.create())["id"]
    c = (await api.create(parents=[a, b, MISSING]))["id"]
    d = (await api.create(parents=[c, a]))["id"]
    tree = (await api.ok(TREE, id=d))["supportTree"]
    assert tree["root"] == d
    assert tree["truncated"] is False
    depths = {n["item"]["id"]: n["depth"] for n in tree["nodes"]}
    assert depths == {d: 0, c: 1, a: 1, b: 2}
    assert sorted((x["child"], x["parent"]) for x in tree["links"]) == sorted(
        [(d, c), (d, a), (c, a), (c, b)]
    )
    short = (await api.ok(TREE, id=d, d=1))["supportTree"]
    assert {n["item"]["id"] for n in short["nodes"]} == {d, c, a}
    assert short["truncated"] is True
    assert (await api.ok(TREE, id=a, d=0))["supportTree"]["truncated"] is False
    support = ids((await api.ok(SET, id=d))["supportSet"])
    assert support[0] == d
    assert sorted(support) == sorted([d, c, a, b])
    assert (await api.ok(TREE, id=MISSING))["supportTree"] is None
    assert (await api.ok(SET, id=MISSING))["supportSet"] == []


async def test_cycles_and_retracted_parents(api: Api) -> None:
    x = (await api.create())["id"]
    y = (await api.create(parents=[x]))["id"]
    await api.ok(
        'mutation($id: ID!, $p: [ID!]) { updateItem(id: $id, patch: {parents: $p}, author: "u") '
        "{ item { id } } }",
        id=x,
        p=[y, x],
    )
    assert sorted(ids((await api.ok(SET, id=x))["supportSet"])) == sorted([x, y])
    assert ids((await api.ok(DEPS, id=x, t=True))["dependents"]) == [y]
    z = (await api.create(parents=[y]))["id"]
    await api.ok(RETRACT, id=y)
    assert ids((await api.ok(SET, id=z))["supportSet"]) == [z]
    stale = (await api.ok(STALE))["staleItems"]
    assert {s["item"]["id"]: s["missingParents"] for s in stale} == {z: [y], x: [y]}


async def test_dependents(api: Api) -> None:
    a = (await api.create())["id"]
    b = (await api.create(parents=[a]))["id"]
    c = (await api.create(parents=[b, a]))["id"]
    assert sorted(ids((await api.ok(DEPS, id=a))["dependents"])) == sorted([b, c])
    assert ids((await api.ok(DEPS, id=b))["dependents"]) == [c]
    assert sorted(ids((await api.ok(DEPS, id=a, t=True))["dependents"])) == sorted([b, c])
    assert (await api.ok(DEPS, id=MISSING, t=True))["dependents"] == []


async def test_dependents_of_retracted_and_missing_ids(api: Api) -> None:
    """One rule, transitive or not: the live items naming the id, whatever the id
    is (live, retracted or never created), and their live dependents."""
    a = (await api.create())["id"]
    b = (await api.create(parents=[a]))["id"]
    c = (await api.create(parents=[b]))["id"]
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }', id=a)
    assert ids((await api.ok(DEPS, id=a))["dependents"]) == [b]
    assert sorted(ids((await api.ok(DEPS, id=a, t=True))["dependents"])) == sorted([b, c])
    orphan = (await api.create(parents=[MISSING]))["id"]
    below = (await api.create(parents=[orphan]))["id"]
    assert ids((await api.ok(DEPS, id=MISSING))["dependents"]) == [orphan]
    deep = ids((await api.ok(DEPS, id=MISSING, t=True))["dependents"])
    assert sorted(deep) == sorted([orphan, below])
    assert ids(
        (await api.ok("query($id: ID!) { children(id: $id) { id } }", id=a))["children"]
    ) == [b]


async def test_cascade_retracts_children_first(api: Api) -> None:
    root = (await api.create())["id"]
    left = (await api.create(parents=[root]))["id"]
    right = (await api.create(parents=[root]))["id"]
    shared = (await api.create(parents=[left, right]))["id"]
    other = (await api.create())["id"]
    link = await api.ok(
        'mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, author: "u") '
        "{ edge { edgeId } } }", a=left, b=other,
    )  # fmt: skip
    data = (await api.ok(CASCADE, id=root))["cascadeRetract"]
    # MemEX's post-order: children before parents, siblings newest first
    assert data["retracted"] == [shared, right, left, root]
    items = [
        (e["type"], e["payload"].get("item", e["payload"].get("edge"))) for e in data["events"]
    ]
    assert [(t, doc.get("id", doc.get("edge_id"))) for t, doc in items] == [
        ("memory.retracted", shared), ("memory.retracted", right), ("memory.retracted", left),
        ("edge.retracted", link["markContradiction"]["edge"]["edgeId"]),
        ("memory.retracted", root),
    ]  # fmt: skip
    assert {e["payload"]["cause_type"] for e in data["events"]} == {"memory.retract"}
    assert data["events"][0]["payload"]["item"]["parents"] == [left, right]
    assert ids((await api.ok("{ items { id } }"))["items"]) == [other]
    before = await api.snapshot()
    assert await api.codes(CASCADE, id=root) == ["MEMORY_NOT_FOUND"]
    assert await api.codes(CASCADE, id="nope") == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_contradictions(api: Api) -> None:
    a = (await api.create(authority=0.8))["id"]
    b = (await api.create(authority=0.6))["id"]
    mark = (await api.ok(MARK_C, a=a, b=b))["markContradiction"]
    assert mark["edge"]["kind"] == "CONTRADICTS"
    assert mark["edge"]["active"] is True
    assert mark["edge"]["sourceKind"] == "derived_deterministic"  # MemEX's fixed value
    assert mark["events"] == [{"type": "edge.created"}]
    (await api.ok(MARK_C, a=a, b=a))  # a self-inconsistent item
    listed = await api.ok("{ contradictions { a { id } b { id } edge { kind } } }")
    pairs = sorted((c["a"]["id"], c["b"]["id"]) for c in listed["contradictions"])
    assert pairs == sorted([(a, b), (a, a)])
    q = "query($id: ID!) { item(id: $id) { contradictedBy { id } } }"
    assert (await api.ok(q, id=a))["item"]["contradictedBy"] == [{"id": b}]
    assert (await api.ok(q, id=b))["item"]["contradictedBy"] == [{"id": a}]

    (await api.ok(MARK_C, a=b, b=a))  # the other way too
    events = (await api.ok(RESOLVE, w=a, l=b))["resolveContradiction"]["events"]
    # as MemEX: both contradictions retracted (insertion order), SUPERSEDES, loser x 0.1
    assert [e["type"] for e in events] == [
        "edge.retracted", "edge.retracted", "edge.created", "memory.updated"
    ]  # fmt: skip
    gone = [(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in events[:2]]
    assert gone == [(a, b), (b, a)]
    supersede = events[2]["payload"]["edge"]
    assert (supersede["kind"], supersede["from"], supersede["to"]) == ("SUPERSEDES", a, b)
    assert (supersede["source_kind"], supersede["authority"]) == ("derived_deterministic", 1.0)
    assert supersede["meta"] == {"reason": "checked"}
    assert events[3]["payload"]["item"]["authority"] == 0.6 * 0.1
    loser = await api.ok("query($id: ID!) { item(id: $id) { authority } }", id=b)
    assert loser["item"]["authority"] == 0.6 * 0.1
    assert (await api.ok(q, id=a))["item"]["contradictedBy"] == []
    listed = (await api.ok("{ contradictions { a { id } b { id } } }"))["contradictions"]
    assert [(c["a"]["id"], c["b"]["id"]) for c in listed] == [(a, a)]
    supersedes = '{ edges(filter: {kind: "SUPERSEDES"}) { from to } }'
    assert (await api.ok(supersedes))["edges"] == [{"from": a, "to": b}]

    before = await api.snapshot()
    assert (await api.ok(RESOLVE, w=a, l=b))["resolveContradiction"]["events"] == []
    assert (await api.ok(RESOLVE, w=b, l=a))["resolveContradiction"]["events"] == []
    assert await api.snapshot() == before
    assert await api.codes(RESOLVE, w=a, l=MISSING) == ["MEMORY_NOT_FOUND"]
    assert await api.codes(MARK_C, a=a, b=MISSING) == ["MEMORY_NOT_FOUND"]
    assert await api.snapshot() == before


async def test_aliases(api: Api) -> None:
    a, b, c, d = [(await api.create())["id"] for _ in range(4)]
    events = (await api.ok(ALIAS, a=a, b=b))["markAlias"]["events"]
    assert [e["type"] for e in events] == ["edge.created", "edge.created"]
    pairs = {(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in events}
    assert pairs == {(a, b), (b, a)}
    before = await api.snapshot()
    assert (await api.ok(ALIAS, a=a, b=b, skip=True))["markAlias"]["events"] == []
    assert (await api.ok(ALIAS, a=c, b=c))["markAlias"]["events"] == []  # self: no-op
    assert await api.snapshot() == before
    again = (await api.ok(ALIAS, a=a, b=b))["markAlias"]["events"]  # as MemEX: two more
    assert [(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in again] == [
        (a, b), (b, a)
    ]  # fmt: skip
    await api.ok(ALIAS, a=b, b=c)
    direct = "query($id: ID!) { aliases(id: $id) { id } item(id: $id) { aliases { id } } }"
    got = await api.ok(direct, id=b)
    assert sorted(ids(got["aliases"])) == sorted([a, c])
    assert got["item"]["aliases"] == got["aliases"]
    group = ids((await api.ok(GROUP, id=a))["aliasGroup"])
    assert group[0] == a
    assert sorted(group) == sorted([a, b, c])
    assert ids((await api.ok(GROUP, id=d))["aliasGroup"]) == [d]
    assert await api.codes(ALIAS, a=a, b=MISSING) == ["MEMORY_NOT_FOUND"]
    assert await api.codes(ALIAS, a=a, b="nope") == ["BAD_USER_INPUT"]


async def test_nested_relations_batch(api: Api) -> None:
    items = [(await api.create())["id"] for _ in range(20)]
    for x, y in itertools.pairwise(items):
        await api.ok(ALIAS, a=x, b=y)
        await api.ok(MARK_C, a=x, b=y)
    api.store.reads = 0
    data = await api.ok("{ items { id aliases { id } contradictedBy { id } } }")
    assert len(data["items"]) == 20
    assert api.store.reads == 3  # items, one alias batch, one contradiction batch


async def test_limits_are_reported(make_api: ApiFactory) -> None:
    api = await make_api(traversal_max_nodes=5, traversal_max_depth=100)
    line = await chain(api, 8)
    tree = (await api.ok(TREE, id=line[-1]))["supportTree"]
    assert tree["truncated"] is True
    assert len(tree["nodes"]) == 5
    assert await api.codes(SET, id=line[-1]) == ["RESOURCE_EXHAUSTED"]
    assert await api.codes(DEPS, id=line[0], t=True) == ["RESOURCE_EXHAUSTED"]
    before = await api.snapshot()
    assert await api.codes(CASCADE, id=line[0]) == ["RESOURCE_EXHAUSTED"]
    assert await api.snapshot() == before
    assert await api.codes(TREE, id=line[-1], d=-1) == ["BAD_USER_INPUT"]


async def test_mark_alias_writes_a_to_b_first(api: Api) -> None:
    """MemEX's order: the edge a→b, then b→a, each with its edge.created."""
    a = (await api.create())["id"]
    b = (await api.create())["id"]
    mark = (
        'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "user:u") '
        "{ events { payload } } }"
    )
    events = (await api.ok(mark, a=a, b=b))["markAlias"]["events"]
    ends = [(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in events]
    assert ends == [(a, b), (b, a)]
    kinds = {e["payload"]["edge"]["source_kind"] for e in events}
    assert kinds == {"derived_deterministic"}
    logged = (await api.ok('{ events(filter: {types: ["edge.created"]}) { payload } }'))["events"]
    assert [(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in logged] == ends
