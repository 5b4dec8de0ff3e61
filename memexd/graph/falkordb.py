"""FalkorDB over its native protocol (never the experimental Bolt port)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urlparse

from falkordb.asyncio import FalkorDB

from memexd.errors import BadUserInput, StorageError
from memexd.graph.errors import MissingGraph, falkordb_errors
from memexd.types import Params, Row

__all__ = ["FalkorStore", "encode_params"]

_INT64 = (-(1 << 63), (1 << 63) - 1)


class FalkorStore:
    """A :class:`memexd.types.GraphStore` on one FalkorDB graph."""

    backend = "falkordb"

    def __init__(
        self,
        client: FalkorDB,
        graph: str,
        timeout_ms: int | None = None,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._client = client
        self._graph = client.select_graph(graph)
        self._timeout = timeout_ms
        self._on_close = on_close

    @classmethod
    def connect(
        cls,
        *,
        uri: str | None = None,
        unix_socket: str | None = None,
        graph: str,
        password: str | None = None,
        timeout_ms: int | None = None,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> FalkorStore:
        # The client talks to the server while it is built (a cluster probe).
        with falkordb_errors():
            if unix_socket is not None:
                client = FalkorDB(unix_socket_path=unix_socket, max_connections=64)
            else:
                parsed = urlparse(uri or "")
                client = FalkorDB(
                    host=parsed.hostname or "localhost",
                    port=parsed.port or 6379,
                    username=parsed.username or None,
                    password=parsed.password or password,
                    max_connections=64,
                )
        return cls(client, graph, timeout_ms, on_close)

    @property
    def graph_name(self) -> str:
        return str(self._graph.name)

    def with_graph(self, graph: str) -> FalkorStore:
        """Another graph on the same server and connection pool."""
        return FalkorStore(self._client, graph, self._timeout)

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=True)

    async def write(self, text: str, params: Params) -> list[Row]:
        return await self._run(text, params, read_only=False)

    async def execute_ddl(self, text: str) -> None:
        with falkordb_errors():
            await self._graph.query(text)

    async def create_unique(self, label: str, prop: str) -> None:
        with falkordb_errors():
            await self._graph.create_node_unique_constraint(label, prop)

    async def drop(self) -> None:
        """Delete the whole graph (tests, ``memexd reset``)."""
        with falkordb_errors():
            await self._graph.delete()

    async def ping(self) -> None:
        with falkordb_errors():
            await self._client.connection.ping()

    async def close(self) -> None:
        await self._client.connection.aclose()
        if self._on_close is not None:
            await self._on_close()

    async def _run(self, text: str, params: Params, *, read_only: bool) -> list[Row]:
        command = ["GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY", self._graph.name]
        command += [encode_params(params) + text, "--compact"]
        if self._timeout:
            command += ["timeout", self._timeout]
        try:
            with falkordb_errors():
                reply = await self._client.connection.execute_command(*command)
                return _rows(reply)
        except MissingGraph:
            return []  # nothing written yet: every read is empty


def _rows(reply: list[Any]) -> list[Row]:
    """Rows of a ``--compact`` reply.

    Our own parser: the client's awaits once per value, which made reading
    10,000 items cost 0.4 s. memexd queries return scalars, lists and maps only.
    """
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
