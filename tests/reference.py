"""MemEX's sort order, written out for the tests (filters are checked against
memex-python itself: tests/test_filters.py)."""

from __future__ import annotations

import math
from typing import Any


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


#: SPEC §11's importance of each priority.
IMPORTANCE = {"P0": 2.0, "P1": 1.5, "P2": 1.0, "P3": 0.5}


def decay_score(created_at: int, priority: str, count: int, now: int, half_life: float) -> float:
    """SPEC §11's decay score, as seed 000 writes it:
    recency * (1 + access) * importance."""
    recency = math.exp(-max(0, now - created_at) / half_life)
    return recency * (1 + math.log1p(count) / 10) * IMPORTANCE[priority]
