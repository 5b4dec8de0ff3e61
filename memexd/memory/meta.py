"""JSON text and the flattened, filterable copy of ``meta``.

Neither engine stores maps, so ``meta`` is kept as JSON text plus one
property per dot path: ``meta.<path>`` for scalar leaves and ``metaj.<path>``
(canonical JSON) for objects, lists and nulls. A filter on a path compares
against whichever the value's type selects; ``metaHas`` checks either.
Values reaching this module were checked by :mod:`memexd.memory.validation`.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

import orjson

from memexd.types import JSON, JSONObject

__all__ = ["canonical_json", "dump_json", "flatten_meta", "path_keys"]

_KEY = re.compile(r"[A-Za-z0-9_-]{1,128}")
_MAX_DEPTH = 8
_MAX_PATHS = 256
_INT64 = 1 << 63


def dump_json(value: JSON) -> str:
    """Compact JSON text for storage (of validated values)."""
    return orjson.dumps(value).decode()


def canonical_json(value: JSON) -> str:
    """Sorted keys, no spaces, integral floats as integers: equal values, equal text."""
    return json.dumps(_normalise(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _normalise(value: JSON) -> JSON:
    if isinstance(value, float):
        return (
            int(value)
            if math.isfinite(value) and value.is_integer() and abs(value) < 2**53
            else value
        )
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    return value


def path_keys(path: str) -> tuple[str, str]:
    """Property names that may hold the value at a (checked) meta dot path."""
    return f"meta.{path}", f"metaj.{path}"


def flatten_meta(meta: JSONObject | None) -> dict[str, Any]:
    """The flattened properties of ``meta``.

    Keys that are not plain identifiers (``[A-Za-z0-9_-]``) are kept in the
    JSON text but are not filterable; so are paths deeper than eight levels
    and strings holding a NUL character.
    """
    out: dict[str, Any] = {}
    if meta:
        _walk(meta, "", 1, out)
    return out


@lru_cache(maxsize=4096)
def _flat_keys(prefix: str, key: str) -> tuple[str, str, str] | None:
    """The path of ``key`` under ``prefix`` and its two property names, or
    None when the key is not filterable (keys repeat from item to item)."""
    path = f"{prefix}{key}"
    if not _KEY.fullmatch(key) or len(path) > 128:
        return None
    return (path, *path_keys(path))


def _walk(obj: JSONObject, prefix: str, depth: int, out: dict[str, Any]) -> None:
    for key, value in obj.items():
        keys = _flat_keys(prefix, key)
        if keys is None or len(out) >= _MAX_PATHS:
            continue
        path, scalar, as_json = keys
        if isinstance(value, str):
            if "\x00" not in value:  # no engine takes NUL in a property; JSON keeps it
                out[scalar] = value
        elif isinstance(value, bool):
            out[scalar] = value
        elif isinstance(value, int):
            # validation refuses integers beyond 64 bits; a float copy stays
            # comparable if a caller below validation ever passes one
            out[scalar] = value if -_INT64 <= value < _INT64 else float(value)
        elif isinstance(value, float):
            out[scalar] = _normalise(value)
        else:
            out[as_json] = canonical_json(value)
            if isinstance(value, dict) and depth < _MAX_DEPTH:
                _walk(value, f"{path}.", depth + 1, out)
