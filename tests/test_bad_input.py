"""Bad input gets a clear error with a code and changes nothing."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio

from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.server.app import create_app
from memexd.settings import Settings
from tests.conftest import ApiFactory
from tests.support import CREATE_ITEM, Api

CREATE_ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
UPDATE = """mutation($id: ID!, $p: MemoryItemPatch!) {
  updateItem(id: $id, patch: $p, author: "u") { item { id } } }"""


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


async def test_request_limits(make_api: ApiFactory) -> None:
    api = await make_api(max_query_depth=3, max_aliases=3, max_tokens=200, max_batch=2,
                         max_list=2, max_content_bytes=64)  # fmt: skip
    before = await api.snapshot()
    deep = "{ items { parentItems { parentItems { parentItems { id } } } } }"
    assert await api.codes(deep) == ["BAD_USER_INPUT"]
    aliases = "{ a: items { id } b: items { id } c: items { id } d: items { id } }"
    assert await api.codes(aliases) == ["BAD_USER_INPUT"]
    assert await api.codes("{ items { " + "id " * 300 + "} }") == ["BAD_USER_INPUT"]
    assert await api.codes(CREATE_ITEMS, i=[draft(), draft(), draft()]) == ["BAD_USER_INPUT"]
    ids = [f"01900000-0000-7000-8000-00000000000{i}" for i in range(3)]
    assert await api.codes(CREATE_ITEMS, i=[draft(parents=ids)]) == ["BAD_USER_INPUT"]
    assert await api.codes(CREATE_ITEMS, i=[draft(content={"t": "x" * 100})]) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


async def test_oversized_bodies_are_refused(make_api: ApiFactory) -> None:
    api = await make_api(max_body_bytes=2_000)
    before = await api.snapshot()
    body = {"query": CREATE_ITEM, "variables": {"input": draft(content={"t": "x" * 3_000})}}
    response = await api.client.post("/graphql", json=body)
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(10):
            yield b" " * 500

    response = await api.client.post(
        "/graphql", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert await api.snapshot() == before


async def test_internal_errors_are_masked(engine: EmbeddedFalkor) -> None:
    """An engine failure that is nobody's input: fixed message, no details."""
    key = f"not_a_graph_{uuid.uuid4().hex}"
    raw = redis.asyncio.Redis(unix_socket_path=engine.socket)
    await raw.set(key, "a plain string where a graph should be")
    store = FalkorStore.connect(unix_socket=engine.socket, graph=key)
    app = create_app(Settings(), store=store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://memexd"
    ) as client:
        response = await client.post("/graphql", json={"query": "{ items { id } }"})
    error = response.json()["errors"][0]
    assert error["extensions"] == {"code": "INTERNAL"}
    assert error["message"] == "Internal server error."
    await raw.delete(key)
    await raw.aclose()
    await store.close()


async def test_an_engine_that_is_down_is_unavailable(tmp_path: Path) -> None:
    engine = EmbeddedFalkor(tmp_path)
    dead = FalkorStore.connect(unix_socket=await engine.start(), graph="g")
    await engine.stop()  # the engine goes away under a running service
    app = create_app(Settings(), store=dead)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://memexd"
    ) as client:
        response = await client.post("/graphql", json={"query": "{ items { id } }"})
    error = response.json()["errors"][0]
    assert error["extensions"] == {"code": "UNAVAILABLE"}
    await dead.close()


async def test_merged_content_keeps_the_size_limit(make_api: ApiFactory) -> None:
    api = await make_api(max_content_bytes=60)
    item = await api.create(content={"a": "x" * 30})
    before = await api.snapshot()
    codes = await api.codes(UPDATE, id=item["id"], p={"content": {"b": "y" * 30}})
    assert codes == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
