"""Access statistics and the decay score (SPEC §11).

Reading an item with ``trackAccess`` (or ``recordAccess``) adds one to its
count and sets its last access time: two properties on the node, written by
one statement per request, never an event (access is a read, and the log
would grow with every read). Writes run one at a time on both engines, so
concurrent calls never lose a count. The decay score is computed by the
engine (``cypher/shapes/decay_score``), so sorting, filtering and archival by
it run there; the ``decayScore`` field reads it the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from memexd.errors import BadUserInput, MemoryNotFound
from memexd.graph import Graph
from memexd.graph.numbers import exact
from memexd.memory.model import Item
from memexd.memory.records import item_from_row
from memexd.memory.validation import Limits, check_finite, check_ids

__all__ = ["Usage", "check_half_life"]


def check_half_life(value: Any, default: float, field: str = "halfLifeMs") -> float:
    """A half-life in ms: positive and finite (the server's when absent)."""
    if value is None:
        return default
    checked = check_finite(value, field)
    if checked is None or checked <= 0:
        raise BadUserInput("must be a positive number of milliseconds", field=field)
    return checked


class Usage:
    """Access statistics and decay scores, as one caller (its grants)."""

    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def record(self, ids: Any) -> list[Item]:
        """``recordAccess``: one more access for each live readable item
        named (once each, however often named), all or none; the items in
        the order first named."""
        unique = list(dict.fromkeys(check_ids(ids, "ids", max_len=self.limits.max_list)))
        if not unique:
            return []
        params = {"ids": sorted(unique), "now": _now()}
        rows = await self.graph.write("access_record", params)
        if not rows:
            raise MemoryNotFound(await self._first_missing(unique))
        by_id = {item.id: item for item in (item_from_row(r["item"]) for r in rows)}
        return [by_id[i] for i in unique]

    async def track(self, ids: Sequence[str]) -> int:
        """Access for what a read returned (``trackAccess``); items retracted
        since are skipped. Returns how many were counted."""
        unique = sorted(set(ids))
        if not unique:
            return 0
        rows = await self.graph.write("access_track", {"ids": unique, "now": _now()})
        return int(rows[0]["tracked"]) if rows else 0

    async def decay_scores(
        self, ids: Sequence[str], now: int, half_life: float
    ) -> dict[str, float]:
        """Readable items' decay scores at ``now``, by id."""
        params = {"ids": list(ids), "now": now, "half_life": half_life}
        rows = await self.graph.read("item_decay", params)
        return {r["id"]: exact(r["score"]) for r in rows}

    async def _first_missing(self, ids: list[str]) -> str:
        rows = await self.graph.read("item_get", {"ids": ids, "include_retracted": False})
        live = {item_from_row(r["item"]).id for r in rows}
        return next((i for i in ids if i not in live), ids[0])


def _now() -> int:
    return time.time_ns() // 1_000_000
