"""FalkorDB's wire format: commands in the Redis protocol (RESP), the
``--compact`` replies memexd reads, and the ``CYPHER a=… b=…`` parameter
header (FalkorDB takes parameters as Cypher literals in front of the query).
Both directions are on the path of every query, hence the type dispatch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import orjson

from memexd.errors import BadUserInput, StorageError
from memexd.types import Params, Row

__all__ = [
    "Encoded",
    "encode_params",
    "encoded",
    "header",
    "pack",
    "pack_args",
    "pack_head",
    "rows",
]

_INT64 = (-(1 << 63), (1 << 63) - 1)


def pack(args: list[Any]) -> bytes:
    """A command in the Redis protocol (RESP): an array of bulk strings."""
    return pack_head(len(args), args)


def pack_head(count: int, args: list[Any]) -> bytes:
    """The start of a command of ``count`` arguments: the first ones, ``args``."""
    return b"*%d\r\n" % count + b"".join(_bulk(_arg(a)) for a in args)


def pack_args(args: list[Any]) -> bytes:
    """Bulk strings for ``args``, following a :func:`pack_head`."""
    return b"".join(_bulk(_arg(a)) for a in args)


def _bulk(data: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(data), data)


def _arg(value: str | int | bytes) -> bytes:
    if isinstance(value, bytes):
        return value
    return (value if isinstance(value, str) else str(value)).encode()


@lru_cache(maxsize=1024)
def encoded(text: str) -> bytes:
    """A query text as sent (texts repeat: one per query and filter shape)."""
    return text.encode()


def rows(reply: list[Any]) -> list[Row]:
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


class Encoded(dict[str, Any]):
    """Parameters with their ``CYPHER`` header encoded ahead of sending.

    Encoding a 1,000-item batch costs milliseconds of CPU; bulk paths encode
    batch N+1 while the engine writes batch N (``memexd.graph.Graph.statement``).
    """

    __slots__ = ("wire",)

    def __init__(self, params: Params) -> None:
        super().__init__(params)
        self.wire = _header(params)


def header(params: Params) -> bytes:
    """The ``CYPHER a=… b=…`` header as sent: encoded ahead when it was."""
    if type(params) is Encoded:
        return params.wire
    return _header(params)


def encode_params(params: Params) -> str:
    """The ``CYPHER a=… b=…`` header FalkorDB reads parameters from, as text.

    We write it ourselves: the client's encoder emits ``nan``/``inf`` and
    integers outside int64 (silently clamped by the server), and a NUL byte
    would cut the query short.
    """
    return _header(params).decode()


def _header(params: Params) -> bytes:
    """The header as bytes. On the path of every write (a 1,000-item batch is
    ~0.5 MB of it), hence the type dispatch and the :func:`_table` shortcut."""
    if not params:
        return b""
    parts = [b"CYPHER"]
    for key, value in params.items():
        text = _table(value) if type(value) is list else None
        if text is None:
            text = _literal(value).encode()
        parts.append(_key(key).encode() + b"=" + text)
    return b" ".join(parts) + b" "


#: What a cell of a :func:`_table` may hold.
_CELLS = frozenset({str, int, float, bool, type(None), list})


def _table(rows: list[Any]) -> bytes | None:
    r"""A list of plain values (strings, finite floats, 64-bit integers,
    booleans, nulls, lists of strings), or a list of lists of them, in one
    orjson call, or None when ``rows`` is neither: the positional rows bulk
    statements take (20,000 cells to a batch, which value by value cost
    ~10 ms), and the ids and versions a walk or a cascade passes.

    orjson's JSON is a Cypher literal here: FalkorDB reads the escapes
    orjson writes (``\\ \" \n \r \t \b \f``), but not ``\uXXXX``,
    which orjson writes for other control characters: such a table takes
    the value-by-value way (which refuses NUL). So do NaN and infinities
    (orjson would write ``null``) and integers past 64 bits.
    """
    if not rows:
        return None
    nested = all(type(row) is list for row in rows)
    cells = [cell for row in rows for cell in row] if nested else rows
    kinds = set(map(type, cells))
    if not kinds <= _CELLS:
        return None
    if float in kinds:
        floats = [c for c in cells if type(c) is float]
        total = sum(floats)  # finite: so is every one; else look closer (an overflow)
        if total - total != 0.0 and not all(map(math.isfinite, floats)):
            return None
    if int in kinds:
        ints = [c for c in cells if type(c) is int]
        if min(ints) < _INT64[0] or max(ints) > _INT64[1]:
            return None
    if list in kinds:
        lists = [c for c in cells if type(c) is list]
        if not all(type(x) is str for cell in lists for x in cell):
            return None
    try:
        text = orjson.dumps(rows)
    except orjson.JSONEncodeError:  # e.g. a lone surrogate
        return None
    return None if b"\\u" in text else text


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
