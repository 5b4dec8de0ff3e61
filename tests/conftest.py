"""Fixtures: every test that touches data runs on both engines.

Each test worker (pytest-xdist process) starts one embedded FalkorDB and one
Neo4j 5.26 (``tests/neo4j_server.py``, the launcher in ``tools/neo4j``).
Workers never share an engine: FalkorDB gives each test a graph of its own;
Neo4j Community has one user database, so each worker has a server of its
own, wiped and migrated before each test.

``MEMEXD_TEST_ENGINES=falkordb`` (or ``neo4j``) runs one engine only, for a
quick local run; CI runs both. ``MEMEXD_TEST_NEO4J_URI`` (plus
``MEMEXD_TEST_NEO4J_USER`` / ``MEMEXD_TEST_NEO4J_PASSWORD``) uses a running
Neo4j instead of starting one (its database is wiped before each test: never
point it at data you keep, and run one worker: ``-n 0``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from memexd.access.keys import KeyStore
from memexd.graph import Graph
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import migrate
from memexd.graph.neo4j import Neo4jStore
from memexd.server.app import create_app
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.neo4j_server import Neo4jServer
from tests.support import Api, CountingStore

NEO4J_URI = os.environ.get("MEMEXD_TEST_NEO4J_URI")
ENGINES = os.environ.get("MEMEXD_TEST_ENGINES", "falkordb,neo4j").split(",")

ApiFactory = Callable[..., Awaitable[Api]]


@pytest.fixture(scope="session")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedFalkor]:
    falkor = EmbeddedFalkor(Path(tmp_path_factory.mktemp("falkordb")), timeout_ms=20_000)
    await falkor.start()
    yield falkor
    await falkor.stop()


@pytest.fixture(scope="session")
def neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    """This worker's Neo4j (or the one ``MEMEXD_TEST_NEO4J_URI`` names)."""
    server = Neo4jServer(Path(tmp_path_factory.mktemp("neo4j")))
    if NEO4J_URI:
        server.uri = NEO4J_URI
        server.user = os.environ.get("MEMEXD_TEST_NEO4J_USER", "neo4j")
        server.password = os.environ.get("MEMEXD_TEST_NEO4J_PASSWORD", "")
        yield server
        return
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session", params=ENGINES)
def backend(request: pytest.FixtureRequest) -> str:
    """The engine a test runs on: each data test runs once per engine."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
async def server_store(
    backend: str, engine: EmbeddedFalkor, request: pytest.FixtureRequest
) -> AsyncIterator[GraphStore]:
    store: GraphStore
    if backend == "neo4j":
        server: Neo4jServer = request.getfixturevalue("neo4j")
        store = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
    else:
        store = FalkorStore.connect(unix_socket=engine.socket, graph="unused")
    yield store
    await store.close()


@pytest.fixture
async def store(server_store: GraphStore) -> AsyncIterator[GraphStore]:
    """A fresh, migrated graph for one test."""
    if isinstance(server_store, FalkorStore):
        fresh = server_store.with_graph(f"t_{uuid.uuid4().hex}")
        await migrate(Graph(fresh))
        yield fresh
        await fresh.drop()
    else:
        graph = Graph(server_store)
        await graph.write("admin_wipe")
        await migrate(graph)
        yield server_store


@pytest.fixture
async def make_api(store: GraphStore, tmp_path: Path) -> AsyncIterator[ApiFactory]:
    """Factory: an API client over the test graph, with optional settings.
    Its key file is the test's own (empty: open access, as on loopback)."""
    clients: list[httpx.AsyncClient] = []

    async def factory(**settings: object) -> Api:
        counting = CountingStore(store)
        keys_file = tmp_path / f"keys-{len(clients)}.json"
        config = Settings(**{"keys_file": keys_file, **settings})  # type: ignore[arg-type]
        app = create_app(config, store=counting)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://memexd")
        clients.append(client)
        return Api(client=client, store=counting, graph=Graph(store),
                   keys=KeyStore(config.keys_path))  # fmt: skip

    yield factory
    for client in clients:
        await client.aclose()


@pytest.fixture
async def api(make_api: ApiFactory) -> Api:
    return await make_api()
