"""Fixtures: one embedded FalkorDB per session, a fresh graph per test.

Set ``MEMEXD_TEST_NEO4J_URI`` (plus ``MEMEXD_TEST_NEO4J_USER`` /
``MEMEXD_TEST_NEO4J_PASSWORD``) to run the same suite against Neo4j; its
database is wiped before each test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
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
from tests.support import Api, CountingStore

NEO4J_URI = os.environ.get("MEMEXD_TEST_NEO4J_URI")

ApiFactory = Callable[..., Awaitable[Api]]


@pytest.fixture(scope="session")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedFalkor]:
    falkor = EmbeddedFalkor(Path(tmp_path_factory.mktemp("falkordb")), timeout_ms=20_000)
    await falkor.start()
    yield falkor
    await falkor.stop()


@pytest.fixture(scope="session")
async def server_store(engine: EmbeddedFalkor) -> AsyncIterator[GraphStore]:
    if NEO4J_URI:
        store: GraphStore = Neo4jStore.connect(
            NEO4J_URI,
            user=os.environ.get("MEMEXD_TEST_NEO4J_USER", "neo4j"),
            password=os.environ.get("MEMEXD_TEST_NEO4J_PASSWORD"),
        )
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
