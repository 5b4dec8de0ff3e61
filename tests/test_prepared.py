"""Prepared reads (``memexd.server.prepared``) answer byte for byte as the
ordinary path does: each request is sent twice, the first answered the
ordinary way (it teaches the document), the second prepared when its shape
allows; both bodies and statuses must be equal."""

from __future__ import annotations

from typing import Any

import pytest

from memexd.errors import StorageUnavailable
from memexd.server.prepared import Prepared
from tests.support import Api

ITEM = "query($id: ID!) { item(id: $id) { id scope kind content authority createdAt } }"
EVERY_LEAF = """query Full($id: ID!, $r: Boolean) { one: item(id: $id, includeRetracted: $r) {
  id scope kind content author sourceKind parents authority conviction importance intentId
  taskId meta createdAt retracted } two: item(id: $id) { a: id b: authority } }"""
NOT_PREPARED = [
    "query($id: ID!) { item(id: $id) { id parentItems { id } } }",  # a resolver below
    "query($id: ID!) { item(id: $id) { id __typename } }",
    "query($id: ID!) { item(id: $id) { ...F } } fragment F on MemoryItem { id }",
    "query($id: ID!) { item(id: $id) { id @include(if: true) } }",
    "query($id: ID!) { items(filter: {ids: [$id]}) { id } }",  # a list, an input object
]


def _prepared(api: Api) -> Prepared:
    app: Any = api.client._transport.app  # type: ignore[attr-defined]
    for route in app.routes:
        if getattr(route, "path", None) == "/graphql":
            prepared: Prepared = route.app.prepared
            return prepared
    raise AssertionError("no /graphql route")


async def _twice(api: Api, query: str, variables: Any, name: str | None = None) -> None:
    sent = {"query": query, "variables": variables, "operationName": name}
    first = await api.client.post("/graphql", json=sent, headers=api.headers)
    second = await api.client.post("/graphql", json=sent, headers=api.headers)
    assert (second.status_code, second.content) == (first.status_code, first.content)


async def test_point_reads_answer_as_the_ordinary_path(api: Api) -> None:
    made = await api.create(content={"text": "é ü 🙂", "n": 1.1, "big": 2**53 + 1},
                            importance=0.1 + 0.2, meta={"a": [1, None]})  # fmt: skip
    bare = await api.create(authority=1.0)
    gone = await api.create()
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=gone["id"])  # fmt: skip
    prepared = _prepared(api)
    for item_id in (made["id"], bare["id"], gone["id"], "01900000-0000-7000-8000-000000000000"):
        await _twice(api, ITEM, {"id": item_id})
        for retracted in (None, True, False):
            await _twice(api, EVERY_LEAF, {"id": item_id, "r": retracted}, "Full")
    # every request but the first success of each document (which teaches
    # it) and those with a null includeRetracted (an error: the ordinary way)
    assert prepared.hits == (4 * 2 - 1) + (4 * 2 * 2 - 1)


@pytest.mark.parametrize(
    "variables",
    [{}, {"id": None}, {"id": 12}, {"id": ["x"]}, {"id": "not-a-uuid"}, {"id": "x", "y": 1}],
)
async def test_bad_variables_answer_as_the_ordinary_path(api: Api, variables: Any) -> None:
    item = await api.create()
    await _twice(api, ITEM, {"id": item["id"]})  # prepared now
    await _twice(api, ITEM, variables)


async def test_grants_hold_on_the_prepared_path(api: Api) -> None:
    mine = await api.create(scope="a/x")
    theirs = await api.create(scope="b/x")
    reader = api.with_grants("read:a/")
    for item in (mine, theirs, mine):
        await _twice(reader, ITEM, {"id": item["id"]})
    answer = await reader.run(ITEM, {"id": theirs["id"]})
    assert answer == {"data": {"item": None}}
    assert _prepared(api).hits >= 3


@pytest.mark.parametrize("query", NOT_PREPARED)
async def test_other_shapes_go_the_ordinary_way(api: Api, query: str) -> None:
    item = await api.create()
    prepared = _prepared(api)
    await _twice(api, query, {"id": item["id"]})
    assert prepared.hits == 0


async def test_an_anonymous_caller_without_access_is_refused_as_before(make_api: Any) -> None:
    api: Api = await make_api(env="production")
    api.keys.create("someone", ["read:"])  # a key exists: the anonymous get nothing
    await _twice(api.as_key(None), ITEM, {"id": "01900000-0000-7000-8000-000000000000"})


async def test_a_failing_read_runs_once_and_answers_as_the_ordinary_path(api: Api) -> None:
    """The engine failing under a prepared read: one query, not a second try
    the ordinary way, and the same answer the ordinary path gives."""
    item = await api.create()
    await _twice(api, ITEM, {"id": item["id"]})  # prepared now
    store = api.store
    sent: list[str] = []

    async def down(text: str, params: Any) -> Any:
        sent.append(text)
        raise StorageUnavailable("the graph engine is unavailable; try again")

    store.read = down  # type: ignore[method-assign]
    prepared = _prepared(api)
    hits = prepared.hits
    body = {"query": ITEM, "variables": {"id": item["id"]}}
    answer = await api.client.post("/graphql", json=body)
    assert (len(sent), prepared.hits) == (1, hits + 1)
    ordinary = await api.client.post("/graphql", json={**body, "query": ITEM + " "})
    assert prepared.hits == hits + 1  # another text: the ordinary way
    assert (answer.status_code, answer.content) == (ordinary.status_code, ordinary.content)
    assert answer.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
