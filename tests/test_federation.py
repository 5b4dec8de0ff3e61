"""memexd as a Federation 2 subgraph, in process: the exported SDL, entity
references through the loaders and the grants, and bad representations.
The real gateway is in ``test_federation_gateway.py``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from graphql import build_schema, specified_directives
from memexd.schema.build import build_schema as plain_schema
from memexd.schema.build import sdl, subgraph_sdl

from tests.conftest import ApiFactory
from tests.support import ENTITIES, MISSING, Api, reference

ROOT = Path(__file__).resolve().parents[1]

EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
INTENT = """mutation { createIntent(input: {label: "ship", priority: 0.5, owner: "user:o"})
  { intent { id } } }"""
INTENT_IN = """mutation($s: String!) { createIntent(input: {label: "ship", priority: 0.5,
  owner: "user:o", scope: $s}) { intent { id } } }"""
TASK = """mutation($i: ID!) { createTask(input: {intentId: $i, action: "write", priority: 0.5})
  { task { id } } }"""


@pytest.fixture
async def sub(make_api: ApiFactory) -> Api:
    return await make_api(federation=True)


def test_exported_subgraph_sdl_is_current() -> None:
    exported = (ROOT / "schema" / "subgraph.graphql").read_text()
    assert exported == subgraph_sdl(), (
        "stale: run `memexd export-schema --subgraph --output schema/subgraph.graphql`"
    )


def test_the_subgraph_declares_its_entities_and_hides_the_operator_tools() -> None:
    text = subgraph_sdl()
    assert text.startswith(
        'schema @link(url: "https://specs.apollo.dev/federation/v2.11", '
        'import: ["@inaccessible", "@key"])'
    )
    for declared in ('type MemoryItem @key(fields: "id")', 'type Edge @key(fields: "edgeId")',
                     'type Intent @key(fields: "id")', 'type Task @key(fields: "id")'):  # fmt: skip
        assert declared in text
    assert "union _Entity = Edge | Intent | MemoryItem | Task" in text
    hidden = [line.strip() for line in text.splitlines() if "@inaccessible" in line]
    assert hidden[1:] == ["): ImportReport! @inaccessible", "): ReplayResult! @inaccessible",
                          "): ReplayResult! @inaccessible"]  # fmt: skip


def test_the_plain_schema_has_nothing_of_federation() -> None:
    served = plain_schema()._schema
    assert not {"_Any", "_Entity", "_Service", "_FieldSet"} & set(served.type_map)
    assert {"_entities", "_service"}.isdisjoint(served.query_type.fields)  # type: ignore[union-attr]
    assert [d.name for d in served.directives] == [d.name for d in specified_directives]
    assert "@key" not in sdl()
    assert "@inaccessible" not in sdl()
    assert not {"_Any", "_Entity", "_FieldSet"} & set(build_schema(sdl()).type_map)


async def test_the_plain_server_answers_no_federation_fields(api: Api) -> None:
    body = await api.run("{ _service { sdl } }")
    assert body["errors"][0]["message"] == "Cannot query field '_service' on type 'Query'."
    data = await api.ok("{ __schema { directives { name } types { name } } }")
    directives = {d["name"] for d in data["__schema"]["directives"]}
    assert {"key", "link", "inaccessible", "shareable"}.isdisjoint(directives)
    assert {"include", "skip", "deprecated"} <= directives
    assert not {"_Any", "_Entity", "_Service", "_FieldSet"} & {
        t["name"] for t in data["__schema"]["types"]}  # fmt: skip


async def test_service_sdl_is_the_exported_subgraph_sdl(sub: Api) -> None:
    data = await sub.ok("{ _service { sdl } }")
    assert data["_service"]["sdl"] + "\n" == (ROOT / "schema" / "subgraph.graphql").read_text()


async def test_every_entity_type_resolves_by_its_key_in_input_order(sub: Api) -> None:
    a, b = await sub.create(content={"n": "a"}), await sub.create(content={"n": "b"})
    edge = (await sub.ok(EDGE, a=a["id"], b=b["id"]))["createEdge"]["edge"]["edgeId"]
    intent = (await sub.ok(INTENT))["createIntent"]["intent"]["id"]
    task = (await sub.ok(TASK, i=intent))["createTask"]["task"]["id"]
    refs = [reference(b["id"]), {"__typename": "Task", "id": task}, reference(a["id"]),
            {"__typename": "Edge", "edgeId": edge}, {"__typename": "Intent", "id": intent},
            reference(MISSING), {"__typename": "Edge", "edgeId": MISSING}]  # fmt: skip
    data = await sub.ok(ENTITIES, r=refs)
    assert data["_entities"] == [
        {"__typename": "MemoryItem", "id": b["id"], "content": {"n": "b"}},
        {"__typename": "Task", "id": task, "action": "write"},
        {"__typename": "MemoryItem", "id": a["id"], "content": {"n": "a"}},
        {"__typename": "Edge", "edgeId": edge, "kind": "SUPPORTS"},
        {"__typename": "Intent", "id": intent, "label": "ship"},
        None,
        None,
    ]


async def test_thousand_references_cost_one_read_per_entity_type(sub: Api) -> None:
    rows = [{"scope": "s", "kind": "k", "content": {"i": i}, "author": "a",
             "sourceKind": "o", "authority": 0.5} for i in range(1000)]  # fmt: skip
    made = await sub.ok(
        "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }", i=rows
    )
    ids = [item["id"] for item in made["createItems"]["items"]]
    intent = (await sub.ok(INTENT))["createIntent"]["intent"]["id"]
    sub.store.reads = 0
    data = await sub.ok(ENTITIES, r=[reference(i) for i in ids])
    assert sub.store.reads == 1
    assert [e["content"] for e in data["_entities"]] == [{"i": i} for i in range(1000)]
    sub.store.reads = 0
    mixed = [reference(i) for i in ids[:500]] + [{"__typename": "Intent", "id": intent}] * 500
    data = await sub.ok(ENTITIES, r=mixed)
    assert sub.store.reads == 2  # one per type, whatever the number of references
    assert [e["__typename"] for e in data["_entities"]] == ["MemoryItem"] * 500 + ["Intent"] * 500
    sub.store.reads = 0
    nested = "query($r: [_Any!]!) { _entities(representations: $r) { ... on MemoryItem { id "
    nested += "parentItems { id } children { id } } } }"
    assert len((await sub.ok(nested, r=[reference(i) for i in ids]))["_entities"]) == 1000
    assert sub.store.reads == 2  # the items, then one batch of children (no parents listed)


async def test_unreadable_retracted_and_missing_references_all_resolve_to_null(
    sub: Api,
) -> None:
    mine = await sub.create(scope="tenant:a/notes")
    theirs = await sub.create(scope="tenant:b/notes")
    gone = await sub.create(scope="tenant:a/notes")
    await sub.ok('mutation($id: ID!) { retractItem(id: $id, author: "a", reason: "r") '
                 "{ events { type } } }", id=gone["id"])  # fmt: skip
    edge = (await sub.ok(EDGE, a=mine["id"], b=theirs["id"]))["createEdge"]["edge"]["edgeId"]
    plans = {}
    for tenant in ("a", "b"):
        made = await sub.ok(INTENT_IN, s=f"tenant:{tenant}/")
        plans[tenant] = made["createIntent"]["intent"]["id"]
        task = (await sub.ok(TASK, i=plans[tenant]))["createTask"]["task"]["id"]
        plans[f"{tenant}-task"] = task
    reader = sub.with_grants("read:tenant:a/")
    ids = [mine["id"], theirs["id"], gone["id"], MISSING, "not-a-uuid"]
    refs = [reference(i) for i in ids]
    body = await reader.run(ENTITIES, {"r": refs})
    assert body == {"data": {"_entities": [
        {"__typename": "MemoryItem", "id": mine["id"], "content": mine["content"]},
        None, None, None, None,
    ]}}  # fmt: skip
    seen = await reader.ok(ENTITIES, r=[{"__typename": "Edge", "edgeId": edge}])
    assert seen == {"_entities": [None]}  # one end is out of the reader's grants
    records = [
        {"__typename": kind, "id": plans[key]}
        for kind, key in (("Intent", "a"), ("Intent", "b"), ("Task", "a-task"), ("Task", "b-task"))
    ]
    found = (await reader.ok(ENTITIES, r=records))["_entities"]
    assert found == [
        {"__typename": "Intent", "id": plans["a"], "label": "ship"},
        None,
        {"__typename": "Task", "id": plans["a-task"], "action": "write"},
        None,
    ]


async def test_references_need_credentials_like_any_read(sub: Api) -> None:
    sub.with_grants("read:x/")  # a key exists: requests without one are refused
    assert await sub.codes(ENTITIES, r=[reference(MISSING)]) == ["UNAUTHENTICATED"]


async def test_callers_mistakes_are_not_logged_as_server_errors(
    make_api: ApiFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Plain and subgraph schemas alike: a bad request is answered with its
    code, and Strawberry's error log stays quiet."""
    caplog.set_level(logging.ERROR, logger="strawberry.execution")
    for federation in (False, True):
        api = await make_api(federation=federation)
        assert await api.codes("{ item(id: 7) { id } }") == ["BAD_USER_INPUT"]
    sub = await make_api(federation=True)
    assert await sub.codes(ENTITIES, r=["not an object"]) == ["BAD_USER_INPUT"]
    assert [r for r in caplog.records if r.name == "strawberry.execution"] == []
