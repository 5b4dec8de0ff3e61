"""Build the configured store: embedded FalkorDB, external FalkorDB or Neo4j."""

from __future__ import annotations

from urllib.parse import urlparse

from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.neo4j import Neo4jStore
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["open_store"]

_NEO4J_SCHEMES = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}


async def open_store(settings: Settings) -> GraphStore:
    """Connect (and for the embedded default, start) the graph engine."""
    uri = settings.graph_uri
    if uri is None:
        engine = EmbeddedFalkor(
            settings.data_dir,
            fsync=settings.fsync,
            timeout_ms=settings.query_timeout_ms,
            memory_mb=settings.query_memory_mb,
        )
        socket = await engine.start()
        return FalkorStore.connect(
            unix_socket=socket,
            graph=settings.graph_name,
            timeout_ms=settings.query_timeout_ms,
            on_close=engine.stop,
        )
    scheme = urlparse(uri).scheme
    if scheme in {"falkor", "falkordb", "redis"}:
        return FalkorStore.connect(
            uri=uri,
            graph=settings.graph_name,
            password=settings.password(),
            timeout_ms=settings.query_timeout_ms,
        )
    if scheme in _NEO4J_SCHEMES:
        return Neo4jStore.connect(
            uri,
            user=settings.graph_user,
            password=settings.password(),
            database=settings.neo4j_database,
            timeout_ms=settings.query_timeout_ms,
        )
    raise ValueError(f"MEMEXD_GRAPH_URI: unsupported scheme {scheme!r}")
