"""Build the configured store: embedded FalkorDB, external FalkorDB or Neo4j.

Whatever stops the engine from being ready becomes a one-line
:class:`~memexd.errors.StartupError` (locked or unwritable data directory,
missing engine program, unreachable server, engine that exits at start).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from memexd.errors import MemexError, StartupError, StorageUnavailable
from memexd.graph import Graph
from memexd.graph.embedded import EmbeddedFalkor, socket_path
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import Migration, migrate
from memexd.graph.neo4j import Neo4jStore
from memexd.graph.shared import SharedEngine
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["open_migrated", "open_store"]

log = logging.getLogger("memexd")

#: How long a starting worker waits for the embedded engine to answer.
_SHARED_WAIT_S = 60.0


async def open_migrated(settings: Settings) -> tuple[GraphStore, list[Migration]]:
    """:func:`open_store`, then the pending migrations; return the store and
    the migrations applied."""
    store = await open_store(settings)
    try:
        applied = await migrate(Graph(store))
    except BaseException:
        await store.close()
        raise
    log.info("graph ready (%s); %d migrations applied", store.backend, len(applied))
    return store, applied


async def open_store(settings: Settings, *, worker: bool = False) -> GraphStore:
    """Connect (and for the embedded default, start) the graph engine, and
    check that it answers. A ``worker`` connects to the embedded engine its
    parent process started and supervises."""
    if settings.graph_uri is not None:
        store = _external(settings)
    elif worker:
        store = await _shared(settings)
    else:
        store = await _embedded(settings)
    try:
        await store.ping()
    except MemexError as exc:
        await store.close()
        where = "the embedded engine" if settings.graph_uri is None else _redacted(settings)
        raise StartupError(f"cannot reach {where}: {exc.message}") from None
    return store


async def _embedded(settings: Settings) -> GraphStore:
    engine = EmbeddedFalkor(
        settings.data_dir,
        fsync=settings.fsync,
        timeout_ms=settings.query_timeout_ms,
        memory_mb=settings.query_memory_mb,
        server=settings.engine_server,
        module=settings.engine_module,
        restart_max_s=settings.engine_restart_max_s,
    )
    try:
        socket = await engine.start()
    except StorageUnavailable as exc:
        raise StartupError(exc.message) from None
    return FalkorStore.connect(
        unix_socket=socket,
        graph=settings.graph_name,
        timeout_ms=settings.query_timeout_ms,
        pool_size=settings.pool_size,
        pool_wait_ms=settings.pool_wait_ms,
        engine=engine,
    )


async def _shared(settings: Settings) -> GraphStore:
    socket = socket_path(settings.data_dir)
    engine = SharedEngine(socket)
    # the supervisor may be restarting it: wait as a request would
    if not await engine.wait_ready(_SHARED_WAIT_S):
        raise StartupError("the embedded engine did not come back in time")
    return FalkorStore.connect(
        unix_socket=socket,
        graph=settings.graph_name,
        timeout_ms=settings.query_timeout_ms,
        pool_size=settings.pool_size,
        pool_wait_ms=settings.pool_wait_ms,
        engine=engine,
    )


def _external(settings: Settings) -> GraphStore:
    uri = settings.graph_uri or ""
    try:
        if settings.backend == "falkordb":
            return FalkorStore.connect(
                uri=uri,
                graph=settings.graph_name,
                password=settings.password(),
                timeout_ms=settings.query_timeout_ms,
                pool_size=settings.pool_size,
                pool_wait_ms=settings.pool_wait_ms,
            )
        return Neo4jStore.connect(
            uri,
            user=settings.graph_user,
            password=settings.password(),
            database=settings.neo4j_database,
            timeout_ms=settings.query_timeout_ms,
            pool_size=settings.pool_size,
            pool_wait_ms=settings.pool_wait_ms,
        )
    except MemexError as exc:
        raise StartupError(f"cannot reach {_redacted(settings)}: {exc.message}") from None


def _redacted(settings: Settings) -> str:
    """The engine's URI without credentials, for messages."""
    parts = urlsplit(settings.graph_uri or "")
    host = parts.hostname or "?"
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}"
