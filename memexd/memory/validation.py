"""Input checks that run before anything reaches the graph."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from memexd.errors import BadUserInput
from memexd.ids import check_uuid
from memexd.memory.meta import dump_json
from memexd.types import JSONObject

__all__ = [
    "RESERVED_KINDS",
    "check_edge_kind",
    "check_finite",
    "check_ids",
    "check_limit",
    "check_object",
    "check_score",
    "check_text",
    "json_object",
]

EDGE_KIND = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
#: Relationship types memexd uses itself; an edge kind may not take them.
RESERVED_KINDS = frozenset({"PARENT", "AWAITS"})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check_score(value: float | None, field: str, *, required: bool = False) -> float | None:
    if value is None:
        if required:
            raise BadUserInput("is required", field=field)
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadUserInput("must be a number", field=field)
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise BadUserInput(f"must be within [0, 1], got {value}", field=field)
    return float(value)


def check_finite(value: float | None, field: str) -> float | None:
    """An optional number that must be finite (weights, thresholds)."""
    if value is not None and not math.isfinite(value):
        raise BadUserInput("must be finite", field=field)
    return value


def check_text(value: str | None, field: str, *, max_len: int = 512) -> str:
    if not isinstance(value, str) or not value:
        raise BadUserInput("must be a non-empty string", field=field)
    if len(value) > max_len:
        raise BadUserInput(f"longer than {max_len} characters", field=field)
    if _CONTROL.search(value):
        raise BadUserInput("contains control characters", field=field)
    return value


def check_edge_kind(kind: str, field: str = "kind") -> str:
    if not isinstance(kind, str) or not EDGE_KIND.match(kind):
        raise BadUserInput(
            f"{kind!r} is not a valid edge kind (upper case, digits, underscore; "
            "starts with a letter; at most 64 characters)",
            field=field,
        )
    if kind in RESERVED_KINDS:
        raise BadUserInput(f"{kind} is reserved", field=field)
    return kind


def check_object(value: Any, field: str, *, max_bytes: int) -> JSONObject:
    """A JSON object of bounded size (``content``, ``meta``)."""
    return json_object(value, field, max_bytes=max_bytes)[0]


def json_object(value: Any, field: str, *, max_bytes: int) -> tuple[JSONObject, str]:
    """A JSON object of bounded size and its stored text, serialised once."""
    if not isinstance(value, dict):
        raise BadUserInput("must be a JSON object", field=field)
    text = dump_json(value)
    # a UTF-8 character takes at most 4 bytes: encode only when it could matter
    if len(text) * 4 > max_bytes and len(text.encode()) > max_bytes:
        raise BadUserInput(f"larger than {max_bytes} bytes", field=field)
    return value, text


def check_ids(values: Sequence[str], field: str, *, max_len: int) -> list[str]:
    if len(values) > max_len:
        raise BadUserInput(f"more than {max_len} ids", field=field)
    return [check_uuid(v, field) for v in values]


def check_limit(value: int | None, field: str, *, maximum: int) -> int | None:
    if value is None:
        return None
    if value < 0:
        raise BadUserInput("must not be negative", field=field)
    if value > maximum:
        raise BadUserInput(f"must be at most {maximum}", field=field)
    return value
