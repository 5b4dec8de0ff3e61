"""The point-read fast paths: the HTTP view's shortcuts past Strawberry's
and Starlette's per-request machinery, the document checks' caches, and the
FalkorDB client's own packing, connections and backstop.

Each shortcut must answer exactly as the way it skips: the view's answers
are compared with Strawberry's own ``run`` and ``Schema.execute`` on the
same requests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import types
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from memexd.schema.build import build_schema
from memexd.schema.query import Query
from redis.asyncio import UnixDomainSocketConnection
from starlette.applications import Starlette
from strawberry.asgi import GraphQL
from strawberry.extensions import MaskErrors
from strawberry.http.async_base_view import AsyncBaseHTTPView

from memexd.errors import ResourceExhausted
from memexd.graph import falkordb, falkordb_wire
from memexd.graph.backstop import Backstop
from memexd.graph.falkordb import FalkorStore
from memexd.graph.falkordb_wire import encode_params
from memexd.server.app import create_app
from memexd.server.execution import Operations
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.conftest import ApiFactory

JSON = {"content-type": "application/json"}


def _view(app: Starlette) -> Any:
    return next(r.app for r in app.routes if getattr(r, "path", "") == "/graphql")  # type: ignore[attr-defined]


def _strawberrys(app: Starlette) -> Starlette:
    """The app with its view running Strawberry's own ``run``, body parsing
    and ``Schema.execute``: the reference for the shortcuts."""
    view = _view(app)
    view.operations = None
    view.run = types.MethodType(GraphQL.run, view)
    view.parse_http_body = types.MethodType(AsyncBaseHTTPView.parse_http_body, view)
    return app


@pytest.fixture
async def pair(store: GraphStore, tmp_path: Path) -> AsyncIterator[list[httpx.AsyncClient]]:
    """Two clients on one graph: memexd's view, and the same with Strawberry's steps."""
    settings = Settings(keys_file=tmp_path / "keys.json", max_cost=5_000)
    apps = [create_app(settings, store=store), _strawberrys(create_app(settings, store=store))]
    assert _view(apps[0]).operations is not None
    clients = [
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://memexd")
        for app in apps
    ]
    yield clients
    for client in clients:
        await client.aclose()


CREATE = """mutation($s: String!) { createItem(input: {scope: $s, kind: "k", content: {a: 1},
  author: "u", sourceKind: "o", authority: 0.5}) { item { id } } }"""
ITEM = "query Item($id: ID!) { item(id: $id) { id scope kind content authority createdAt } }"
ITEMS = "query Items($n: Int) { items(limit: $n) { children { children { id } } } }"
# (method, extra headers, body or query string); each answered alike by both views
REQUESTS: list[tuple[str, dict[str, str], Any]] = [
    ("POST", JSON, {"query": ITEM, "variables": {"id": "@id"}}),
    ("POST", JSON, {"query": ITEM, "variables": {"id": "@id"}, "operationName": "Item"}),
    ("POST", JSON, {"query": ITEM, "variables": {"id": "@id"}, "operationName": "Other"}),
    ("POST", JSON, {"query": ITEM, "variables": {"id": 5}}),
    ("POST", JSON, {"query": ITEM, "variables": {}}),
    ("POST", JSON, {"query": ITEM, "variables": {"id": "not-a-uuid"}}),
    ("POST", JSON, {"query": ITEMS, "variables": {"n": 3}}),
    ("POST", JSON, {"query": ITEMS, "variables": {"n": 1000}}),
    ("POST", JSON, {"query": "{ items { nope } }"}),
    ("POST", JSON, {"query": "{ items { id "}),
    ("POST", JSON, {"query": "{ items { " + "parentItems { " * 11 + "id" + " }" * 12 + " }"}),
    ("POST", JSON, {"query": "subscription { events { id } }"}),
    ("POST", JSON, {"query": None}),
    ("POST", JSON, {}),
    ("POST", JSON, {"query": 5}),
    ("POST", JSON, {"query": ITEM, "variables": ["x"]}),
    ("POST", JSON, {"query": ITEM, "extensions": "x"}),
    ("POST", JSON, [{"query": ITEM}]),
    ("POST", JSON, "not json"),
    ("POST", {"content-type": "application/json; charset=utf-8"}, {"query": "{ __typename }"}),
    ("POST", {"content-type": "text/plain"}, {"query": "{ __typename }"}),
    ("POST", {}, {"query": "{ __typename }"}),
    ("GET", {}, {"query": "{ __typename }"}),
    ("GET", {}, {"query": CREATE, "variables": json.dumps({"s": "x"})}),
    ("PUT", JSON, {"query": "{ __typename }"}),
    ("POST", {**JSON, "authorization": "Bearer mxk_bogus"}, {"query": "{ __typename }"}),
]


async def _send(client: httpx.AsyncClient, method: str, headers: dict[str, str],
                body: Any, item: str) -> tuple[int, Any]:  # fmt: skip
    if method == "GET":
        response = await client.get("/graphql", params=body, headers=headers)
    else:
        if body == "not json":
            content = b"{nope"
        else:
            content = json.dumps(body).replace('"@id"', json.dumps(item)).encode()
        response = await client.request(method, "/graphql", content=content, headers=headers)
    return response.status_code, response.json()


async def test_the_view_answers_as_strawberry_does(pair: list[httpx.AsyncClient]) -> None:
    fast, reference = pair
    created = await fast.post("/graphql", json={"query": CREATE, "variables": {"s": "test"}})
    item = created.json()["data"]["createItem"]["item"]["id"]
    answers = []
    for method, headers, body in REQUESTS:
        ours = await _send(fast, method, headers, body, item)
        theirs = await _send(reference, method, headers, body, item)
        assert ours == theirs, (method, headers, body)
        answers.append(ours)
    assert answers[0][1]["data"]["item"]["id"] == item
    codes = [
        error.get("extensions", {}).get("code")
        for _, answer in answers
        for error in answer.get("errors", [])
    ]
    assert codes
    assert None not in codes  # every error carries its code on both


async def test_mutations_run_through_the_shortcut(api: Any) -> None:
    data = await api.ok(CREATE, s="test")
    item = data["createItem"]["item"]["id"]
    assert (await api.ok(ITEM, id=item))["item"]["id"] == item


def test_operations_only_for_memexds_own_extension() -> None:
    schema = build_schema(Settings())
    assert Operations.of(schema) is not None
    other = type(schema)(query=Query, extensions=[*schema.extensions, MaskErrors])
    assert Operations.of(other) is None
    assert Operations.of(object()) is None


# ---------------------------------------------------------------- cached checks


async def test_cached_checks_follow_the_caller_and_the_variables(make_api: ApiFactory) -> None:
    """The parse, validation and cost caches are keyed by the text: the same
    text still gets each caller's rules and each request's variables, and a
    refused document stays refused."""
    api = await make_api(env="production", max_cost=20_000)
    reader = api.with_grants("read:", "write:tenant:a/")
    admin = api.with_grants("admin:tenant:a/")
    schema = "{ __schema { queryType { name } } }"
    for _ in range(2):
        assert await reader.codes(schema) == ["FORBIDDEN"]
        assert (await admin.ok(schema))["__schema"]["queryType"]["name"] == "Query"
    small = "query($n: Int) { items(limit: $n) { children { children { id } } } }"
    for _ in range(2):
        assert await reader.codes(small, n=1000) == ["RESOURCE_EXHAUSTED"]
        assert "errors" not in await reader.run(small, {"n": 10})
        assert await reader.codes("{ items { nope } }") == ["BAD_USER_INPUT"]


# ---------------------------------------------------------------- HTTP layers


async def test_body_limit_still_counts_unframed_bodies(make_api: ApiFactory) -> None:
    api = await make_api(max_body_bytes=1024)
    big = json.dumps({"query": "{ __typename }", "x": "y" * 2000}).encode()
    response = await api.client.post("/graphql", content=big, headers=JSON)
    assert response.status_code == 413

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 100):
            yield big[start : start + 100]

    response = await api.client.post("/graphql", content=chunks(), headers=JSON)
    assert response.status_code == 413
    small = await api.client.post("/graphql", json={"query": "{ __typename }"})
    assert small.json() == {"data": {"__typename": "Query"}}


async def test_the_shortcut_leaves_other_paths_alone(api: Any) -> None:
    assert (await api.client.get("/healthz")).json()["status"] == "ok"
    assert (await api.client.post("/nowhere")).status_code == 404
    assert (await api.client.post("/graphql/", json={})).status_code in (307, 404)


# ---------------------------------------------------------------- the FalkorDB client


def test_commands_are_packed_as_redis_py_packs_them() -> None:
    reference = UnixDomainSocketConnection(path="/nowhere", decode_responses=True)
    store = FalkorStore.connect(unix_socket="/nowhere", graph="gé", timeout_ms=1234)
    text = 'MATCH (n) WHERE n.x = $a RETURN "ü" AS u'
    params = {"a": 'ä"\\'}
    for read_only, verb in ((True, "GRAPH.RO_QUERY"), (False, "GRAPH.QUERY")):
        query = encode_params(params).encode() + falkordb_wire.encoded(text)
        ours = store._heads[read_only] + b"$%d\r\n" % len(query) + query + store._tail
        args = [verb, "gé", encode_params(params) + text, "--compact", "timeout", 1234]
        assert ours == b"".join(reference.pack_command(*args))
    command = ["GRAPH.CONSTRAINT", "CREATE", "g", "UNIQUE", "NODE", "L", "PROPERTIES", 1, "p"]
    assert falkordb_wire.pack(command) == b"".join(reference.pack_command(*command))


def test_connections_have_no_socket_timeout() -> None:
    """redis-py's default of 5 s would cut queries the engine allows longer
    (and costs a task per command); the backstop is the store's own."""
    store = FalkorStore.connect(unix_socket="/nowhere", graph="g", timeout_ms=60_000)
    connection = store._connections._make()
    assert connection.socket_timeout is None


@contextlib.asynccontextmanager
async def _silent_engine(path: Path) -> AsyncIterator[list[asyncio.Event]]:
    """A unix socket that takes connections and commands and never answers;
    one event per connection, set when the client drops it."""
    dropped: list[asyncio.Event] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        gone = asyncio.Event()
        dropped.append(gone)
        while await reader.read(65536):
            pass
        gone.set()
        writer.close()

    server = await asyncio.start_unix_server(serve, path=str(path))
    try:
        yield dropped
    finally:
        server.close()


async def test_the_backstop_gives_up_on_a_silent_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(falkordb, "_BACKSTOP_MARGIN", 0.2)
    socket = tmp_path / "silent.sock"
    async with _silent_engine(socket) as dropped:
        store = FalkorStore.connect(
            unix_socket=str(socket), graph="g", timeout_ms=100, pool_size=1, pool_wait_ms=100
        )
        loop = asyncio.get_running_loop()
        for attempt in range(2):  # the connection is dropped and made again; the gate is free
            started = loop.time()
            with pytest.raises(ResourceExhausted, match="did not answer in time"):
                await store.read("RETURN 1 AS x", {})
            assert 0.25 <= loop.time() - started < 5
            await asyncio.wait_for(dropped[attempt].wait(), 5)
        # a cancellation from elsewhere stays a cancellation
        task = asyncio.ensure_future(store.read("RETURN 1 AS x", {}))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await store.close()


async def test_one_backstop_timer_cancels_only_late_commands() -> None:
    """Short commands started across several firings of the one timer run
    to the end; long ones are cancelled soon after their deadline."""
    backstop = Backstop(0.2)
    loop = asyncio.get_running_loop()

    async def command(seconds: float) -> tuple[str, float]:
        started = loop.time()
        task = backstop.watch()
        try:
            await asyncio.sleep(seconds)
            return "done", loop.time() - started
        except asyncio.CancelledError:
            if backstop.expired(task):
                return "expired", loop.time() - started
            raise
        finally:
            backstop.unwatch(task)

    long = [asyncio.ensure_future(command(5)) for _ in range(2)]
    short = []
    for _ in range(16):  # over 0.8 s: four firings
        short.append(asyncio.ensure_future(command(0.03)))
        await asyncio.sleep(0.05)
    late = asyncio.ensure_future(command(5))
    results = await asyncio.gather(*long, *short, late)
    assert [r[0] for r in results] == ["expired"] * 2 + ["done"] * 16 + ["expired"]
    assert all(0.2 <= elapsed < 1.0 for _, elapsed in (*results[:2], results[-1]))
    assert backstop._running == {}
    assert backstop._expired == set()
