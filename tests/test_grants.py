"""Grants, operation by operation: every query and mutation, called without
credentials, by another tenant, and by a caller that may only read, gets the
right answer or error and changes nothing.

The matrix (``READS`` and ``WRITES`` list every operation; ``CROSS`` the
mutations that touch two tenants)::

              no credentials        wrong tenant                  read-only caller
    query     401 UNAUTHENTICATED   the answer for ids never      the writer's answer,
                                    created (null / [])           whatever tenant b links
    mutation  401 UNAUTHENTICATED   the error for ids never       FORBIDDEN (or not found
                                    created (*_NOT_FOUND), or     for an end it cannot
                                    FORBIDDEN to create in a      read)
                                    scope it cannot write

Tenant ``a`` owns ``tenant:a/…``, tenant ``b`` owns ``tenant:b/…``. The
callers: ``writer`` (``write:tenant:a/``), ``reader`` (``read:tenant:a/``),
``other`` (``write:tenant:b/``), ``mixed`` (``write:tenant:a/`` and
``read:tenant:b/``), ``root`` (``write:tenant:``, builds the data) and
``nobody`` (no credentials). Every failure is checked against a snapshot of
the whole graph (items, relationships, event log), and every refused
mutation is then done by a caller allowed to, so no row can pass by
everything failing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from memexd.ids import new_id
from tests.support import Api

A, B = "tenant:a/", "tenant:b/"

#: Which tenants each caller can read.
SEES = {"root": "ab", "writer": "a", "reader": "a", "other": "b", "mixed": "ab", "nobody": ""}


# ------------------------------------------------------------------ the data


@dataclass
class World:
    """Named ids (``a1``, ``b1``, ``ea``…) and the tenants each one touches
    (an item one, an edge those of both ends)."""

    ids: dict[str, str] = field(default_factory=dict)
    tenants: dict[str, str] = field(default_factory=dict)
    #: A ghost world invents a never-created id for any name it does not know.
    invent: bool = False

    def __getitem__(self, name: str) -> str:
        if name not in self.ids:
            assert self.invent, f"no {name} in this world"
            self.add(name, new_id(), "?")
        return self.ids[name]

    def add(self, name: str, value: str, tenants: str) -> str:
        self.ids[name], self.tenants[name] = value, tenants
        return value

    def ghost(self, seen: str) -> World:
        """The world as it would be if what a caller seeing ``seen`` cannot
        read had never been created: those names get fresh ids."""
        ghost = World(invent=True)
        for name, value in self.ids.items():
            hidden = not set(self.tenants[name]) <= set(seen)
            ghost.add(name, new_id() if hidden else value, self.tenants[name])
        return ghost

    def named(self, text: str) -> str:
        """``text`` with every id of this world replaced by ``<name>``."""
        for name, value in self.ids.items():
            text = text.replace(value, f"<{name}>")
        return text

    def of(self, tenant: str) -> list[str]:
        return [v for n, v in self.ids.items() if tenant in self.tenants[n]]


def draft(scope: str, **fields: Any) -> dict[str, Any]:
    return {"scope": scope, "kind": "observation", "content": {"x": 1}, "author": "user:t",
            "sourceKind": "observed", "authority": 0.5, **fields}  # fmt: skip


def edge_draft(a: str, b: str, kind: str = "RELATES", **fields: Any) -> dict[str, Any]:
    return {"from": a, "to": b, "kind": kind, "author": "user:t", "sourceKind": "observed",
            "authority": 0.5, **fields}  # fmt: skip


def items(w: World, *specs: tuple[str, str, list[str]]) -> list[dict[str, Any]]:
    """Inputs for ``(name, scope, parent names)`` items, with ids of our own;
    the tenant is the name's first letter."""
    for name, _, _ in specs:
        if name not in w.ids:  # an id may be named before its item exists
            w.add(name, new_id(), name[0])
    return [draft(scope, id=w[name], parents=[w[p] for p in parents])
            for name, scope, parents in specs]  # fmt: skip


def edge(w: World, name: str, a: str, b: str) -> dict[str, Any]:
    """Input for a SUPPORTS edge a→b, with an id of our own."""
    w.add(name, new_id(), "".join(sorted({w.tenants[a], w.tenants[b]})))
    return edge_draft(w[a], w[b], "SUPPORTS", edgeId=w[name])


# Each world is built by one request (a document's mutations run in order).


async def build_b(root: Api, w: World) -> None:
    """Tenant b's own data, so what ``other`` sees is never empty."""
    await root.ok(
        """mutation($items: [MemoryItemInput!]!, $eb: EdgeInput!) {
          createItems(inputs: $items) { items { id } }
          createEdge(input: $eb) { edge { edgeId } } }""",
        items=items(w, ("b1", B + "notes", []), ("b2", B + "notes", ["b1"])),
        eb=edge(w, "eb", "b1", "b2"),
    )


async def build_a(root: Api, w: World) -> None:
    """a1 ← a2 (a PARENT link and a SUPPORTS edge ``ea``), a1 contradicts a3
    (edge ``ca``), a2 and a3 are aliases, a4 names a parent never created,
    a5 is retracted (event ``ev``), ax names bx, tenant b's item that
    :func:`build_links` creates."""
    w.add("gone", new_id(), "?")
    w.add("bx", new_id(), "b")
    specs = [("a1", A + "notes", []), ("a2", A + "notes", ["a1"]), ("a3", A + "notes", []),
             ("a4", A + "notes", ["gone"]), ("a5", A + "notes", []),
             ("ax", A + "notes", ["bx"])]  # fmt: skip
    data = await root.ok(
        """mutation($items: [MemoryItemInput!]!, $ea: EdgeInput!, $a1: ID!, $a2: ID!,
                    $a3: ID!, $a5: ID!) {
          createItems(inputs: $items) { items { id } }
          retractItem(id: $a5, author: "user:t") { events { id } }
          createEdge(input: $ea) { edge { edgeId } }
          markContradiction(a: $a1, b: $a3, author: "user:t") { edge { edgeId } }
          markAlias(a: $a2, b: $a3, author: "user:t") { events { id } } }""",
        items=items(w, *specs),
        ea=edge(w, "ea", "a1", "a2"),
        **{name: w[name] for name in ("a1", "a2", "a3", "a5")},
    )
    w.add("ev", data["retractItem"]["events"][0]["id"], "a")
    w.add("ca", data["markContradiction"]["edge"]["edgeId"], "a")


async def build_links(root: Api, w: World) -> None:
    """Links between the tenants: bx depends on a1 (and ax on bx), an edge
    a1→bx (``ex``), a contradiction a3→bx (``cx``), an alias a2↔bx."""
    data = await root.ok(
        """mutation($items: [MemoryItemInput!]!, $ex: EdgeInput!, $a2: ID!, $a3: ID!,
                    $bx: ID!) {
          createItems(inputs: $items) { items { id } }
          createEdge(input: $ex) { edge { edgeId } }
          markContradiction(a: $a3, b: $bx, author: "user:t") { edge { edgeId } }
          markAlias(a: $a2, b: $bx, author: "user:t") { events { id } } }""",
        items=items(w, ("bx", B + "x", ["a1"])),
        ex=edge(w, "ex", "a1", "bx"),
        **{name: w[name] for name in ("a2", "a3", "bx")},
    )
    w.add("cx", data["markContradiction"]["edge"]["edgeId"], "ab")


@dataclass
class Callers:
    root: Api
    writer: Api
    reader: Api
    other: Api
    mixed: Api
    nobody: Api

    def __getitem__(self, kind: str) -> Api:
        caller: Api = getattr(self, kind)
        return caller


def callers(api: Api) -> Callers:
    """The callers; from the first key on, anonymous callers are refused."""
    return Callers(
        root=api.with_grants("write:tenant:"),
        writer=api.with_grants("write:" + A),
        reader=api.with_grants("read:" + A),
        other=api.with_grants("write:" + B),
        mixed=api.with_grants("write:" + A, "read:" + B),
        nobody=api.as_key(None),
    )


async def send(caller: Api, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = await caller.client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=caller.headers
    )
    body: dict[str, Any] = response.json()
    return response.status_code, body


def codes(body: dict[str, Any]) -> list[str]:
    return [e.get("extensions", {}).get("code") for e in body.get("errors") or []]


def errors(body: dict[str, Any], w: World) -> list[dict[str, Any]]:
    """The errors with ids named, to compare a world with its ghost."""
    return [
        {"message": w.named(e["message"]), "code": e.get("extensions", {}).get("code"),
         "path": e.get("path")}
        for e in body.get("errors") or []
    ]  # fmt: skip


async def answer(caller: Api, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    status, body = await send(caller, query, variables)
    assert not body.get("errors"), body
    assert status == 200
    data: dict[str, Any] = body["data"]
    return data


# ------------------------------------------------------------------ queries

ITEM = """id scope kind authority retracted parents parentItems { id } children { id }
  aliases { id } contradictedBy { id } edges(activeOnly: false) { edgeId from to kind }"""
#: What a list without a ``limit`` can afford under the default cost limit.
FLAT = "id scope kind retracted"
EDGE = "edgeId from to kind active fromItem { id } toItem { id }"
TREE = "root nodes { item { id } depth } links { child parent } truncated"


@dataclass(frozen=True)
class Read:
    name: str
    #: one operation; aliases ask for its variants in the same request
    query: str
    vars: Callable[[World], dict[str, Any]]
    #: an id the answer must hold for a caller allowed to read tenant a
    shows: str
    #: the error code an id never created gets (None: an empty answer)
    missing: str | None = None


#: Every query. ``ax`` names ``bx`` (tenant b's) as its parent.
READS = [
    Read("item", f"""query($a2: ID!, $a5: ID!) {{
           live: item(id: $a2) {{ {ITEM} }}
           retracted: item(id: $a5, includeRetracted: true) {{ {ITEM} }} }}""",
         lambda w: {"a2": w["a2"], "a5": w["a5"]}, "a1"),
    Read("items", f"""query($ids: [ID!]) {{
           live: items(limit: 50) {{ {ITEM} }}
           all: items(limit: 50, includeRetracted: true) {{ {ITEM} }}
           byId: items(filter: {{ids: $ids}}, limit: 50) {{ {ITEM} }} }}""",
         lambda w: {"ids": [w["a1"], w["a2"], w["a5"], w["ax"]]}, "a4"),
    Read("edge", f"query($id: ID!) {{ edge(edgeId: $id) {{ {EDGE} }} }}",
         lambda w: {"id": w["ea"]}, "ea"),
    Read("edges", f"""query($a1: ID, $a2: ID) {{
           all: edges(filter: {{activeOnly: false}}) {{ {EDGE} }}
           from: edges(filter: {{from: $a1}}) {{ {EDGE} }}
           to: edges(filter: {{to: $a2}}) {{ {EDGE} }} }}""",
         lambda w: {"a1": w["a1"], "a2": w["a2"]}, "ea"),
    Read("relatedItems", f"""query($id: ID!) {{
           both: relatedItems(id: $id) {{ {FLAT} }}
           from: relatedItems(id: $id, direction: FROM) {{ {FLAT} }} }}""",
         lambda w: {"id": w["a1"]}, "a2"),
    Read("parents", f"query($id: ID!) {{ parents(id: $id) {{ {FLAT} }} }}",
         lambda w: {"id": w["a2"]}, "a1"),
    Read("children", f"query($id: ID!) {{ children(id: $id) {{ {FLAT} }} }}",
         lambda w: {"id": w["a1"]}, "a2"),
    Read("events", """query($p: String) {
           all: events { namespace type payload }
           scoped: events(filter: {scopePrefix: $p}) { type payload } }""",
         lambda w: {"p": A}, "a1"),
    Read("events after a cursor",
         "query($after: ID) { events(after: $after) { id type payload } }",
         lambda w: {"after": w["ev"]}, "ca", missing="BAD_USER_INPUT"),
    Read("supportTree", f"""query($a2: ID!, $ax: ID!) {{
           tree: supportTree(id: $a2) {{ {TREE} }}
           throughB: supportTree(id: $ax) {{ {TREE} }} }}""",
         lambda w: {"a2": w["a2"], "ax": w["ax"]}, "a1"),
    Read("supportSet", f"query($id: ID!) {{ supportSet(id: $id) {{ {FLAT} }} }}",
         lambda w: {"id": w["a2"]}, "a1"),
    Read("contradictions",
         f"{{ contradictions(limit: 50) {{ a {{ {ITEM} }} b {{ id }} edge {{ {EDGE} }} }} }}",
         lambda w: {}, "ca"),
    Read("staleItems", f"{{ staleItems(limit: 50) {{ item {{ {ITEM} }} missingParents }} }}",
         lambda w: {}, "gone"),
    Read("dependents", f"""query($a1: ID!, $bx: ID!) {{
           direct: dependents(id: $a1) {{ {FLAT} }}
           all: dependents(id: $a1, transitive: true) {{ {FLAT} }}
           ofB: dependents(id: $bx, transitive: true) {{ {FLAT} }} }}""",
         lambda w: {"a1": w["a1"], "bx": w["bx"]}, "a2"),
    Read("aliases", f"query($id: ID!) {{ aliases(id: $id) {{ {FLAT} }} }}",
         lambda w: {"id": w["a2"]}, "a3"),
    Read("aliasGroup", f"query($id: ID!) {{ aliasGroup(id: $id) {{ {FLAT} }} }}",
         lambda w: {"id": w["a2"]}, "a3"),
]  # fmt: skip


@pytest.mark.parametrize("kind", ["nobody", "other", "reader"])
@pytest.mark.parametrize("op", READS, ids=lambda r: r.name)
async def test_read(api: Api, op: Read, kind: str) -> None:
    c = callers(api)
    w = World()
    await build_b(c.root, w)
    ghost = w.ghost(SEES["other"])  # tenant a never created
    if kind == "other":
        _, before_a = await send(c.other, op.query, op.vars(ghost))
    await build_a(c.root, w)
    snapshot = await api.snapshot()
    status, body = await send(c[kind], op.query, op.vars(w))

    if kind == "nobody":
        assert (status, codes(body), body.get("data")) == (401, ["UNAUTHENTICATED"], None)
        params = {"query": op.query, "variables": json.dumps(op.vars(w))}
        by_get = await c.nobody.client.get("/graphql", params=params)
        assert by_get.status_code == 401
        assert codes(by_get.json()) == ["UNAUTHENTICATED"]
    elif kind == "other":
        # tenant a does not exist for tenant b: the answer is the one it got
        # before tenant a's data was created, and the one for ids never created
        assert status == 200
        assert codes(body) == ([] if op.missing is None else [op.missing]), body
        _, never = await send(c.other, op.query, op.vars(ghost))
        assert w.named(json.dumps(body)) == ghost.named(json.dumps(before_a))
        assert w.named(json.dumps(body)) == ghost.named(json.dumps(never))
        text = json.dumps(body["data"])
        assert not [i for i in w.of("a") if i in text]
        assert A not in text
    else:
        assert not body.get("errors"), body
        assert status == 200
        assert body["data"] == await answer(c.writer, op.query, op.vars(w))
        text = json.dumps(body["data"])
        assert w[op.shows] in text, "the allowed path must see tenant a's data"
        assert not [w[n] for n in ("b1", "b2", "eb") if w[n] in text]
        assert B not in text
    assert await api.snapshot() == snapshot

    if kind == "reader":
        # tenant b's items that depend on, point at, contradict or alias
        # tenant a's change nothing tenant a reads
        await build_links(c.root, w)
        assert await answer(c.reader, op.query, op.vars(w)) == body["data"]
        assert await answer(c.writer, op.query, op.vars(w)) == body["data"]


# ------------------------------------------------------------------ mutations

CREATE_ITEM = "mutation($input: MemoryItemInput!) { createItem(input: $input) { item { id } } }"
CREATE_ITEMS = """mutation($inputs: [MemoryItemInput!]!) {
  createItems(inputs: $inputs) { items { id } } }"""
UPDATE_ITEM = """mutation($id: ID!, $patch: MemoryItemPatch!) {
  updateItem(id: $id, patch: $patch, author: "user:t") { item { id scope } } }"""
RETRACT_ITEM = 'mutation($id: ID!) { retractItem(id: $id, author: "user:t") { events { id } } }'
CREATE_EDGE = "mutation($input: EdgeInput!) { createEdge(input: $input) { edge { edgeId } } }"
UPDATE_EDGE = """mutation($id: ID!, $patch: EdgePatch!) {
  updateEdge(edgeId: $id, patch: $patch, author: "user:t") { edge { edgeId kind } } }"""
RETRACT_EDGE = """mutation($id: ID!) {
  retractEdge(edgeId: $id, author: "user:t") { events { id } } }"""
MARK_CONTRADICTION = """mutation($a: ID!, $b: ID!) {
  markContradiction(a: $a, b: $b, author: "user:t") { edge { edgeId } } }"""
RESOLVE = """mutation($w: ID!, $l: ID!) {
  resolveContradiction(winnerId: $w, loserId: $l, author: "user:t") { events { id } } }"""
MARK_ALIAS = """mutation($a: ID!, $b: ID!) {
  markAlias(a: $a, b: $b, author: "user:t") { events { id payload } } }"""
CASCADE = """mutation($id: ID!) {
  cascadeRetract(id: $id, author: "user:t") { retracted events { id type payload } } }"""


@dataclass(frozen=True)
class Write:
    name: str
    query: str
    vars: Callable[[World], dict[str, Any]]
    #: the error code each caller kind gets
    expect: dict[str, str]
    #: who may do it (the allowed path)
    allowed: str = "writer"


def refused(other: str, reader: str) -> dict[str, str]:
    return {"nobody": "UNAUTHENTICATED", "other": other, "reader": reader}


MNF, ENF, FORBIDDEN = "MEMORY_NOT_FOUND", "EDGE_NOT_FOUND", "FORBIDDEN"

#: Every mutation on tenant a's data.
WRITES = [
    Write("createItem", CREATE_ITEM, lambda w: {"input": draft(A + "new")},
          refused(FORBIDDEN, FORBIDDEN)),
    Write("createItems", CREATE_ITEMS,
          lambda w: {"inputs": [draft(A + "new"), draft(A + "new", parents=[w["a1"]])]},
          refused(FORBIDDEN, FORBIDDEN)),
    Write("updateItem", UPDATE_ITEM, lambda w: {"id": w["a2"], "patch": {"authority": 0.9}},
          refused(MNF, FORBIDDEN)),
    Write("updateItem parents", UPDATE_ITEM,
          lambda w: {"id": w["a2"], "patch": {"parents": [w["a3"]]}},
          refused(MNF, FORBIDDEN)),
    Write("updateItem scope", UPDATE_ITEM,
          lambda w: {"id": w["a2"], "patch": {"scope": A + "moved"}},
          refused(MNF, FORBIDDEN)),
    Write("retractItem", RETRACT_ITEM, lambda w: {"id": w["a2"]}, refused(MNF, FORBIDDEN)),
    Write("createEdge", CREATE_EDGE, lambda w: {"input": edge_draft(w["a1"], w["a3"])},
          refused(MNF, FORBIDDEN)),
    Write("updateEdge", UPDATE_EDGE, lambda w: {"id": w["ea"], "patch": {"weight": 0.3}},
          refused(ENF, FORBIDDEN)),
    Write("updateEdge kind", UPDATE_EDGE, lambda w: {"id": w["ea"], "patch": {"kind": "REFUTES"}},
          refused(ENF, FORBIDDEN)),
    Write("retractEdge", RETRACT_EDGE, lambda w: {"id": w["ea"]}, refused(ENF, FORBIDDEN)),
    Write("markContradiction", MARK_CONTRADICTION, lambda w: {"a": w["a2"], "b": w["a1"]},
          refused(MNF, FORBIDDEN)),
    Write("resolveContradiction", RESOLVE, lambda w: {"w": w["a1"], "l": w["a3"]},
          refused(MNF, FORBIDDEN)),
    Write("markAlias", MARK_ALIAS, lambda w: {"a": w["a1"], "b": w["a2"]},
          refused(MNF, FORBIDDEN)),
    Write("cascadeRetract", CASCADE, lambda w: {"id": w["a1"]}, refused(MNF, FORBIDDEN)),
]  # fmt: skip


def across(writer: str | None, reader: str, mixed: str, other: str | None) -> dict[str, str]:
    """The codes of callers who may write (or read) one side only; None: that
    caller may do it."""
    kinds = {"writer": writer, "reader": reader, "mixed": mixed, "other": other}
    return {kind: code for kind, code in kinds.items() if code is not None}


#: Mutations that touch both tenants (two ends, or a move between scopes),
#: by callers who may write one side only; ``root`` may do them all. For
#: ``writer`` and ``reader`` tenant b does not exist, for ``other`` tenant a;
#: ``mixed`` reads both and writes tenant a only.
CROSS = [
    Write("updateItem moves a1 to b", UPDATE_ITEM,
          lambda w: {"id": w["a1"], "patch": {"scope": B + "moved"}},
          across(FORBIDDEN, FORBIDDEN, FORBIDDEN, MNF), "root"),
    Write("updateItem moves bx to a", UPDATE_ITEM,
          lambda w: {"id": w["bx"], "patch": {"scope": A + "moved"}},
          across(MNF, MNF, FORBIDDEN, FORBIDDEN), "root"),
    Write("createItems in a and b", CREATE_ITEMS,
          lambda w: {"inputs": [draft(A + "new"), draft(B + "new")]},
          across(FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN), "root"),
    Write("createEdge a1 to bx", CREATE_EDGE, lambda w: {"input": edge_draft(w["a1"], w["bx"])},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("createEdge bx to a1", CREATE_EDGE, lambda w: {"input": edge_draft(w["bx"], w["a1"])},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("updateEdge a1 to bx", UPDATE_EDGE, lambda w: {"id": w["ex"], "patch": {"weight": 0.1}},
          across(ENF, ENF, FORBIDDEN, ENF), "root"),
    Write("retractEdge a1 to bx", RETRACT_EDGE, lambda w: {"id": w["ex"]},
          across(ENF, ENF, FORBIDDEN, ENF), "root"),
    Write("markContradiction a1 bx", MARK_CONTRADICTION, lambda w: {"a": w["a1"], "b": w["bx"]},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("resolveContradiction a3 over bx", RESOLVE, lambda w: {"w": w["a3"], "l": w["bx"]},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("resolveContradiction bx over a3", RESOLVE, lambda w: {"w": w["bx"], "l": w["a3"]},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("markAlias a1 bx", MARK_ALIAS, lambda w: {"a": w["a1"], "b": w["bx"]},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    Write("markAlias bx a1", MARK_ALIAS, lambda w: {"a": w["bx"], "b": w["a1"]},
          across(MNF, MNF, FORBIDDEN, MNF), "root"),
    # the writer's cascade from a1 succeeds without bx: see the test below;
    # tenant b may cascade from bx: ax, which depends on it, is not its own
    Write("cascadeRetract a1 (bx depends on it)", CASCADE, lambda w: {"id": w["a1"]},
          across(None, FORBIDDEN, FORBIDDEN, MNF), "root"),
    Write("cascadeRetract bx (ax depends on it)", CASCADE, lambda w: {"id": w["bx"]},
          across(MNF, MNF, FORBIDDEN, None), "root"),
]  # fmt: skip


async def check_refused(api: Api, c: Callers, w: World, op: Write, kind: str) -> None:
    """The caller gets the code and changes nothing; a not-found is the very
    error a never-created id gets; then the allowed caller succeeds."""
    snapshot = await api.snapshot()
    status, body = await send(c[kind], op.query, op.vars(w))
    assert codes(body) == [op.expect[kind]], body
    assert body.get("data") is None, body
    if kind == "nobody":
        assert status == 401
    else:
        ghost = w.ghost(SEES[kind])
        _, missing = await send(c[kind], op.query, op.vars(ghost))
        assert errors(body, w) == errors(missing, ghost)
    assert await api.snapshot() == snapshot, "a refused mutation changed the graph"

    await answer(c[op.allowed], op.query, op.vars(w))
    assert await api.snapshot() != snapshot, "the allowed path changed nothing"


@pytest.mark.parametrize("kind", ["nobody", "other", "reader"])
@pytest.mark.parametrize("op", WRITES, ids=lambda o: o.name)
async def test_write(api: Api, op: Write, kind: str) -> None:
    c = callers(api)
    w = World()
    await build_b(c.root, w)
    await build_a(c.root, w)
    await check_refused(api, c, w, op, kind)


@pytest.mark.parametrize(
    ("op", "kind"),
    [pytest.param(op, kind, id=f"{op.name}-{kind}") for op in CROSS for kind in op.expect],
)
async def test_write_across_tenants(api: Api, op: Write, kind: str) -> None:
    c = callers(api)
    w = World()
    await build_b(c.root, w)
    await build_a(c.root, w)
    await build_links(c.root, w)
    await check_refused(api, c, w, op, kind)


#: Tenant b's whole view.
B_VIEW = [
    f"{{ items(limit: 50, includeRetracted: true) {{ {ITEM} }} }}",
    f"{{ edges(filter: {{activeOnly: false}}) {{ {EDGE} }} }}",
    "{ events { type payload } }",
    f"{{ staleItems(limit: 50) {{ item {{ {ITEM} }} missingParents }} }}",
]


async def test_cascade_leaves_what_the_caller_cannot_read(api: Api) -> None:
    """Tenant a's cascade from a1 (a1 ← a2, a1 ← b1 ← a3, a2 ← b2) retracts
    a1 and a2 only: it does not walk through b1 and b2, which it cannot read,
    says nothing about them, and they (and a3 below b1) stay live."""
    c = callers(api)
    w = World()
    specs = [("a1", A + "notes", []), ("a2", A + "notes", ["a1"]), ("b1", B + "notes", ["a1"]),
             ("a3", A + "notes", ["b1"]), ("b2", B + "notes", ["a2"])]  # fmt: skip
    await c.root.ok(CREATE_ITEMS, inputs=items(w, *specs))
    b_view = [await answer(c.other, query, {}) for query in B_VIEW]

    done = await answer(c.writer, CASCADE, {"id": w["a1"]})
    assert done["cascadeRetract"]["retracted"] == [w["a2"], w["a1"]]
    assert len(done["cascadeRetract"]["events"]) == 2
    text = json.dumps(done)
    assert not [i for i in w.of("b") if i in text]
    assert B not in text

    live = "query($id: ID!) { item(id: $id) { id retracted } }"
    for name, alive in {"a1": False, "a2": False, "b1": True, "b2": True, "a3": True}.items():
        got = await answer(c.root, live, {"id": w[name]})
        assert (got["item"] is not None) == alive, name
    # tenant b's view did not change: its items, its events, and what is
    # stale for it (a1 and a2 were already missing for it)
    assert [await answer(c.other, query, {}) for query in B_VIEW] == b_view
