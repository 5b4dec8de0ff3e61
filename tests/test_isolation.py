"""Tenant isolation, property-based: random graphs whose parents, edges,
aliases and contradictions cross tenant boundaries, read by callers with
different grants through every read of the API.

For each caller: (1) nothing it cannot read shows anywhere in any answer
(item ids, scopes, edge ids, event ids), except in the parent lists an item
owns; (2) an id it cannot read answers exactly like an id never created;
(3) every answer equals a reference computed here on the readable part of
the graph (tests/graph_reference.py with the unreadable items left out:
an item the caller cannot read is, to it, a missing item).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.graph.migrations import migrate
from memexd.ids import new_id
from tests.conftest import ApiFactory
from tests.graph_reference import Model
from tests.support import Api

# "tenant:a/" must not match "tenant:ab/z" nor the bare "tenant:a"; "tenant:b/"
# is a whole scope equal to a prefix.
SCOPES = ("tenant:a/x", "tenant:a/y", "tenant:a", "tenant:ab/z", "tenant:b/", "tenant:b/y")
READERS: dict[str, tuple[str, ...]] = {
    "a": ("read:tenant:a/",),
    "b": ("write:tenant:b/",),  # higher rights include read
    "a-ab": ("read:tenant:a/", "admin:tenant:ab/"),  # two tenants at once
}
EVERYTHING = ("read:",)
KINDS = ("SUPPORTS", "DERIVES")
AUTHORITIES = (0.1, 0.5, 0.9)
# Each example builds a graph over HTTP and reads it ~100 times per caller.
SLOW = settings(max_examples=20, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
# The documents below select many unbounded lists at once; their estimated
# cost is irrelevant here, so the cap is raised rather than the reads split.
APP_SETTINGS: dict[str, Any] = {"max_cost": 100_000_000}

EVENT_FIELDS = "events { id type payload }"
CREATE = f"""mutation($i: [MemoryItemInput!]!) {{ createItems(inputs: $i) {{
  items {{ id }} {EVENT_FIELDS} }} }}"""
EDGE = f"""mutation($f: ID!, $t: ID!, $k: String!) {{ createEdge(input: {{from: $f, to: $t,
  kind: $k, author: "u", sourceKind: "o", authority: 0.5, weight: 1.0}}) {{ {EVENT_FIELDS} }} }}"""
ALIAS = f"""mutation($a: ID!, $b: ID!) {{ markAlias(a: $a, b: $b, author: "u") {{
  {EVENT_FIELDS} }} }}"""
CONTRA = f"""mutation($a: ID!, $b: ID!) {{ markContradiction(a: $a, b: $b, author: "u") {{
  {EVENT_FIELDS} }} }}"""
RESOLVE = f"""mutation($w: ID!, $l: ID!) {{ resolveContradiction(winnerId: $w, loserId: $l,
  author: "u") {{ {EVENT_FIELDS} }} }}"""
RETRACT_EDGE = f"""mutation($id: ID!) {{ retractEdge(edgeId: $id, author: "u") {{
  {EVENT_FIELDS} }} }}"""
RETRACT = f"""mutation($id: ID!) {{ retractItem(id: $id, author: "u") {{ {EVENT_FIELDS} }} }}"""

EDGE_SELECTION = "edgeId from to kind active fromItem { id scope } toItem { id scope }"
ITEM_SELECTION = f"""id scope parents retracted
  parentItems {{ id scope }} children {{ id scope }} aliases {{ id scope }}
  contradictedBy {{ id scope }} edges(activeOnly: false) {{ {EDGE_SELECTION} }}
  out: edges(direction: FROM) {{ edgeId }} in: edges(direction: TO) {{ edgeId }}"""
# Everything asked about one id. The top-level `parents` query is aliased so
# that only an item's own `parents` list is named `parents` in the answers.
PER_ID = f"""query($id: ID!) {{
  item(id: $id) {{ {ITEM_SELECTION} }}
  tomb: item(id: $id, includeRetracted: true) {{ id scope parents retracted }}
  supportTree(id: $id) {{ root nodes {{ item {{ id scope }} depth }} links {{ child parent }}
    truncated }}
  shallow: supportTree(id: $id, maxDepth: 1) {{ root nodes {{ item {{ id }} depth }}
    links {{ child parent }} truncated }}
  supportSet(id: $id) {{ id scope }}
  dependents(id: $id, transitive: true) {{ id scope }}
  direct: dependents(id: $id) {{ id scope }}
  aliasGroup(id: $id) {{ id scope }}
  aliases(id: $id) {{ id scope }}
  parentList: parents(id: $id) {{ id scope }}
  childList: children(id: $id) {{ id scope }}
  related: relatedItems(id: $id) {{ id scope }}
  relatedFrom: relatedItems(id: $id, direction: FROM) {{ id }}
  relatedTo: relatedItems(id: $id, direction: TO) {{ id }}
  edgesFrom: edges(filter: {{from: $id, activeOnly: false}}) {{ {EDGE_SELECTION} }}
  edgesTo: edges(filter: {{to: $id, activeOnly: false}}) {{ {EDGE_SELECTION} }}
}}"""
# The fields whose answer for a missing id depends on who names it as a
# parent: compared with the reference, not with the never-created id.
NAMED_BY_OTHERS = ("dependents", "direct", "childList")
GLOBAL = f"""query($parent: ID!, $ids: [ID!]) {{
  all: items {{ id scope parents retracted }}
  tombs: items(includeRetracted: true) {{ id retracted }}
  firstTwo: items(limit: 2) {{ id }}
  paged: items(limit: 2, offset: 1) {{ id }}
  byPrefix: items(filter: {{scopePrefix: "tenant:a"}}) {{ id scope }}
  byScope: items(filter: {{scope: "tenant:ab/z"}}) {{ id scope }}
  notB: items(filter: {{not: {{scopePrefix: "tenant:b/"}}}},
    sort: [{{field: AUTHORITY, order: DESC}}]) {{ id scope }}
  byParent: items(filter: {{hasParent: $parent}}, includeRetracted: true) {{ id parents }}
  byIds: items(filter: {{ids: $ids}}) {{ id }}
  nonRoot: items(filter: {{isRoot: false}}) {{ {ITEM_SELECTION} }}
  edges(filter: {{activeOnly: false}}) {{ {EDGE_SELECTION} }}
  activeEdges: edges {{ edgeId }}
  twoEdges: edges(filter: {{activeOnly: false}}, limit: 2) {{ edgeId }}
  supports: edges(filter: {{kind: "SUPPORTS"}}) {{ edgeId }}
  contradictions {{ a {{ id scope }} b {{ id scope }} edge {{ {EDGE_SELECTION} }} }}
  oneContradiction: contradictions(limit: 1) {{ edge {{ edgeId }} }}
  staleItems {{ item {{ id scope parents }} missingParents }}
  oneStale: staleItems(limit: 1) {{ item {{ id }} missingParents }}
  events {{ id type payload }}
  firstEvents: events(limit: 3) {{ id }}
  aEvents: events(filter: {{scopePrefix: "tenant:a"}}) {{ id }}
  edgeEvents: events(filter: {{namespaces: ["edge"]}}) {{ id }}
}}"""
# Filtered lists whose answer must be the unrestricted answer minus what the
# caller cannot read, in the same order.
FILTERED_ITEMS = ("byPrefix", "byScope", "notB", "byParent", "byIds")
FILTERED_EVENTS = ("aEvents", "edgeEvents")
EVENTS_AFTER = "query($after: ID!) { events(after: $after) { id } }"


def edge_document(count: int) -> str:
    """`edge(edgeId:)` for `count` ids in one request (aliases e0, e1, …)."""
    params = ", ".join(f"$e{k}: ID!" for k in range(count))
    fields = " ".join(f"e{k}: edge(edgeId: $e{k}) {{ {EDGE_SELECTION} }}" for k in range(count))
    return f"query({params}) {{ {fields} }}"


# ----------------------------------------------------------------- the graph


@dataclass(frozen=True)
class Plan:
    """A drawn graph: what to create, link, mark and retract."""

    ids: list[str]
    scopes: list[str]
    authorities: list[float]
    parents: list[list[str]]
    order: list[int]  # creation order: parents named before they exist too
    ghosts: list[str]  # named as parents, never created
    edges: list[tuple[str, str, str]]
    aliases: list[tuple[str, str]]
    contradictions: list[tuple[str, str]]
    resolve: int | None  # index of a contradiction to resolve
    retract_edges: list[int]  # indices into the edges in creation order
    retract_items: list[str]
    never: str  # an item id and event id nobody creates or names
    never_edge: str


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    n = draw(st.integers(3, 9))
    ids = [new_id() for _ in range(n)]
    ghosts = [new_id() for _ in range(2)]
    pick = st.sampled_from(ids)
    pairs = st.tuples(pick, pick)
    contradictions = draw(st.lists(pairs, max_size=3))
    return Plan(
        ids=ids,
        scopes=[draw(st.sampled_from(SCOPES)) for _ in ids],
        authorities=[draw(st.sampled_from(AUTHORITIES)) for _ in ids],
        parents=[draw(st.lists(st.sampled_from(ids + ghosts), max_size=3)) for _ in ids],
        order=draw(st.permutations(range(n))),
        ghosts=ghosts,
        edges=draw(st.lists(st.tuples(pick, pick, st.sampled_from(KINDS)), max_size=4)),
        aliases=draw(st.lists(pairs, max_size=3)),
        contradictions=contradictions,
        resolve=draw(st.none() | st.integers(0, 2)) if contradictions else None,
        retract_edges=draw(st.lists(st.integers(0, 30), max_size=2, unique=True)),
        retract_items=draw(st.lists(pick, max_size=3, unique=True)),
        never=new_id(),
        never_edge=new_id(),
    )


@dataclass
class EdgeRow:
    edge_id: str
    from_id: str
    to_id: str
    kind: str
    active: bool = True
    retracted: bool = False


@dataclass
class World:
    """What the set-up created, as told by the events its commands returned."""

    scope: dict[str, str]  # every created item
    parents: dict[str, list[str]]
    retracted: set[str]
    edges: dict[str, EdgeRow]  # in creation order
    events: list[dict[str, Any]]  # in commit order
    plan: Plan

    def take(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.events.append(event)
            kind, payload = event["type"], event["payload"]
            if kind == "memory.retracted":
                self.retracted.add(payload["item"]["id"])
            elif kind == "edge.created":
                e = payload["edge"]
                self.edges[e["edge_id"]] = EdgeRow(
                    e["edge_id"], e["from"], e["to"], e["kind"], e["active"]
                )
            elif kind == "edge.updated":
                self.edges[payload["edge"]["edge_id"]].active = payload["edge"]["active"]
            elif kind == "edge.retracted":  # an item's retraction takes its edges
                self.edges[payload["edge"]["edge_id"]].retracted = True
            else:  # the model knows every event the set-up can cause
                assert kind in {"memory.created", "memory.updated"}, kind

    def event_scopes(self, event: dict[str, Any]) -> list[str]:
        """Every scope an event tells about: its item's, or both ends' of its edge."""
        kind, payload = event["type"], event["payload"]
        if kind.startswith("memory."):
            return [self.scope[payload["item"]["id"]]]
        edge = self.edges[payload["edge"]["edge_id"]]
        return [self.scope[edge.from_id], self.scope[edge.to_id]]


async def build(api: Api, plan: Plan) -> World:
    world = World(dict(zip(plan.ids, plan.scopes, strict=True)),
                  dict(zip(plan.ids, plan.parents, strict=True)), set(), {}, [], plan)  # fmt: skip
    rows = [
        {"id": plan.ids[i], "parents": plan.parents[i], "scope": plan.scopes[i], "kind": "k",
         "content": {"n": i}, "author": "user:t", "sourceKind": "o",
         "authority": plan.authorities[i]}
        for i in plan.order
    ]  # fmt: skip
    half = len(rows) // 2
    for chunk in (rows[:half], rows[half:]):  # two batches: links across batches too
        if chunk:
            world.take((await api.ok(CREATE, i=chunk))["createItems"]["events"])
    for f, t, kind in plan.edges:
        world.take((await api.ok(EDGE, f=f, t=t, k=kind))["createEdge"]["events"])
    for a, b in plan.aliases:
        world.take((await api.ok(ALIAS, a=a, b=b))["markAlias"]["events"])
    for a, b in plan.contradictions:
        world.take((await api.ok(CONTRA, a=a, b=b))["markContradiction"]["events"])
    if plan.resolve is not None:
        w, loser = plan.contradictions[plan.resolve % len(plan.contradictions)]
        if w != loser:
            world.take((await api.ok(RESOLVE, w=w, l=loser))["resolveContradiction"]["events"])
    edge_ids = [k for k, e in world.edges.items() if not e.retracted]  # resolve retracts some
    for k in {k % len(edge_ids) for k in plan.retract_edges} if edge_ids else set():
        world.take((await api.ok(RETRACT_EDGE, id=edge_ids[k]))["retractEdge"]["events"])
    for i in plan.retract_items:
        world.take((await api.ok(RETRACT, id=i))["retractItem"]["events"])
    return world


# ------------------------------------------------------- one caller's view


def reader(grants: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether grants let a caller read a scope (written here, not imported,
    so the test does not share the product's reading of a grant)."""
    prefixes = [g.split(":", 1)[1] for g in grants]
    return lambda scope: any(scope.startswith(p) for p in prefixes)


class View:
    """The graph as one caller must see it: unreadable items are missing."""

    def __init__(self, world: World, can_read: Callable[[str], bool]) -> None:
        self.world = world
        self.can_read = can_read
        self.items = {i for i, s in world.scope.items() if can_read(s)}
        self.edges = sorted(
            (e for e in world.edges.values()
             if not e.retracted and e.from_id in self.items and e.to_id in self.items),
            key=lambda e: e.edge_id,
        )  # fmt: skip
        self.model = Model(
            parents={i: ps for i, ps in world.parents.items() if i in self.items},
            retracted=world.retracted & self.items,
            aliases={(e.from_id, e.to_id) for e in self.edges if e.kind == "ALIAS" and e.active},
        )
        self.events = [e for e in world.events if all(map(can_read, world.event_scopes(e)))]

    def live(self, i: str) -> bool:
        return self.model.live(i)

    def forbidden(self) -> set[str]:
        """Strings that must not appear in any answer to this caller."""
        w = self.world
        hidden_edges = {
            e.edge_id for e in w.edges.values() if not {e.from_id, e.to_id} <= self.items
        }
        visible_events = {e["id"] for e in self.events}
        return (
            (set(w.scope) - self.items)
            | {s for s in SCOPES if not self.can_read(s)}
            | hidden_edges
            | {e["id"] for e in w.events if e["id"] not in visible_events}
        )

    def edge(self, e: EdgeRow) -> tuple[Any, ...]:
        def live_end(i: str) -> str | None:  # Edge.fromItem / toItem: live items only
            return i if self.live(i) else None

        return (e.edge_id, e.from_id, e.to_id, e.kind, e.active,
                live_end(e.from_id), live_end(e.to_id))  # fmt: skip

    def touching(self, i: str, *, out: bool = True, into: bool = True) -> list[EdgeRow]:
        return [e for e in self.edges if (out and e.from_id == i) or (into and e.to_id == i)]

    def contradicted_by(self, i: str) -> set[str]:
        return {
            other
            for e in self.touching(i)
            if e.kind == "CONTRADICTS" and e.active
            for other in (e.from_id, e.to_id)
            if other != i and self.live(other)
        }

    def related(self, i: str, *, out: bool, into: bool) -> set[str]:
        ends = set()
        for e in self.touching(i, out=out, into=into):
            if e.active:
                if out and e.from_id == i:
                    ends.add(e.to_id)
                if into and e.to_id == i:
                    ends.add(e.from_id)
        return {x for x in ends if self.live(x)}

    def item(self, i: str) -> dict[str, Any] | None:
        """An item with its nested fields, as `summary_of_item` reads them."""
        if not self.live(i):
            return None
        m = self.model
        return {
            "id": i, "scope": self.world.scope[i], "parents": self.world.parents[i],
            "retracted": False, "parentItems": m.live_parents(i),
            "children": set(m.live_children(i)),
            "aliases": set(m.alias_neighbours(i)) - {i},
            "contradictedBy": self.contradicted_by(i),
            "edges": {self.edge(e) for e in self.touching(i)},
            "out": {e.edge_id for e in self.touching(i, into=False) if e.active},
            "in": {e.edge_id for e in self.touching(i, out=False) if e.active},
        }  # fmt: skip

    def per_id(self, i: str) -> dict[str, Any]:
        """The reference answer to PER_ID, in the form `summary` gives."""
        m, live = self.model, self.live(i)
        support = m.support(i)
        shallow = {x: d for x, d in support.items() if d <= 1}
        readable = i in self.items
        return {
            "item": self.item(i),
            "tomb": ({"id": i, "scope": self.world.scope[i], "parents": self.world.parents[i],
                      "retracted": i in self.world.retracted} if readable else None),
            "supportTree": ((i, support, m.support_links(i), False) if live else None),
            "shallow": ((i, shallow, {(c, p) for c, p in m.support_links(i)
                                     if c in shallow and p in shallow},
                         max(support.values()) > 1) if live else None),
            "supportSet": (i, set(support)) if live else None,
            "dependents": m.dependents(i),
            "direct": set(m.live_children(i)),
            "aliasGroup": (i, m.alias_group(i)) if live else None,
            "aliases": (set(m.alias_neighbours(i)) - {i}) if readable else set(),
            "parentList": m.live_parents(i) if live else [],
            "childList": set(m.live_children(i)),
            "related": self.related(i, out=True, into=True) if readable else set(),
            "relatedFrom": self.related(i, out=True, into=False) if readable else set(),
            "relatedTo": self.related(i, out=False, into=True) if readable else set(),
            "edgesFrom": [self.edge(e) for e in self.touching(i, into=False)],
            "edgesTo": [self.edge(e) for e in self.touching(i, out=False)],
        }  # fmt: skip


# ------------------------------------------------- answers, in a fixed form


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


def edge_summary(e: dict[str, Any]) -> tuple[Any, ...]:
    def end(x: dict[str, Any] | None) -> str | None:
        return None if x is None else x["id"]

    return (e["edgeId"], e["from"], e["to"], e["kind"], e["active"],
            end(e["fromItem"]), end(e["toItem"]))  # fmt: skip


def summary_of_item(x: dict[str, Any] | None) -> dict[str, Any] | None:
    """Sets where the schema promises no order, lists where it does."""
    if x is None:
        return None
    return {
        "id": x["id"], "scope": x["scope"], "parents": x["parents"],
        "retracted": x["retracted"], "parentItems": ids(x["parentItems"]),
        "children": set(ids(x["children"])), "aliases": set(ids(x["aliases"])),
        "contradictedBy": set(ids(x["contradictedBy"])),
        "edges": {edge_summary(e) for e in x["edges"]},
        "out": {e["edgeId"] for e in x["out"]}, "in": {e["edgeId"] for e in x["in"]},
    }  # fmt: skip


def summary(got: dict[str, Any]) -> dict[str, Any]:
    def tree(t: dict[str, Any] | None) -> tuple[Any, ...] | None:
        if t is None:
            return None
        nodes = {n["item"]["id"]: n["depth"] for n in t["nodes"]}
        assert len(nodes) == len(t["nodes"]), "a support tree lists an item twice"
        return (t["root"], nodes, {(x["child"], x["parent"]) for x in t["links"]},
                t["truncated"])  # fmt: skip

    def headed(rows: list[dict[str, Any]]) -> tuple[str, set[str]] | None:
        """A list that starts with the item asked about, then has no order."""
        assert len(set(ids(rows))) == len(rows), "a walk lists an item twice"
        return (rows[0]["id"], set(ids(rows))) if rows else None

    return {
        "item": summary_of_item(got["item"]), "tomb": got["tomb"],
        "supportTree": tree(got["supportTree"]), "shallow": tree(got["shallow"]),
        "supportSet": headed(got["supportSet"]), "dependents": set(ids(got["dependents"])),
        "direct": set(ids(got["direct"])), "aliasGroup": headed(got["aliasGroup"]),
        "aliases": set(ids(got["aliases"])), "parentList": ids(got["parentList"]),
        "childList": set(ids(got["childList"])), "related": set(ids(got["related"])),
        "relatedFrom": set(ids(got["relatedFrom"])), "relatedTo": set(ids(got["relatedTo"])),
        "edgesFrom": [edge_summary(e) for e in got["edgesFrom"]],
        "edgesTo": [edge_summary(e) for e in got["edgesTo"]],
    }  # fmt: skip


def strings(value: Any, key: str | None = None) -> Iterator[str]:
    """Every string in an answer, keys too, except in the parent lists an
    item owns (`parents`, also in an event's `payload.item`) and a stale
    item's `missingParents`: those may name what the caller cannot read."""
    if key in {"parents", "missingParents"} and isinstance(value, list):
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v, k)


def assert_hides(answer: Any, forbidden: set[str], what: str) -> None:
    seen = forbidden.intersection(strings(answer))
    assert not seen, f"{what} sees {sorted(seen)} in {json.dumps(answer)[:2000]}"


def swapped(answer: Any, old: str, new: str) -> Any:
    """The answer with one id replaced by another, wherever it appears."""
    return json.loads(json.dumps(answer).replace(old, new))


# ------------------------------------------------------------------ checks


async def check_caller(
    world: World, client: Api, can_read: Callable[[str], bool], unrestricted: dict[str, Any]
) -> None:
    """Every read, for one caller, against the reference; `unrestricted` is
    GLOBAL as a caller that reads everything sees it."""
    view, plan = View(world, can_read), world.plan
    forbidden = view.forbidden()
    missing = [*plan.ghosts, *(set(world.scope) - view.items)]

    # (2) the never-created id, asked first: what every missing id must look like
    never = await client.ok(PER_ID, id=plan.never)
    assert_hides(never, forbidden, "a never-created id")
    for i in [*plan.ids, *plan.ghosts]:
        got = await client.ok(PER_ID, id=i)
        assert_hides(got, forbidden, f"PER_ID({i})")  # (1)
        assert summary(got) == view.per_id(i), f"PER_ID({i})"  # (3)
        if i in missing:  # (2): whatever does not depend on who names the id
            expected = swapped(never, plan.never, i)
            for key in NAMED_BY_OTHERS:
                del got[key], expected[key]
            assert got == expected, f"the unreadable {i} differs from a missing id"

    got = await client.ok(GLOBAL, parent=(plan.parents[0] or plan.ids)[0],
                          ids=[*plan.ids, *plan.ghosts])  # fmt: skip
    assert_hides(got, forbidden, "GLOBAL")
    live = sorted(i for i in view.items if view.live(i))
    assert ids(got["all"]) == live
    assert [(x["id"], x["retracted"]) for x in got["tombs"]] == [
        (i, i in world.retracted) for i in sorted(view.items)
    ]
    assert ids(got["firstTwo"]) == live[:2]  # paging after the grant, not before
    assert ids(got["paged"]) == live[1:3]
    for key in FILTERED_ITEMS:
        assert got[key] == [x for x in unrestricted[key] if x["id"] in view.items], key
    non_root = [i for i in live if world.parents[i]]
    assert [summary_of_item(x) for x in got["nonRoot"]] == [view.item(i) for i in non_root]

    assert [edge_summary(e) for e in got["edges"]] == [view.edge(e) for e in view.edges]
    active = [e.edge_id for e in view.edges if e.active]
    assert [e["edgeId"] for e in got["activeEdges"]] == active
    assert [e["edgeId"] for e in got["twoEdges"]] == [e.edge_id for e in view.edges][:2]
    assert [e["edgeId"] for e in got["supports"]] == [
        e.edge_id for e in view.edges if e.active and e.kind == "SUPPORTS"
    ]
    contradictions = sorted(
        (e.from_id, e.to_id, e.edge_id)
        for e in view.edges
        if e.kind == "CONTRADICTS" and e.active and view.live(e.from_id) and view.live(e.to_id)
    )
    assert sorted((c["a"]["id"], c["b"]["id"], c["edge"]["edgeId"]) for c in got["contradictions"]
                  ) == contradictions  # fmt: skip
    assert len(got["oneContradiction"]) == min(1, len(contradictions))  # no hidden count
    stale = {s["item"]["id"]: s["missingParents"] for s in got["staleItems"]}
    assert len(stale) == len(got["staleItems"])
    assert stale == view.model.stale()
    assert len(got["oneStale"]) == min(1, len(stale))
    assert all(stale[s["item"]["id"]] == s["missingParents"] for s in got["oneStale"])

    visible = [e["id"] for e in view.events]
    assert ids(got["events"]) == visible  # commit order
    assert ids(got["firstEvents"]) == visible[:3]
    for key in FILTERED_EVENTS:
        assert ids(got[key]) == [e["id"] for e in unrestricted[key] if e["id"] in visible], key
    await check_cursors(world, client, view, forbidden)
    await check_edges_by_id(world, client, view, forbidden)


async def check_cursors(world: World, client: Api, view: View, forbidden: set[str]) -> None:
    """An event the caller cannot see is, as a cursor, an unknown event."""
    never = await client.run(EVENTS_AFTER, {"after": world.plan.never})
    assert never.get("errors"), never
    visible = [e["id"] for e in view.events]
    hidden = [e["id"] for e in world.events if e["id"] not in visible]
    for after in hidden[:1] + hidden[-1:]:
        assert await client.run(EVENTS_AFTER, {"after": after}) == swapped(
            never, world.plan.never, after
        )
    for k in {0, len(visible) // 2} if visible else set():
        got = await client.ok(EVENTS_AFTER, after=visible[k])
        assert_hides(got, forbidden, "events(after)")
        assert ids(got["events"]) == visible[k + 1 :]


async def check_edges_by_id(world: World, client: Api, view: View, forbidden: set[str]) -> None:
    every = [*world.edges, world.plan.never_edge]
    got = await client.ok(edge_document(len(every)), **{f"e{k}": e for k, e in enumerate(every)})
    assert_hides(got, forbidden, "edge(edgeId)")
    shown = {e.edge_id: view.edge(e) for e in view.edges}
    for k, edge_id in enumerate(every):
        found = got[f"e{k}"]
        assert (None if found is None else edge_summary(found)) == shown.get(edge_id), edge_id


async def fresh(make_api: ApiFactory) -> Api:
    """An open app (its own, empty key file) over an emptied graph: hypothesis
    runs every example inside one test, hence one graph."""
    api = await make_api(**APP_SETTINGS)
    await api.graph.write("admin_reset")
    await migrate(api.graph)
    return api


# ------------------------------------------------------------------- tests


@SLOW
@given(plan=plans())
async def test_tenants_see_only_their_part_of_the_graph(make_api: ApiFactory, plan: Plan) -> None:
    api = await fresh(make_api)
    world = await build(api, plan)  # anonymous: the app is open until a key exists
    everyone = api.with_grants(*EVERYTHING)
    unrestricted = await everyone.ok(GLOBAL, parent=(plan.parents[0] or plan.ids)[0],
                                     ids=[*plan.ids, *plan.ghosts])  # fmt: skip
    # the model of the log is the log: every event the set-up returned, in order
    assert ids(unrestricted["events"]) == [e["id"] for e in world.events]
    callers = {name: api.with_grants(*grants, name=name) for name, grants in READERS.items()}
    await check_caller(world, everyone, reader(EVERYTHING), unrestricted)
    for name, client in callers.items():
        await check_caller(world, client, reader(READERS[name]), unrestricted)


async def test_the_checks_catch_a_caller_that_sees_too_much(make_api: ApiFactory) -> None:
    """The oracle is not vacuous: a caller reading everything, checked as if
    it held tenant a's grant only, fails the checks."""
    a, ab, b = new_id(), new_id(), new_id()
    plan = Plan(ids=[a, ab, b], scopes=["tenant:a/x", "tenant:ab/z", "tenant:b/"],
                authorities=[0.5] * 3, parents=[[], [a], [ab]], order=[0, 1, 2], ghosts=[],
                edges=[(a, b, "SUPPORTS")], aliases=[], contradictions=[], resolve=None,
                retract_edges=[], retract_items=[], never=new_id(),
                never_edge=new_id())  # fmt: skip
    api = await fresh(make_api)
    world = await build(api, plan)
    everyone = api.with_grants(*EVERYTHING)
    unrestricted = await everyone.ok(GLOBAL, parent=a, ids=plan.ids)
    with pytest.raises(AssertionError, match=r"sees \[.*'tenant:ab/z'"):
        await check_caller(world, everyone, reader(READERS["a"]), unrestricted)
