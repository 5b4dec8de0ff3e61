"""A small in-memory reference of MemEX filter and sort semantics (tests only)."""

from __future__ import annotations

import math
from typing import Any

INTERVAL_MS = {"HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 604_800_000}
_MISSING = object()


def get_path(meta: dict[str, Any] | None, path: str) -> Any:
    value: Any = meta or {}
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def decay_multiplier(cfg: dict[str, Any], created_ms: int, now_ms: int) -> float:
    if created_ms >= now_ms:
        return 1.0
    n = (now_ms - created_ms) / INTERVAL_MS[cfg["interval"]]
    rate = cfg["rate"]
    if cfg["type"] == "EXPONENTIAL":
        return float((1.0 - rate) ** n)
    if cfg["type"] == "LINEAR":
        return max(0.0, 1.0 - rate * n)
    return float((1.0 - rate) ** math.floor(n))


def _in_range(value: float, rng: dict[str, Any] | None) -> bool:
    if not rng:
        return True
    lo, hi = rng.get("min"), rng.get("max")
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def matches(item: dict[str, Any], f: dict[str, Any] | None, now_ms: int) -> bool:
    """Does a GraphQL-shaped item match a GraphQL-shaped MemoryFilter?"""
    if not f:
        return True
    checks = []
    if "ids" in f:
        checks.append(item["id"] in f["ids"])
    for key in ("scope", "author", "kind", "sourceKind", "intentId", "taskId"):
        if key in f:
            checks.append(item[key] == f[key])
    if "scopePrefix" in f:
        checks.append(item["scope"].startswith(f["scopePrefix"]))
    if "intentIds" in f:
        checks.append(item["intentId"] in f["intentIds"])
    if "taskIds" in f:
        checks.append(item["taskId"] in f["taskIds"])
    for score, rng in (f.get("range") or {}).items():
        checks.append(_in_range(item[score] or 0.0, rng))
    parents = item["parents"]
    if "hasParent" in f:
        checks.append(f["hasParent"] in parents)
    if "isRoot" in f:
        checks.append((len(parents) == 0) == f["isRoot"])
    pf = f.get("parents") or {}
    if "includes" in pf:
        checks.append(pf["includes"] in parents)
    if "includesAny" in pf:
        checks.append(any(p in parents for p in pf["includesAny"]))
    if "includesAll" in pf:
        checks.append(all(p in parents for p in pf["includesAll"]))
    if "count" in pf:
        checks.append(_in_range(len(parents), pf["count"]))
    if "decay" in f:
        d = f["decay"]
        checks.append(decay_multiplier(d["config"], item["_ms"], now_ms) >= d["min"])
    created = f.get("created") or {}
    if "before" in created:
        checks.append(item["_ms"] < created["_before_ms"])
    if "after" in created:
        checks.append(item["_ms"] > created["_after_ms"])
    for path, value in (f.get("meta") or {}).items():
        found = get_path(item["meta"], path)
        checks.append(found is not _MISSING and same(found, value))
    for path in f.get("metaHas") or ():
        checks.append(get_path(item["meta"], path) is not _MISSING)
    if "not" in f:
        checks.append(not matches(item, f["not"], now_ms))
    if "or" in f:
        checks.append(any(matches(item, sub, now_ms) for sub in f["or"]))
    return all(checks)


def sort_key(sort: list[dict[str, str]]) -> Any:
    """A key function for MemEX multi-key sorting with ties broken by id."""
    field = {"AUTHORITY": "authority", "CONVICTION": "conviction", "IMPORTANCE": "importance"}

    def key(item: dict[str, Any]) -> tuple[Any, ...]:
        parts: list[Any] = []
        for option in sort:
            value = (
                item["_ms"] if option["field"] == "RECENCY" else item[field[option["field"]]] or 0.0
            )
            parts.append(-value if option["order"] == "DESC" else value)
        return (*parts, item["id"])

    return key
