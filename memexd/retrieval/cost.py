"""What an item costs against a budget, under the four cost models.

- ``UNIT``: 1.
- ``CONTENT_CHARS``: the length of the item's content as MemEX measures it in
  its own example, ``JSON.stringify(item.content).length``: compact JSON,
  numbers as JavaScript writes them (``2.0`` is ``2``, ``1e21`` is ``1e+21``),
  counted in UTF-16 code units. Key order does not change a length.
- ``CONTENT_TOKENS``: that length / 4, rounded up.
- ``META_FIELD``: the number at a meta dot path. Anything else there
  (absent, text, a boolean) is ``BAD_USER_INPUT``, and so is a negative or
  non-finite cost (MemEX's RangeError), naming the item.

The exact cost is worked out here from the stored text (exact, where the
engine's numbers are not); the database only applies a lower bound
(``fragments/score_cost``) to leave out what cannot fit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

from memexd.errors import BadUserInput
from memexd.retrieval.spec import CostSpec
from memexd.types import JSON, Row

__all__ = ["cost_of", "js_length", "js_number"]

_MISSING = object()
_SAFE_INT = 2**53


def cost_of(spec: CostSpec, item_id: str, stored: Row) -> float:
    """The cost of one item, from its stored properties (``@item``: the
    content and meta JSON texts, exact where the engine's numbers are not)."""
    if spec.model == "UNIT":
        return 1
    if spec.model != "META_FIELD":
        chars = js_length(orjson.loads(stored["content"]))
        return chars if spec.model == "CONTENT_CHARS" else math.ceil(chars / 4)
    meta = stored.get("meta")
    value = _path(orjson.loads(meta) if meta else None, spec.path or "")
    if value is _MISSING or isinstance(value, bool) or not isinstance(value, int | float):
        shown = "nothing" if value is _MISSING else json.dumps(value)[:40]
        raise BadUserInput(f"item {item_id} has {shown} at meta.{spec.path}, not a number",
                           field="cost.metaField")  # fmt: skip
    if value < 0 or not math.isfinite(value):
        raise BadUserInput(f"item {item_id} costs {value}; a cost is a finite number >= 0",
                           field="cost.metaField")  # fmt: skip
    return value


def _path(meta: Any, path: str) -> Any:
    current = meta
    for segment in path.split("."):
        if not isinstance(current, dict) or segment not in current:
            return _MISSING
        current = current[segment]
    return current


def js_length(value: JSON) -> int:
    """``JSON.stringify(value).length`` (UTF-16 code units)."""
    if isinstance(value, str):
        return _utf16(json.dumps(value, ensure_ascii=False))
    if isinstance(value, bool):
        return 4 if value else 5
    if value is None:
        return 4
    if isinstance(value, int | float):
        return len(js_number(value))
    if isinstance(value, dict):
        inner = sum(js_length(str(k)) + 1 + js_length(v) for k, v in value.items())
        return 2 + inner + max(0, len(value) - 1)
    if isinstance(value, list | tuple):
        return 2 + sum(js_length(v) for v in value) + max(0, len(value) - 1)
    raise TypeError(f"not JSON: {type(value).__name__}")


def _utf16(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def js_number(x: float) -> str:
    """A number as JavaScript writes it (ECMAScript ``Number::toString``)."""
    if isinstance(x, int) and abs(x) <= _SAFE_INT:
        return str(x)
    x = float(x)
    if not math.isfinite(x):
        return "null"  # JSON.stringify writes NaN and Infinity as null
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    digits, n = _shortest(abs(x))
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = f"e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return sign + mantissa + exponent


def _shortest(x: float) -> tuple[str, int]:
    """The shortest round-trip digits of ``x`` > 0 (Python's ``repr``, the
    same digits JavaScript picks) and ``n``: ``x = 0.digits · 10^n``."""
    mantissa, _, exp = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point
