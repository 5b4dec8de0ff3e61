"""JSON helpers: canonical text and the flattened, filterable copy of ``meta``.

Neither engine stores maps, so ``meta`` is kept as JSON text plus one
property per dot path: ``meta.<path>`` for scalar leaves and ``metaj.<path>``
(canonical JSON) for objects, lists and nulls. A filter on a path compares
against whichever the value's type selects; ``metaHas`` checks either.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from memexd.errors import BadUserInput
from memexd.types import JSON, JSONObject

__all__ = [
    "META_PATH",
    "canonical_json",
    "dump_json",
    "flatten_meta",
    "meta_keys",
    "path_keys",
]

META_PATH = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_KEY = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_MAX_DEPTH = 8
_MAX_PATHS = 256
_INT64 = 1 << 63


def dump_json(value: JSON) -> str:
    """Compact JSON text for storage.

    Values reach us from JSON documents decoded by orjson, which refuses NaN
    and infinities, so orjson's habit of writing those as null never applies.
    """
    try:
        return orjson.dumps(value).decode()
    except TypeError as exc:  # e.g. integers beyond 64 bits
        raise BadUserInput(f"not representable as JSON: {exc}") from exc


def canonical_json(value: JSON) -> str:
    """Sorted keys, no spaces, integral floats as integers: equal values, equal text."""
    return json.dumps(_normalise(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _normalise(value: JSON) -> JSON:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadUserInput("JSON numbers must be finite")
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    return value


def scalar_prop(path: str) -> str:
    return f"meta.{path}"


def json_prop(path: str) -> str:
    return f"metaj.{path}"


def path_keys(path: str) -> tuple[str, str]:
    """Property names that may hold the value at a meta dot path."""
    if not META_PATH.match(path) or ".." in path or path.startswith(".") or path.endswith("."):
        raise BadUserInput(f"invalid meta path {path!r}", field="meta")
    return scalar_prop(path), json_prop(path)


def flatten_meta(meta: JSONObject | None) -> dict[str, Any]:
    """The flattened properties of ``meta``.

    Keys that are not plain identifiers (``[A-Za-z0-9_-]``) are kept in the
    JSON text but are not filterable; so are paths deeper than eight levels.
    """
    out: dict[str, Any] = {}
    if meta:
        _walk(meta, "", 1, out)
    return out


def _walk(obj: JSONObject, prefix: str, depth: int, out: dict[str, Any]) -> None:
    for key, value in obj.items():
        if not _KEY.match(key):
            continue
        path = f"{prefix}{key}"
        if len(path) > 128 or len(out) >= _MAX_PATHS:
            continue
        if isinstance(value, bool | str):
            out[scalar_prop(path)] = value
        elif isinstance(value, int):
            out[scalar_prop(path)] = value if -_INT64 <= value < _INT64 else float(value)
        elif isinstance(value, float):
            out[scalar_prop(path)] = _normalise(value)
        else:
            out[json_prop(path)] = canonical_json(value)
            if isinstance(value, dict) and depth < _MAX_DEPTH:
                _walk(value, f"{path}.", depth + 1, out)


def meta_keys(props: dict[str, Any]) -> list[str]:
    """The flattened meta property names present in a property map."""
    return [k for k in props if k.startswith(("meta.", "metaj."))]
