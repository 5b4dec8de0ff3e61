"""Bad input: a clear error with a code, the graph and event log unchanged,
the service alive afterwards. Every new operation gets a test here."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ApiFactory
from tests.support import CREATE_ITEM, ENTITIES, MISSING, Api, reference

CREATE_ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
EDGE = "mutation($e: EdgeInput!) { createEdge(input: $e) { edge { edgeId } } }"
FIND = "query($f: MemoryFilter) { items(filter: $f) { id } }"
FIND_IDS = FIND
UPDATE = """mutation($id: ID!, $p: MemoryItemPatch!) {
  updateItem(id: $id, patch: $p, author: "u") { item { id } } }"""


def edge_draft(a: str, b: str, kind: str = "SUPPORTS") -> dict[str, Any]:
    return {"from": a, "to": b, "kind": kind, "author": "u", "sourceKind": "o", "authority": 0.5}


def draft(**fields: Any) -> dict[str, Any]:
    return {"scope": "s", "kind": "k", "content": {"a": 1}, "author": "u", "sourceKind": "o",
            "authority": 0.5, **fields}  # fmt: skip


async def test_invalid_items_change_nothing(api: Api) -> None:
    existing = await api.create()
    before = await api.snapshot()
    bad: list[dict[str, Any]] = [
        {"id": "not-a-uuid"},
        {"authority": 1.01}, {"authority": -0.1}, {"conviction": 2.0}, {"importance": -1.0},
        {"content": "plain text"}, {"content": [1, 2]}, {"content": 3}, {"content": None},
        {"meta": "x"}, {"meta": [1]}, {"parents": ["nope"]}, {"intentId": "x"},
        {"taskId": "01900000"}, {"scope": ""}, {"author": "a\u0000b"}, {"kind": "x" * 600},
    ]  # fmt: skip
    for change in bad:
        # a valid item first: the whole batch must be refused, not half of it
        codes = await api.codes(CREATE_ITEMS, i=[draft(), draft(**change)])
        assert codes == ["BAD_USER_INPUT"], change
    # a UUID of another version carries no creation time
    v4 = draft(id="01900000-0000-4000-8000-000000000000")
    assert await api.codes(CREATE_ITEMS, i=[draft(), v4]) == ["INVALID_TIMESTAMP"]
    for patch in ({"authority": 3.0}, {"content": "x"}, {"parents": ["bad"]}, {"scope": ""}):
        assert await api.codes(UPDATE, id=existing["id"], p=patch) == ["BAD_USER_INPUT"], patch
    assert await api.codes(UPDATE, id="bad", p={"authority": 0.1}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_literal_json_and_enum_mistakes(api: Api) -> None:
    before = await api.snapshot()
    literal = """mutation { createItem(input: {scope: "s", kind: "k", content: NOT_JSON,
      author: "a", sourceKind: "o", authority: 0.5}) { item { id } } }"""
    assert await api.codes(literal) == ["BAD_USER_INPUT"]
    assert await api.codes('{ relatedItems(id: "x", direction: UP) { id } }') == ["BAD_USER_INPUT"]
    assert await api.codes("{ items(sort: [{field: AUTHORITY, order: UP}]) { id } }") == [
        "BAD_USER_INPUT"
    ]
    assert await api.codes("{ items { nope } }") == ["BAD_USER_INPUT"]
    assert await api.codes("{ items { id ") == ["BAD_USER_INPUT"]
    missing_fields = await api.codes(CREATE_ITEM, input={"scope": "s"})
    assert set(missing_fields) == {"BAD_USER_INPUT"}
    assert len(missing_fields) == 5
    assert await api.snapshot() == before


async def test_merged_content_keeps_the_size_limit(make_api: ApiFactory) -> None:
    api = await make_api(max_content_bytes=60)
    item = await api.create(content={"a": "x" * 30})
    before = await api.snapshot()
    codes = await api.codes(UPDATE, id=item["id"], p={"content": {"b": "y" * 30}})
    assert codes == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


# ---------------------------------------------------------------- full matches


async def test_trailing_whitespace_never_reaches_the_engine(api: Api) -> None:
    """An id ending in a newline once passed `re.match(…$)` and crashed FalkorDB
    (its unique-constraint check segfaults on values with edge whitespace)."""
    item = await api.create()
    before = await api.snapshot()
    ids = [f"01900000-0000-7000-8000-000000000001{tail}" for tail in ("\n", " ", "\t", "\r\n")]
    ids.append("\n01900000-0000-7000-8000-000000000001")
    for bad in ids:
        assert await api.codes(CREATE_ITEMS, i=[draft(id=bad)]) == ["BAD_USER_INPUT"], bad
        assert await api.codes(UPDATE, id=bad, p={"authority": 0.1}) == ["BAD_USER_INPUT"]
        assert await api.codes(EDGE, e=edge_draft(item["id"], bad)) == ["BAD_USER_INPUT"]
    for kind in ("SUPPORTS\n", "SUPPORTS ", " SUPPORTS", "SUP\nPORTS"):
        assert await api.codes(EDGE, e=edge_draft(item["id"], item["id"], kind)) == [
            "BAD_USER_INPUT"
        ], kind
    for path in ("agent_id\n", "a.b\n"):
        assert await api.codes(FIND, f={"metaHas": [path]}) == ["BAD_USER_INPUT"]
        assert await api.codes(FIND, f={"meta": {path: 1}}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
    await api.alive()


# ---------------------------------------------------------------- timestamps


async def test_ids_past_year_9999_are_refused(api: Api) -> None:
    before = await api.snapshot()
    late = "ffffffff-ffff-7fff-bfff-ffffffffffff"
    assert await api.codes(CREATE_ITEMS, i=[draft(), draft(id=late)]) == ["INVALID_TIMESTAMP"]
    assert await api.snapshot() == before
    await api.alive()


async def test_reads_survive_any_stored_time(api: Api) -> None:
    """A time no datetime can hold, already stored, is read back clamped."""
    item = await api.create()
    await api.graph.store.write(
        "MATCH (n:Item {id: $id}) SET n.created_at = $t", {"id": item["id"], "t": (1 << 48) - 1}
    )
    got = await api.ok("{ items { id createdAt } }")
    assert got["items"] == [{"id": item["id"], "createdAt": "9999-12-31T23:59:59.999000+00:00"}]


# ---------------------------------------------------------------- bodies


async def test_malformed_bodies_get_graphql_shaped_400s(api: Api) -> None:
    before = await api.snapshot()
    json_type = {"content-type": "application/json"}
    bodies = [b"null", b"5", b'"text"', b"[]", b"true", b"{", b"", b"\xff\xfe",
              b'[{"query": "{ items { id } }"}]', b'{"query": 5}', b"{}",
              b'{"query": "{ items { id } }", "variables": [1]}',
              b'{"query": "{ items { id } }", "extensions": 3}',
              b'{"query": "{ items { id } }", "operationName": 7}',
              b"[" * 5000 + b"]" * 5000, b'{"query": NaN}']  # fmt: skip
    for body in bodies:
        response = await api.client.post("/graphql", content=body, headers=json_type)
        assert response.status_code == 400, body[:40]
        assert response.headers["content-type"].startswith("application/json")
        errors = response.json()["errors"]
        assert [e["extensions"]["code"] for e in errors] == ["BAD_USER_INPUT"], body[:40]
    wrong_type = await api.client.post(
        "/graphql", content=b"{}", headers={"content-type": "text/x"}
    )
    assert wrong_type.status_code == 400
    assert wrong_type.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    put = await api.client.put("/graphql", content=b"{}", headers=json_type)
    assert put.status_code == 405
    assert put.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    bad_get = await api.client.get(
        "/graphql", params={"query": "{ items { id } }", "variables": "x"}
    )
    assert bad_get.status_code == 400
    assert bad_get.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert await api.snapshot() == before
    await api.alive()


# ---------------------------------------------------------------- numbers


async def test_integers_are_kept_exactly_or_refused(api: Api) -> None:
    edge = [(1 << 63) - 1, -(1 << 63), 1 << 53, (1 << 53) + 1]
    item = await api.create(content={"n": edge}, meta={"big": (1 << 63) - 1})
    got = await api.ok("query($id: ID!) { item(id: $id) { content meta } }", id=item["id"])
    assert got["item"] == {"content": {"n": edge}, "meta": {"big": (1 << 63) - 1}}
    found = await api.ok(FIND_IDS, f={"meta": {"big": (1 << 63) - 1}})
    assert [x["id"] for x in found["items"]] == [item["id"]]
    before = await api.snapshot()
    for big in (1 << 63, -(1 << 63) - 1, (1 << 64) - 1, 1 << 64, 10**30):
        raw = (
            b'{"query": "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) '
            b'{ items { id } } }", "variables": {"i": [{"scope": "s", "kind": "k", '
            b'"content": {"n": ' + str(big).encode() + b'}, "author": "u", "sourceKind": "o", '
            b'"authority": 0.5}]}}'
        )
        response = await api.client.post(
            "/graphql", content=raw, headers={"content-type": "application/json"}
        )
        codes = [e["extensions"]["code"] for e in response.json()["errors"]]
        assert codes == ["BAD_USER_INPUT"], big
        assert await api.codes(CREATE_ITEMS, i=[draft(meta={"n": big})]) == ["BAD_USER_INPUT"]
        literal = (
            f'mutation {{ createItem(input: {{scope: "s", kind: "k", content: {{n: {big}}}, '
            'author: "u", sourceKind: "o", authority: 0.5}) { item { id } } }'
        )
        assert await api.codes(literal) == ["BAD_USER_INPUT"], big
    assert await api.snapshot() == before


async def test_strings_the_engine_cannot_take(api: Api) -> None:
    """NUL in a meta string stays in the JSON but is not filterable; a filter on
    one is refused; every other odd string round-trips."""
    item = await api.create(meta={"note": "a\u0000b", "ok": "line\nbreak"}, content={"t": "\u0000"})
    got = await api.ok("query($id: ID!) { item(id: $id) { content meta } }", id=item["id"])
    assert got["item"] == {
        "content": {"t": "\u0000"},
        "meta": {"note": "a\u0000b", "ok": "line\nbreak"},
    }
    assert await api.codes(FIND, f={"meta": {"note": "a\u0000b"}}) == ["BAD_USER_INPUT"]
    assert await api.codes(FIND, f={"scope": "a\u0000"}) == ["BAD_USER_INPUT"]
    found = await api.ok(FIND_IDS, f={"meta": {"ok": "line\nbreak"}})
    assert [x["id"] for x in found["items"]] == [item["id"]]


async def test_reasons_and_bases_are_checked(api: Api) -> None:
    item = await api.create()
    before = await api.snapshot()
    retract = """mutation($id: ID!, $r: String) { retractItem(id: $id, author: "u", reason: $r)
      { events { id } } }"""
    assert await api.codes(retract, id=item["id"], r="x" * 5000) == ["BAD_USER_INPUT"]
    assert await api.codes(retract, id=item["id"], r="a\u0000") == ["BAD_USER_INPUT"]
    basis = """mutation($id: ID!, $b: JSON) { updateItem(id: $id, patch: {authority: 0.1},
      author: "u", basis: $b) { item { id } } }"""
    assert await api.codes(basis, id=item["id"], b={"n": 1 << 70}) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


@pytest.mark.parametrize(
    ("representation", "says"),
    [
        ("MemoryItem", "representations[1] must be an object"),
        ({"id": MISSING}, "representations[1].__typename must name an entity type"),
        ({"__typename": "Project", "id": "p"}, "must name an entity type: Edge, Intent"),
        ({"__typename": "Query", "id": "p"}, "must name an entity type"),
        ({"__typename": "MemoryItem"}, "representations[1].id must be an id"),
        ({"__typename": "MemoryItem", "id": 7}, "representations[1].id must be an id"),
        ({"__typename": "Edge", "id": MISSING}, "representations[1].edgeId must be an id"),
        ({"__typename": "MemoryItem", "id": "x" * 129}, "must be an id of 1 to 128"),
        ({"__typename": "MemoryItem", "id": ""}, "must be an id of 1 to 128"),
    ],
)
async def test_a_malformed_federation_reference_is_bad_user_input(
    make_api: ApiFactory, representation: Any, says: str
) -> None:
    sub = await make_api(federation=True)
    # a good reference first: the whole call is refused, not half of it
    body = await sub.run(ENTITIES, {"r": [reference(MISSING), representation]})
    assert body["data"] is None
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_USER_INPUT"]
    assert says in body["errors"][0]["message"]
    await sub.alive()
