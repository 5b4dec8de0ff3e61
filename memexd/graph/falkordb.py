"""FalkorDB over its native protocol (never the experimental Bolt port).

Commands go through redis-py's asyncio client, the transport of the falkordb
client, with a bounded connection pool of our own: the falkordb client's
start-up cluster probe rebuilds a synchronous client from the pool's
settings, which an asyncio blocking pool cannot give it.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urlparse

from redis.asyncio import ConnectionPool, Redis, UnixDomainSocketConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from memexd.errors import BadUserInput, StorageError, StorageUnavailable
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.errors import ConnectionLost, EngineUnreachable, MissingGraph, falkordb_errors
from memexd.types import Params, Row

__all__ = ["FalkorStore", "encode_params"]

_INT64 = (-(1 << 63), (1 << 63) - 1)
#: How long a query waits for a restarting embedded engine.
_RESTART_WAIT = 15.0


class FalkorStore:
    """A :class:`memexd.types.GraphStore` on one FalkorDB graph.

    Connections come from a bounded pool: past ``pool_size`` queries in
    flight, a query waits up to ``pool_wait_ms`` for one, then fails with
    ``UNAVAILABLE``. The client never retries by itself (a write re-sent after
    a broken connection could apply twice). With an embedded engine, a query
    that finds it down waits for the supervisor to bring it back; a read that
    lost its connection is sent again, a write is not (its outcome is unknown).
    """

    backend = "falkordb"

    def __init__(
        self,
        client: Redis,
        graph: str,
        timeout_ms: int | None = None,
        engine: EmbeddedFalkor | None = None,
        gate: _Gate | None = None,
    ) -> None:
        self._client = client
        self._graph = graph
        self._timeout = timeout_ms
        self._engine = engine
        self._gate = gate or _Gate(64, 5.0)
        self._restarts = 0

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
        engine: EmbeddedFalkor | None = None,
    ) -> FalkorStore:
        options: dict[str, Any] = {
            "max_connections": pool_size,  # never reached: the gate admits pool_size
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": 5,
            # a backstop: the engine's own timeout answers first
            "socket_timeout": None if timeout_ms is None else timeout_ms / 1000 + 30,
        }
        if unix_socket is not None:
            pool = ConnectionPool(
                connection_class=UnixDomainSocketConnection, path=unix_socket, **options
            )
        else:
            parsed = urlparse(uri or "")
            pool = ConnectionPool(
                host=parsed.hostname or "localhost",
                port=parsed.port or 6379,
                username=parsed.username or None,
                password=parsed.password or password,
                **options,
            )
        gate = _Gate(pool_size, pool_wait_ms / 1000)
        return cls(Redis(connection_pool=pool), graph, timeout_ms, engine, gate)

    @property
    def graph_name(self) -> str:
        return self._graph

    def with_graph(self, graph: str) -> FalkorStore:
        """Another graph on the same server and connection pool."""
        return FalkorStore(self._client, graph, self._timeout, self._engine, self._gate)

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=True)

    async def write(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=False)

    async def execute_ddl(self, text: str) -> None:
        await self._send(["GRAPH.QUERY", self._graph, text])

    async def create_unique(self, label: str, prop: str) -> None:
        command = ["GRAPH.CONSTRAINT", "CREATE", self._graph, "UNIQUE", "NODE", label]
        await self._send([*command, "PROPERTIES", 1, prop])

    async def compact(self) -> None:
        """Compact the embedded engine's append-only file (after schema changes)."""
        if self._engine is not None:
            await self._engine.compact()

    async def drop(self) -> None:
        """Delete the whole graph (tests, ``memexd reset``)."""
        await self._send(["GRAPH.DELETE", self._graph])

    async def ping(self) -> None:
        await self._send(["PING"])

    async def close(self) -> None:
        await self._client.aclose()
        if self._engine is not None:
            await self._engine.stop()

    async def _run(self, text: str, params: Params, *, read_only: bool) -> list[Row]:
        command: list[Any] = ["GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY", self._graph]
        command += [encode_params(params) + text, "--compact"]
        if self._timeout:
            command += ["timeout", self._timeout]
        try:
            return await self._send(command)
        except EngineUnreachable:
            if not await self._engine_back():
                raise
        except ConnectionLost:
            if not read_only or not await self._engine_back():
                raise
        return await self._send(command)

    async def _send(self, command: list[Any]) -> list[Row]:
        engine = self._engine
        if engine is not None and engine.restarts != self._restarts:
            # connections kept from before a restart point at a dead process
            self._restarts = engine.restarts
            await self._client.connection_pool.disconnect(inuse_connections=False)
        await self._gate.enter()
        try:
            with falkordb_errors():
                reply = await self._client.execute_command(*command)  # type: ignore[no-untyped-call]
                return _rows(reply)
        except MissingGraph:
            return []  # nothing written yet: every read is empty
        finally:
            self._gate.leave()

    async def _engine_back(self) -> bool:
        """Whether a supervised engine is (again) answering, waiting a while."""
        return self._engine is not None and await self._engine.wait_ready(_RESTART_WAIT)


class _Gate:
    """At most ``size`` queries in flight; the others wait up to ``wait`` seconds.

    A semaphore in front of a plain pool: redis-py's blocking pool takes a
    condition variable and a timeout on every query, even when a connection
    is free (a tenth of a point read)."""

    def __init__(self, size: int, wait: float) -> None:
        self.free = asyncio.Semaphore(size)
        self.wait = wait

    async def enter(self) -> None:
        if not self.free.locked():
            await self.free.acquire()  # free: returns at once
            return
        try:
            async with asyncio.timeout(self.wait):
                await self.free.acquire()
        except TimeoutError:
            raise StorageUnavailable(
                "every connection to the graph engine is busy (MEMEXD_POOL_SIZE); try again"
            ) from None

    def leave(self) -> None:
        self.free.release()


def _rows(reply: list[Any]) -> list[Row]:
    """Rows of a ``--compact`` reply.

    Our own parser: the client's awaits once per value, which made reading
    10,000 items cost 0.4 s. memexd queries return scalars, lists and maps only.
    """
    if not isinstance(reply, list):
        return []  # PING, DDL and other replies that carry no rows
    for part in reply:
        if isinstance(part, Exception):
            raise part
    if len(reply) < 3:
        return []
    names = [column[1] for column in reply[0]]
    return [dict(zip(names, map(_value, row), strict=True)) for row in reply[1]]


def _value(cell: list[Any]) -> Any:
    kind, value = cell
    if kind == _STRING:
        return value
    if kind == _INTEGER:
        return int(value)
    if kind == _NULL:
        return None
    if kind == _DOUBLE:
        return float(value)
    if kind == _BOOLEAN:
        return value == "true"
    if kind == _ARRAY:
        return [_value(v) for v in value]
    if kind == _MAP:
        return {value[i]: _value(value[i + 1]) for i in range(0, len(value), 2)}
    raise StorageError(f"unexpected FalkorDB result type {kind}")


# FalkorDB's compact result value types (falkordb's ResultSetScalarTypes)
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _MAP = 1, 2, 3, 4, 5, 6, 10


def encode_params(params: Params) -> str:
    """The ``CYPHER a=… b=…`` header FalkorDB reads parameters from.

    We write it ourselves: the client's encoder emits ``nan``/``inf`` and
    integers outside int64 (silently clamped by the server), and a NUL byte
    would cut the query short. It is on the hot path of every write (a
    1,000-item batch is ~1 MB of header), hence the type dispatch.
    """
    if not params:
        return ""
    parts = ["CYPHER"]
    for key, value in params.items():
        parts.append(f"{_key(key)}={_literal(value)}")
    return " ".join(parts) + " "


@lru_cache(maxsize=4096)
def _key(key: str) -> str:
    if not key or "`" in key or "\x00" in key:
        raise BadUserInput(f"unsupported property or parameter name {key!r}")
    return f"`{key}`"


def _string(value: str) -> str:
    if "\x00" in value:
        raise BadUserInput("strings may not contain NUL characters")
    if "\\" in value or '"' in value:
        value = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{value}"'


def _int(value: int) -> str:
    if not _INT64[0] <= value <= _INT64[1]:
        raise BadUserInput(f"integer {value} is outside the 64-bit range")
    return str(value)


def _float(value: float) -> str:
    if not math.isfinite(value):
        raise BadUserInput("numbers must be finite")
    return repr(value)


def _list(value: list[Any] | tuple[Any, ...]) -> str:
    return "[" + ",".join([_literal(v) for v in value]) + "]"


def _map(value: Mapping[str, Any]) -> str:
    return "{" + ",".join([f"{_key(str(k))}:{_literal(v)}" for k, v in value.items()]) + "}"


_ENCODERS: dict[type, Callable[[Any], str]] = {
    str: _string,
    bool: lambda v: "true" if v else "false",
    int: _int,
    float: _float,
    list: _list,
    tuple: _list,
    dict: _map,
    type(None): lambda _: "null",
}


def _literal(value: Any) -> str:
    encoder = _ENCODERS.get(type(value))
    if encoder is not None:
        return encoder(value)
    if isinstance(value, Mapping):  # OrderedDict and friends
        return _map(value)
    if isinstance(value, list | tuple):
        return _list(value)
    raise TypeError(f"cannot pass {type(value).__name__} as a Cypher parameter")
