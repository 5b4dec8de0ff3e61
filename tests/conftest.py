"""Fixtures: every test that touches data runs on both engines.

Each test worker (pytest-xdist process) starts one embedded FalkorDB and its
own Neo4j 5.26 servers (``tests/neo4j_server.py``, the launcher in
``tools/neo4j``): workers never share an engine. FalkorDB gives each test a
graph of its own. Neo4j Community has one user database per server, so each
test leases a server from the worker's pool (``tests/engines.py``), emptied
when leased; a module's shared ``memexd serve`` or a test that needs two
graphs leases another. A worker runs its tests one at a time, so it starts
two or three servers in all. A test about one engine's machinery says so
with ``@pytest.mark.engines("falkordb")``.

``MEMEXD_TEST_ENGINES=falkordb`` (or ``neo4j``) runs one engine only, for a
quick local run; CI runs both.
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
from memexd.recall.model import E5Small
from memexd.server.app import create_app
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.engines import Engine, Neo4jPool, tcp_falkordb
from tests.neo4j_server import Neo4jServer
from tests.support import Api, CountingStore

ENGINES = os.environ.get("MEMEXD_TEST_ENGINES", "falkordb,neo4j").split(",")
# Servers the tests start embed nothing in the background unless a test asks
# (tests/test_recall.py): the model would take the CPU other tests time.
os.environ.setdefault("MEMEXD_EMBEDDING", "off")

ApiFactory = Callable[..., Awaitable[Api]]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "engines(*names): a test about one engine's own machinery runs on it only"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out (not skip) the runs of ``@pytest.mark.engines(...)`` tests on other engines."""
    kept, left_out = [], []
    for item in items:
        marker = item.get_closest_marker("engines")
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("backend") if callspec else None
        other = marker is not None and backend is not None and backend not in marker.args
        (left_out if other else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedFalkor]:
    falkor = EmbeddedFalkor(
        Path(tmp_path_factory.mktemp("falkordb")), timeout_ms=20_000, fsync="always"
    )  # as memexd runs it: writes confirmed on disk
    await falkor.start()
    yield falkor
    await falkor.stop()


@pytest.fixture(scope="session")
def neo4j_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jPool]:
    """This worker's Neo4j servers, started as tests lease them."""
    pool = Neo4jPool(Path(tmp_path_factory.mktemp("neo4j")))
    yield pool
    pool.close()


@pytest.fixture
def neo4j(neo4j_pool: Neo4jPool) -> Iterator[Neo4jServer]:
    """A Neo4j server of this worker's, emptied, for one test."""
    server = neo4j_pool.lease()
    yield server
    neo4j_pool.give_back(server)


@pytest.fixture(scope="session", params=ENGINES)
def backend(request: pytest.FixtureRequest) -> str:
    """The engine a test runs on: each data test runs once per engine."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
async def falkor_store(engine: EmbeddedFalkor) -> AsyncIterator[FalkorStore]:
    store = FalkorStore.connect(unix_socket=engine.socket, graph="unused", durable=True)
    yield store
    await store.close()


@pytest.fixture
async def server_store(
    backend: str, falkor_store: FalkorStore, request: pytest.FixtureRequest
) -> AsyncIterator[GraphStore]:
    """The engine's store for one test: FalkorDB's (tests take graphs of
    their own on it), or one on an emptied Neo4j."""
    if backend != "neo4j":
        yield falkor_store
        return
    server: Neo4jServer = request.getfixturevalue("neo4j")
    store = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
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
        await migrate(Graph(server_store))  # the lease emptied it; a new server has no schema
        yield server_store


def _engine(backend: str, pool: Neo4jPool) -> Iterator[Engine]:
    if backend != "neo4j":
        yield Engine(backend)
        return
    server = pool.lease()
    try:
        yield Engine(backend, server)
    finally:
        pool.give_back(server)


@pytest.fixture
def graph_engine(backend: str, neo4j_pool: Neo4jPool) -> Iterator[Engine]:
    """The engine for this test's memexd processes: an empty Neo4j of its own,
    or the embedded FalkorDB each process starts under its data directory."""
    yield from _engine(backend, neo4j_pool)


@pytest.fixture
def other_engine(backend: str, neo4j_pool: Neo4jPool) -> Iterator[Engine]:
    """A second, separate :func:`graph_engine` (a test moving data between two graphs)."""
    yield from _engine(backend, neo4j_pool)


@pytest.fixture
def shared_engine(backend: str, neo4j_pool: Neo4jPool, tmp_path: Path) -> Iterator[Engine]:
    """An engine several memexd processes share: an external FalkorDB on TCP,
    or an empty Neo4j."""
    if backend == "neo4j":
        yield from _engine(backend, neo4j_pool)
        return
    with tcp_falkordb(tmp_path / "falkordb") as port:
        yield Engine(backend, falkor_uri=f"falkor://127.0.0.1:{port}")


@pytest.fixture(scope="module")
def module_engine(backend: str, neo4j_pool: Neo4jPool) -> Iterator[Engine]:
    """:func:`graph_engine` for a module's shared server."""
    yield from _engine(backend, neo4j_pool)


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


@pytest.fixture
async def searching(make_api: ApiFactory) -> AsyncIterator[Api]:
    """An API whose graph has the full-text index, as ``memexd serve`` makes
    it at start (embeddings off)."""
    from memexd.memory.text import ensure_index

    api = await make_api(embedding="off", text_search=True)
    await ensure_index(api.graph, True)
    yield api
    await ensure_index(api.graph, False)


@pytest.fixture(scope="module")
def model() -> E5Small:
    """The embedding model, in the tests' own process (one per module)."""
    return E5Small()


@pytest.fixture
async def recalling(make_api: ApiFactory) -> AsyncIterator[Api]:
    """An API with both indexes, as ``memexd serve`` makes them at start, and
    the model on (no embedding loop: tests embed when they choose)."""
    from memexd.memory.text import ensure_index
    from memexd.recall.embedding import ensure_vector_index

    api = await make_api(embedding="e5-small", text_search=True)
    await ensure_index(api.graph, True)
    await ensure_vector_index(api.graph)
    yield api
    await api.graph.schema("vector_index_drop")
    await ensure_index(api.graph, False)
