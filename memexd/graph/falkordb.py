"""FalkorDB over its native protocol (never the experimental Bolt port).

Commands go over redis-py's asyncio connections, the transport of the
falkordb client, from a bounded connection pool of our own: the falkordb
client's start-up cluster probe rebuilds a synchronous client from the pool's
settings, which an asyncio blocking pool cannot give it; and redis-py's client
and pool wrap every command in retries, a lock and metrics hooks (~25 µs of
the client's ~60 µs on a point read) that memexd does not use.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from redis.asyncio import Connection, Redis, SSLConnection, UnixDomainSocketConnection
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import SentinelManagedConnection, SentinelManagedSSLConnection
from redis.backoff import NoBackoff
from redis.exceptions import RedisError, ResponseError

from memexd.errors import ResourceExhausted, StorageUnavailable
from memexd.graph import bookmarks, sentinel
from memexd.graph.backstop import Backstop
from memexd.graph.errors import (
    ConnectionLost,
    EngineUnreachable,
    MissingGraph,
    falkordb_errors,
)
from memexd.graph.falkordb_connections import After, Connections
from memexd.graph.falkordb_wire import encoded, header, pack, pack_args, pack_head, rows
from memexd.graph.gate import Gate
from memexd.graph.notices import written
from memexd.graph.shared import Supervised
from memexd.graph.tls import TLS
from memexd.settings import TLS_SCHEMES
from memexd.types import Params, Row

__all__ = ["FalkorStore"]

#: How long a query waits for a restarting embedded engine, or a new primary.
_RESTART_WAIT = 15.0
#: Seconds before listening for writes again after the connection broke.
_RELISTEN_S = 0.5
#: How long a write waits for the engine's log to reach the disk, when the
#: engine has no query timeout to wait as long as.
_CONFIRM_MS = 10_000
#: Seconds past the engine's own query timeout before the client gives up.
_BACKSTOP_MARGIN = 30.0


class FalkorStore:
    """A :class:`memexd.types.GraphStore` on one FalkorDB graph.

    Connections come from a bounded pool: past ``pool_size`` queries in
    flight, a query waits up to ``pool_wait_ms`` for one, then fails with
    ``UNAVAILABLE``. The client never retries by itself (a write re-sent after
    a broken connection could apply twice). With an embedded engine, a query
    that finds it down waits for the supervisor to bring it back; a read that
    lost its connection is sent again, a write is not (its outcome is unknown).

    ``durable``: a write answers only once the engine's append-only file has
    it on disk. ``WAITAOF 1 0`` goes in the same packet as the write: the
    engine answers it after the write, once its log is fsynced past it (with
    ``appendfsync always`` at the end of the engine's loop, one fsync for every
    write of that turn). FalkorDB answers a write from its own thread, and
    under ``everysec`` Redis may put off writing its log while a background
    fsync runs, yet answer: the engine's answer alone is no promise the write
    survives the engine's death. ``replicas``: and once that many replicas
    hold it (``WAIT``, same packet).

    Behind Sentinels (a ``redis+sentinel://`` URI) the engine it waits on is
    the primary the Sentinels name (:mod:`memexd.graph.sentinel`); with
    ``read_replicas``, read-only statements go to replicas, a bookmarked one
    only to a replica that has reached the bookmark's position.
    """

    backend = "falkordb"

    def __init__(
        self,
        connections: Connections,
        graph: str,
        timeout_ms: int | None = None,
        engine: Supervised | None = None,
        gate: Gate | None = None,
        durable: bool = False,
        replicas: int = 0,
        reading: Connections | None = None,
    ) -> None:
        self._connections = connections
        self._graph = graph
        self._timeout = timeout_ms
        # a backstop for an engine that stops answering: its own timeout answers first
        self._backstop = Backstop(
            None if timeout_ms is None else timeout_ms / 1000 + _BACKSTOP_MARGIN
        )
        self._engine = engine
        self._gate = gate or Gate(64, 5.0)
        self._restarts = 0
        # A query's command is these around its text (redis-py packs the
        # 3 KB text in ~8 µs, this in ~1).
        options: list[str | int] = ["--compact"]
        if timeout_ms:
            options += ["timeout", timeout_ms]
        self._heads = {
            read_only: pack_head(3 + len(options), [verb, graph])
            for read_only, verb in ((True, "GRAPH.RO_QUERY"), (False, "GRAPH.QUERY"))
        }
        self._tail = b"\r\n" + pack_args(options)
        self._durable, self._replicas = durable, replicas
        #: connections to replicas, for reads (MEMEXD_READ_FROM=replicas)
        self._reading = reading
        #: reads a replica answered; reads a replica was behind for (the primary answered)
        self.replica_reads = self.replica_behind = 0
        # behind every write: its confirmation (on disk, by replicas), its
        # position when replicas are read (a bookmark), then a PUBLISH that
        # wakes the feed of every memexd on this graph (memexd.graph.notices)
        self._after_write = After.behind(
            pack(["PUBLISH", written(graph), "1"]),
            disk=durable, replicas=replicas, timeout_ms=timeout_ms or _CONFIRM_MS,
            position=reading is not None,
        )  # fmt: skip

    @classmethod
    def connect(
        cls,
        *,
        uri: str | None = None,
        unix_socket: str | None = None,
        graph: str,
        password: str | None = None,
        timeout_ms: int | None = None,
        pool_size: int = 64,
        pool_wait_ms: int = 5_000,
        engine: Supervised | None = None,
        durable: bool = False,
        replicas: int = 0,
        read_replicas: bool = False,
        tls: TLS | None = None,
    ) -> FalkorStore:
        options: dict[str, Any] = {
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": 5,
            # None, not redis-py's default of 5 s (a query may run longer): with
            # a timeout, redis-py runs every send in asyncio.wait_for, a task per
            # command (~60 µs on a point read); _send has its own backstop.
            "socket_timeout": None,
        }
        kind: type[AbstractConnection]
        reading = None
        parsed = urlparse(uri or "")
        secure = (tls or TLS()).connection() if parsed.scheme in TLS_SCHEMES else {}
        if unix_socket is not None:
            kind, options = UnixDomainSocketConnection, {"path": unix_socket, **options}
        elif parsed.scheme in sentinel.SCHEMES:
            topology = sentinel.parse(uri or "")
            options |= {"username": topology.username, "password": topology.password or password}
            engine = sentinel.Primary(topology, options | secure, tls or TLS())
            kind = SentinelManagedSSLConnection if secure else SentinelManagedConnection
            options |= secure
            if read_replicas:
                reading = Connections(kind, {"connection_pool": engine.replicas, **options})
            options = {"connection_pool": engine.pool, **options}
        else:
            kind = SSLConnection if secure else Connection
            options |= {
                "host": parsed.hostname or "localhost",
                "port": parsed.port or 6379,
                "username": parsed.username or None,
                "password": parsed.password or password,
                **secure,
            }
        gate = Gate(pool_size, pool_wait_ms / 1000)
        connections = Connections(kind, options)
        return cls(connections, graph, timeout_ms, engine, gate, durable, replicas, reading)

    @property
    def graph_name(self) -> str:
        return self._graph

    def with_graph(self, graph: str) -> FalkorStore:
        """Another graph on the same server and connection pool."""
        return FalkorStore(self._connections, graph, self._timeout, self._engine, self._gate,
                           self._durable, self._replicas, self._reading)  # fmt: skip

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=True)

    async def write(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=False)

    async def execute_ddl(self, text: str) -> None:
        await self._retried(pack(["GRAPH.QUERY", self._graph, text]), idempotent=True)

    async def create_unique(self, label: str, prop: str) -> None:
        command = ["GRAPH.CONSTRAINT", "CREATE", self._graph, "UNIQUE", "NODE", label]
        await self._retried(pack([*command, "PROPERTIES", 1, prop]), idempotent=True)

    async def compact(self) -> None:
        """Compact the embedded engine's append-only file (after schema changes)."""
        if self._engine is not None:
            await self._engine.compact()

    async def drop(self) -> None:
        """Delete the whole graph (tests, ``memexd reset``)."""
        await self._send(pack(["GRAPH.DELETE", self._graph]))

    async def ping(self) -> None:
        await self._send(pack(["PING"]))

    async def close(self) -> None:
        await self._connections.close()
        if self._reading is not None:
            await self._reading.close()
        if self._engine is not None:
            await self._engine.stop()

    async def _run(self, text: str, params: Params, *, read_only: bool) -> list[Row]:
        query = header(params) + encoded(text)
        command = self._heads[read_only] + b"$%d\r\n" % len(query) + query + self._tail
        if read_only and self._reading is not None:
            with contextlib.suppress(StorageUnavailable):  # no replica, or behind: the primary
                return await self._send(command, via=self._reading, position=bookmarks.position())
        after = None if read_only else self._after_write
        return await self._retried(command, after, idempotent=read_only)

    async def _retried(
        self, command: bytes, after: After | None = None, *, idempotent: bool
    ) -> list[Row]:
        """Send a command, and once more when a supervised engine is back:
        if nothing was sent, or whatever happened when it is ``idempotent``
        (a read; a schema command, whose second try of one applied is
        :class:`SchemaExists`, which migrations expect)."""
        try:
            return await self._send(command, after)
        except EngineUnreachable:
            if not await self._engine_back():
                raise
        except ConnectionLost:
            if not idempotent or not await self._engine_back():
                raise
        return await self._send(command, after)

    async def _send(
        self,
        command: bytes,
        after: After | None = None,
        *,
        via: Connections | None = None,
        position: int = 0,
    ) -> list[Row]:
        """Run one command, packed (see :func:`~memexd.graph.falkordb_wire.pack`);
        ``via`` replicas' connections, on one that has reached ``position``."""
        engine = self._engine
        if engine is not None and engine.restarts != self._restarts:
            # connections kept from before a restart point at a dead process
            self._restarts = engine.restarts
            await self._connections.drop_idle()
        await self._gate.enter()
        watched = self._backstop.watch()
        try:
            with falkordb_errors():
                if via is None:
                    return rows(await self._connections.run(command, after))
                return rows(await self._on_replica(via, command, position))
        except MissingGraph:
            return []  # nothing written yet: every read is empty
        except asyncio.CancelledError:
            # cancelled by the backstop, redis-py has dropped the connection
            # (its reply could otherwise answer the next command)
            if self._backstop.expired(watched):
                raise ResourceExhausted("the graph engine did not answer in time") from None
            raise
        finally:
            self._backstop.unwatch(watched)
            self._gate.leave()

    async def _on_replica(self, via: Connections, command: bytes, position: int) -> Any:
        if not position:
            reply = await via.run(command)
        else:
            role, reply = await via.run_behind_role(command)
            # a replica says ["slave", host, port, state, offset]; with no
            # replica up the primary answers, and is never behind
            if role[0] == "slave" and int(role[4]) < position:
                self.replica_behind += 1
                raise _Behind("this replica has not reached the write the caller brought back")
            if isinstance(reply, ResponseError):
                raise reply  # a graph it has not got yet is empty only once it is not behind
        self.replica_reads += 1
        return reply

    async def listen_writes(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` at each write announced on this graph (by any
        memexd), until cancelled; a lost connection is opened again, with a
        wake-up for what it may have missed (memexd.graph.notices)."""
        while True:
            client = Redis(connection_pool=self._connections.pool())
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(written(self._graph))
                    wake()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            wake()
            except (RedisError, OSError):
                await asyncio.sleep(_RELISTEN_S)  # the engine restarts
            finally:
                await client.aclose()

    async def _engine_back(self) -> bool:
        """Whether a supervised engine is (again) answering, waiting a while."""
        return self._engine is not None and await self._engine.wait_ready(_RESTART_WAIT)


class _Behind(StorageUnavailable):
    """A replica that has not yet applied what the caller read after: the
    primary answers instead."""
