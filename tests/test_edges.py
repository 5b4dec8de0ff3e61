"""Typed edges: create, update (including a kind change), retract, and reads."""

from __future__ import annotations

from typing import Any

from tests.support import Api

EDGE_FIELDS = "edgeId from to kind weight author sourceKind authority active meta"
CREATE = f"""
mutation($input: EdgeInput!) {{
  createEdge(input: $input) {{ edge {{ {EDGE_FIELDS} }} events {{ type payload }} }}
}}
"""
UPDATE = f"""
mutation($id: ID!, $patch: EdgePatch!) {{
  updateEdge(edgeId: $id, patch: $patch, author: "user:e", reason: "r") {{
    edge {{ {EDGE_FIELDS} }} events {{ type payload }}
  }}
}}
"""
RETRACT = (
    'mutation($id: ID!) { retractEdge(edgeId: $id, author: "user:e") { events { type payload } } }'
)
GET = (
    f"query($id: ID!) {{ edge(edgeId: $id) {{ {EDGE_FIELDS} fromItem {{ id }} toItem {{ id }} }} }}"
)
EDGES = f"query($f: EdgeFilter) {{ edges(filter: $f) {{ {EDGE_FIELDS} }} }}"


async def edge(api: Api, a: str, b: str, **fields: Any) -> dict[str, Any]:
    spec = {"from": a, "to": b, "kind": "SUPPORTS", "author": "agent:r",
            "sourceKind": "agent_inferred", "authority": 0.7, **fields}  # fmt: skip
    created: dict[str, Any] = (await api.ok(CREATE, input=spec))["createEdge"]["edge"]
    return created


async def test_create_and_read_edge(api: Api) -> None:
    a, b = await api.create(), await api.create()
    data = await api.ok(CREATE, input={
        "from": a["id"], "to": b["id"], "kind": "SUPPORTS", "author": "agent:r",
        "sourceKind": "agent_inferred", "authority": 0.7, "weight": 0.4, "meta": {"why": "x"},
    })  # fmt: skip
    e = data["createEdge"]["edge"]
    assert (e["from"], e["to"], e["kind"], e["active"], e["weight"]) == (
        a["id"],
        b["id"],
        "SUPPORTS",
        True,
        0.4,
    )
    # MemEX's lifecycle event, in MemEX's namespace for edges: "memory"
    assert data["createEdge"]["events"] == [{"type": "edge.created", "payload": {
        "namespace": "memory", "type": "edge.created", "cause_type": "edge.create",
        "edge": {"edge_id": e["edgeId"], "from": a["id"], "to": b["id"], "kind": "SUPPORTS",
                 "author": "agent:r", "source_kind": "agent_inferred", "authority": 0.7,
                 "active": True, "weight": 0.4, "meta": {"why": "x"}}}}]  # fmt: skip
    got = (await api.ok(GET, id=e["edgeId"]))["edge"]
    assert got["fromItem"] == {"id": a["id"]}
    assert got["toItem"] == {"id": b["id"]}


async def test_self_edge_is_allowed(api: Api) -> None:
    a = await api.create()
    e = await edge(api, a["id"], a["id"], kind="CONTRADICTS")
    items = await api.ok("query($id: ID!) { item(id: $id) { edges { edgeId } } }", id=a["id"])
    assert items["item"]["edges"] == [{"edgeId": e["edgeId"]}]
    related = await api.ok("query($id: ID!) { relatedItems(id: $id) { id } }", id=a["id"])
    assert related["relatedItems"] == [{"id": a["id"]}]


async def test_update_edge_replaces_meta_and_changes_kind(api: Api) -> None:
    a, b = await api.create(), await api.create()
    e = await edge(api, a["id"], b["id"], meta={"x": 1})
    data = await api.ok(UPDATE, id=e["edgeId"], patch={"meta": {"y": 2}, "weight": 0.9})
    assert data["updateEdge"]["edge"]["meta"] == {"y": 2}  # replaced, as MemEX does
    assert data["updateEdge"]["events"][0]["payload"] == {
        "namespace": "memory", "type": "edge.updated", "cause_type": "edge.update",
        "edge": {**memex_edge(e), "meta": {"y": 2}, "weight": 0.9}}  # fmt: skip
    data = await api.ok(UPDATE, id=e["edgeId"], patch={"kind": "ABOUT", "active": False})
    moved = data["updateEdge"]["edge"]
    assert (moved["kind"], moved["active"], moved["weight"]) == ("ABOUT", False, 0.9)
    assert (await api.ok(GET, id=e["edgeId"]))["edge"]["kind"] == "ABOUT"
    assert (await api.ok(EDGES, f={"kind": "SUPPORTS", "activeOnly": False}))["edges"] == []
    assert [x["edgeId"] for x in (await api.ok(EDGES, f={"activeOnly": False}))["edges"]] == [
        e["edgeId"]
    ]


async def test_retract_edge(api: Api) -> None:
    a, b = await api.create(), await api.create()
    e = await edge(api, a["id"], b["id"])
    events = (await api.ok(RETRACT, id=e["edgeId"]))["retractEdge"]["events"]
    payload = {"namespace": "memory", "type": "edge.retracted", "cause_type": "edge.retract",
               "edge": memex_edge(e)}  # fmt: skip
    assert events == [{"type": "edge.retracted", "payload": payload}]
    assert (await api.ok(GET, id=e["edgeId"]))["edge"] is None
    before = await api.snapshot()
    assert await api.codes(RETRACT, id=e["edgeId"]) == ["EDGE_NOT_FOUND"]
    assert await api.codes(UPDATE, id=e["edgeId"], patch={"weight": 1.0}) == ["EDGE_NOT_FOUND"]
    spec = {"edgeId": e["edgeId"], "from": a["id"], "to": b["id"], "kind": "SUPPORTS",
            "author": "x", "sourceKind": "y", "authority": 0.1}  # fmt: skip
    assert await api.codes(CREATE, input=spec) == ["DUPLICATE_EDGE"]
    assert await api.snapshot() == before


async def test_edge_errors_change_nothing(api: Api) -> None:
    a, b = await api.create(), await api.create()
    e = await edge(api, a["id"], b["id"])
    gone = await api.create()
    await api.ok(
        'mutation($id: ID!) { retractItem(id: $id, author: "x") { events { id } } }', id=gone["id"]
    )
    before = await api.snapshot()
    base = {"from": a["id"], "to": b["id"], "kind": "SUPPORTS", "author": "x",
            "sourceKind": "y", "authority": 0.5}  # fmt: skip
    cases: list[tuple[dict[str, Any], str]] = [
        ({"edgeId": e["edgeId"]}, "DUPLICATE_EDGE"),
        ({"to": "01900000-0000-7000-8000-000000000001"}, "MEMORY_NOT_FOUND"),
        ({"from": gone["id"]}, "MEMORY_NOT_FOUND"),
        ({"kind": "supports"}, "BAD_USER_INPUT"),
        ({"kind": "A-B"}, "BAD_USER_INPUT"),
        ({"kind": "X" * 65}, "BAD_USER_INPUT"),
        ({"kind": "PARENT"}, "BAD_USER_INPUT"),
        ({"kind": "SUPPORTS]->() DETACH DELETE n //"}, "BAD_USER_INPUT"),
        ({"authority": 1.5}, "BAD_USER_INPUT"),
        ({"from": "not-a-uuid"}, "BAD_USER_INPUT"),
        ({"meta": "text"}, "BAD_USER_INPUT"),
    ]
    for change, code in cases:
        assert await api.codes(CREATE, input={**base, **change}) == [code], change
    assert await api.codes(UPDATE, id=e["edgeId"], patch={"kind": "bad kind"}) == ["BAD_USER_INPUT"]
    assert await api.codes(UPDATE, id=e["edgeId"], patch={"authority": -0.1}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_edges_filter_and_directions(api: Api) -> None:
    a, b, c = await api.create(), await api.create(), await api.create()
    ab = await edge(api, a["id"], b["id"], weight=0.2)
    ac = await edge(api, a["id"], c["id"], kind="ABOUT", weight=0.8)
    cb = await edge(api, c["id"], b["id"], active=False)

    async def ids(f: dict[str, Any]) -> set[str]:
        return {x["edgeId"] for x in (await api.ok(EDGES, f=f))["edges"]}

    assert await ids({}) == {ab["edgeId"], ac["edgeId"]}
    assert await ids({"activeOnly": False}) == {ab["edgeId"], ac["edgeId"], cb["edgeId"]}
    assert await ids({"from": a["id"]}) == {ab["edgeId"], ac["edgeId"]}
    assert await ids({"from": a["id"], "to": c["id"]}) == {ac["edgeId"]}
    assert await ids({"to": b["id"], "activeOnly": False}) == {ab["edgeId"], cb["edgeId"]}
    assert await ids({"kind": "ABOUT"}) == {ac["edgeId"]}
    assert await ids({"minWeight": 0.5}) == {ac["edgeId"]}
    q = """query($id: ID!) { item(id: $id) {
      out: edges(direction: FROM) { edgeId } in: edges(direction: TO) { edgeId }
      about: edges(kind: "ABOUT") { edgeId } all: edges(activeOnly: false) { edgeId } } }"""
    got = (await api.ok(q, id=c["id"]))["item"]
    assert got["out"] == []
    assert got["in"] == [{"edgeId": ac["edgeId"]}]
    assert got["about"] == [{"edgeId": ac["edgeId"]}]
    assert {x["edgeId"] for x in got["all"]} == {ac["edgeId"], cb["edgeId"]}
    rel = "query($id: ID!, $d: Direction) { relatedItems(id: $id, direction: $d) { id } }"
    assert (await api.ok(rel, id=a["id"], d="FROM"))["relatedItems"] == sorted(
        [{"id": b["id"]}, {"id": c["id"]}], key=lambda x: x["id"]
    )
    assert (await api.ok(rel, id=a["id"], d="TO"))["relatedItems"] == []
    assert (await api.ok(rel, id=b["id"], d="BOTH"))["relatedItems"] == [{"id": a["id"]}]


def memex_edge(e: dict[str, Any]) -> dict[str, Any]:
    """MemEX's JSON for an edge read over GraphQL (absent optionals left out)."""
    doc = {"edge_id": e["edgeId"], "from": e["from"], "to": e["to"], "kind": e["kind"],
           "weight": e["weight"], "author": e["author"], "source_kind": e["sourceKind"],
           "authority": e["authority"], "active": e["active"], "meta": e["meta"]}  # fmt: skip
    return {k: v for k, v in doc.items() if v is not None}
