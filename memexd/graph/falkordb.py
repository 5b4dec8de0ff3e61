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
import math
from collections.abc import Callable, Mapping
from functools import lru_cache, partial
from typing import Any
from urllib.parse import urlparse

from redis.asyncio import Connection, UnixDomainSocketConnection
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ResponseError

from memexd.errors import BadUserInput, ResourceExhausted, StorageError, StorageUnavailable
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.errors import ConnectionLost, EngineUnreachable, MissingGraph, falkordb_errors
from memexd.types import Params, Row

__all__ = ["FalkorStore", "encode_params"]

_INT64 = (-(1 << 63), (1 << 63) - 1)
#: How long a query waits for a restarting embedded engine.
_RESTART_WAIT = 15.0
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
    """

    backend = "falkordb"

    def __init__(
        self,
        connections: _Connections,
        graph: str,
        timeout_ms: int | None = None,
        engine: EmbeddedFalkor | None = None,
        gate: _Gate | None = None,
    ) -> None:
        self._connections = connections
        self._graph = graph
        self._timeout = timeout_ms
        # a backstop for an engine that stops answering: its own timeout answers first
        self._backstop = _Backstop(
            None if timeout_ms is None else timeout_ms / 1000 + _BACKSTOP_MARGIN
        )
        self._engine = engine
        self._gate = gate or _Gate(64, 5.0)
        self._restarts = 0
        # A query's command is these around its text (redis-py packs the
        # 3 KB text in ~8 µs, this in ~1).
        options: list[str | int] = ["--compact"]
        if timeout_ms:
            options += ["timeout", timeout_ms]
        self._heads = {
            read_only: _pack_head(3 + len(options), [verb, graph])
            for read_only, verb in ((True, "GRAPH.RO_QUERY"), (False, "GRAPH.QUERY"))
        }
        self._tail = b"\r\n" + b"".join(_bulk(_arg(o)) for o in options)

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
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": 5,
            # None, not redis-py's default of 5 s (a query may run longer): with
            # a timeout, redis-py runs every send in asyncio.wait_for, a task per
            # command (~60 µs on a point read); _send has its own backstop.
            "socket_timeout": None,
        }
        make: Callable[[], AbstractConnection]
        if unix_socket is not None:
            make = partial(UnixDomainSocketConnection, path=unix_socket, **options)
        else:
            parsed = urlparse(uri or "")
            make = partial(
                Connection,
                host=parsed.hostname or "localhost",
                port=parsed.port or 6379,
                username=parsed.username or None,
                password=parsed.password or password,
                **options,
            )
        gate = _Gate(pool_size, pool_wait_ms / 1000)
        return cls(_Connections(make), graph, timeout_ms, engine, gate)

    @property
    def graph_name(self) -> str:
        return self._graph

    def with_graph(self, graph: str) -> FalkorStore:
        """Another graph on the same server and connection pool."""
        return FalkorStore(self._connections, graph, self._timeout, self._engine, self._gate)

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=True)

    async def write(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=False)

    async def execute_ddl(self, text: str) -> None:
        await self._send(_pack(["GRAPH.QUERY", self._graph, text]))

    async def create_unique(self, label: str, prop: str) -> None:
        command = ["GRAPH.CONSTRAINT", "CREATE", self._graph, "UNIQUE", "NODE", label]
        await self._send(_pack([*command, "PROPERTIES", 1, prop]))

    async def compact(self) -> None:
        """Compact the embedded engine's append-only file (after schema changes)."""
        if self._engine is not None:
            await self._engine.compact()

    async def drop(self) -> None:
        """Delete the whole graph (tests, ``memexd reset``)."""
        await self._send(_pack(["GRAPH.DELETE", self._graph]))

    async def ping(self) -> None:
        await self._send(_pack(["PING"]))

    async def close(self) -> None:
        await self._connections.close()
        if self._engine is not None:
            await self._engine.stop()

    async def _run(self, text: str, params: Params, *, read_only: bool) -> list[Row]:
        query = encode_params(params).encode() + _encoded(text)
        command = self._heads[read_only] + b"$%d\r\n" % len(query) + query + self._tail
        try:
            return await self._send(command)
        except EngineUnreachable:
            if not await self._engine_back():
                raise
        except ConnectionLost:
            if not read_only or not await self._engine_back():
                raise
        return await self._send(command)

    async def _send(self, command: bytes) -> list[Row]:
        """Run one command, packed (see :func:`_pack`)."""
        engine = self._engine
        if engine is not None and engine.restarts != self._restarts:
            # connections kept from before a restart point at a dead process
            self._restarts = engine.restarts
            await self._connections.drop_idle()
        await self._gate.enter()
        watched = self._backstop.watch()
        try:
            with falkordb_errors():
                return _rows(await self._connections.run(command))
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

    async def _engine_back(self) -> bool:
        """Whether a supervised engine is (again) answering, waiting a while."""
        return self._engine is not None and await self._engine.wait_ready(_RESTART_WAIT)


class _Connections:
    """Connections to the engine, reused most recent first. How many exist
    is bounded by the :class:`_Gate` in front: each query holds one."""

    def __init__(self, make: Callable[[], AbstractConnection]) -> None:
        self._make = make
        self._idle: list[AbstractConnection] = []
        self._all: list[AbstractConnection] = []

    async def run(self, command: bytes) -> Any:
        """Send one packed command and read its reply, as redis-py's client
        does with no retries (errors come as redis-py raises them)."""
        if self._idle:
            connection = self._idle.pop()
        else:
            connection = self._make()
            self._all.append(connection)
        try:
            if not connection.is_connected:
                await connection.connect()  # type: ignore[no-untyped-call]
            await connection.send_packed_command(command, check_health=False)
            reply = await connection.read_response()
        except ResponseError:
            self._idle.append(connection)  # the whole error reply was read
            raise
        except BaseException:
            # redis-py drops the connection on a failed send or read (a late
            # reply would answer the next command); make sure of it
            try:
                with contextlib.suppress(Exception):
                    await connection.disconnect(nowait=True)
            finally:
                self._idle.append(connection)  # connects again when next used
            raise
        self._idle.append(connection)
        return reply

    async def drop_idle(self) -> None:
        """Disconnect the idle connections (they connect again when used);
        out of reach of other queries meanwhile."""
        idle, self._idle = self._idle, []
        try:
            for connection in idle:
                await connection.disconnect()
        finally:
            self._idle.extend(idle)

    async def close(self) -> None:
        for connection in self._all:
            await connection.disconnect()


class _Backstop:
    """Cancels a command still running ``seconds`` after it was sent: an
    engine that stopped answering (its own query timeout answers first).

    One timer for all commands in flight, re-armed for the oldest when it
    fires: a timer per command (``asyncio.timeout`` on uvloop) costs ~5 µs.
    A command is cancelled at the first firing after its deadline, never
    before; as with ``asyncio.timeout``, only the backstop's own
    cancellation counts as expiry (``Task.uncancel``).
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        #: task -> (deadline, the task's cancellation count when watched)
        self._running: dict[asyncio.Task[Any], tuple[float, int]] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None

    def watch(self) -> asyncio.Task[Any] | None:
        task = asyncio.current_task()
        if task is None or self.seconds is None:
            return None
        loop = task.get_loop()
        deadline = loop.time() + self.seconds
        self._running[task] = (deadline, task.cancelling())
        if self._timer is None:
            self._timer = loop.call_at(deadline, self._check, loop)
        return task

    def expired(self, task: asyncio.Task[Any] | None) -> bool:
        """Whether the backstop cancelled ``task`` (and nobody else did)."""
        if task is None or task not in self._expired:
            return False
        _, cancelling = self._running[task]
        return task.uncancel() <= cancelling

    def unwatch(self, task: asyncio.Task[Any] | None) -> None:
        # the timer stays: cancelling and re-arming it per command is what it saves
        if task is not None:
            del self._running[task]
            self._expired.discard(task)

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        now, next_deadline = loop.time(), math.inf
        for task, (deadline, _) in self._running.items():
            if deadline <= now:
                if task not in self._expired:
                    self._expired.add(task)
                    task.cancel()
            else:
                next_deadline = min(next_deadline, deadline)
        if next_deadline < math.inf:
            self._timer = loop.call_at(next_deadline, self._check, loop)


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


def _pack(args: list[Any]) -> bytes:
    """A command in the Redis protocol (RESP): an array of bulk strings."""
    return _pack_head(len(args), args)


def _pack_head(count: int, args: list[Any]) -> bytes:
    """The start of a command of ``count`` arguments: the first ones, ``args``."""
    return b"*%d\r\n" % count + b"".join(_bulk(_arg(a)) for a in args)


def _bulk(data: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(data), data)


def _arg(value: str | int | bytes) -> bytes:
    if isinstance(value, bytes):
        return value
    return (value if isinstance(value, str) else str(value)).encode()


@lru_cache(maxsize=1024)
def _encoded(text: str) -> bytes:
    """A query text as sent (texts repeat: one per query and filter shape)."""
    return text.encode()


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
        return _map_value(value)
    raise StorageError(f"unexpected FalkorDB result type {kind}")


def _map_value(pairs: list[Any]) -> dict[str, Any]:
    """A map's ``[key, cell, key, cell, …]``; strings, integers and nulls
    (most of a projected node) without a call each."""
    out: dict[str, Any] = {}
    items = iter(pairs)
    for key, cell in zip(items, items, strict=True):
        kind = cell[0]
        if kind == _STRING:
            out[key] = cell[1]
        elif kind == _INTEGER:
            out[key] = int(cell[1])
        elif kind == _NULL:
            out[key] = None
        else:
            out[key] = _value(cell)
    return out


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
