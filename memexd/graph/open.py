"""Build the configured store: embedded FalkorDB, external FalkorDB or Neo4j.

Whatever stops the engine from being ready becomes a one-line
:class:`~memexd.errors.StartupError` (locked or unwritable data directory,
missing engine program, unreachable server, engine that exits at start).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from memexd.errors import MemexError, StartupError, StorageUnavailable
from memexd.graph import Graph, sentinel
from memexd.graph.embedded import EmbeddedFalkor, socket_path
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import Migration, migrate
from memexd.graph.neo4j import Neo4jStore
from memexd.graph.shared import SharedEngine, Supervised
from memexd.graph.tls import TLS
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["open_migrated", "open_store", "open_worker_store"]

log = logging.getLogger("memexd")


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


async def open_store(settings: Settings) -> GraphStore:
    """Connect (and for the embedded default, start) the graph engine, and
    check that it answers."""
    store = _external(settings) if settings.graph_uri is not None else await _embedded(settings)
    try:
        await store.ping()
    except MemexError as exc:
        await store.close()
        where = "the embedded engine" if settings.graph_uri is None else _redacted(settings)
        raise StartupError(f"cannot reach {where}: {_why(exc)}") from None
    return store


def _why(exc: MemexError) -> str:
    """The error, with what the engine's client said (a refused connection, a
    certificate that could not be verified): an operator reads it at start."""
    cause = exc.__cause__
    return exc.message if cause is None else f"{exc.message} ({cause})"


def open_worker_store(settings: Settings) -> GraphStore:
    """A worker's store, on the engine its supervisor opened and migrated
    (and, embedded, supervises). It connects as requests come: an engine down
    when the worker starts is one that requests wait for or find unavailable,
    as they would a moment later."""
    if settings.graph_uri is not None:
        return _external(settings)
    socket = socket_path(settings.data_dir)
    return _on_socket(settings, socket, SharedEngine(socket))


async def _embedded(settings: Settings) -> GraphStore:
    engine = EmbeddedFalkor(
        settings.data_dir,
        fsync=settings.engine_fsync,
        timeout_ms=settings.query_timeout_ms,
        memory_mb=settings.query_memory_mb,
        server=settings.engine_server,
        module=settings.engine_module,
        restart_max_s=settings.engine_restart_max_s,
        start_timeout_s=settings.engine_start_timeout_s,
        hang_s=settings.engine_hang_s,
    )
    try:
        socket = await engine.start()
    except StorageUnavailable as exc:
        raise StartupError(exc.message) from None
    return _on_socket(settings, socket, engine)


def _on_socket(settings: Settings, socket: str, engine: Supervised) -> GraphStore:
    """The store on the embedded engine's socket, waiting for ``engine``
    when it restarts."""
    return FalkorStore.connect(
        unix_socket=socket,
        graph=settings.graph_name,
        timeout_ms=settings.query_timeout_ms,
        pool_size=settings.pool_size,
        pool_wait_ms=settings.pool_wait_ms,
        engine=engine,
        durable=settings.write_ack == "disk",
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
                durable=settings.write_ack == "disk",
                replicas=settings.write_replicas,
                read_replicas=settings.read_from == "replicas",
                tls=TLS(settings.graph_tls_ca, settings.graph_tls_cert, settings.graph_tls_key),
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
    if parts.scheme in sentinel.SCHEMES:
        hosts = parts.netloc.rpartition("@")[2]
        return f"{parts.scheme}://{hosts}{parts.path}"
    host = parts.hostname or "?"
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}"
