"""MemEX's sort order, written out for the tests (filters are checked against
memex-python itself: tests/test_filters.py)."""

from __future__ import annotations

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
