"""Graph statistics (MemEX's ``getStats``), aggregated in the database.

Over what the caller can read: live items in its scopes, and live edges whose
two ends it can read. Keys are listed in the order MemEX's dicts have them,
first appearance in insertion order (ties, as for items created in one
batch, by key).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memexd.graph import Graph
from memexd.types import Row

__all__ = ["EdgeStats", "GraphStats", "ItemStats", "Stats"]

Counts = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ItemStats:
    total: int
    by_kind: Counts
    by_source_kind: Counts
    by_author: Counts
    by_scope: Counts
    with_parents: int
    root: int


@dataclass(frozen=True, slots=True)
class EdgeStats:
    total: int
    active: int
    by_kind: Counts


@dataclass(frozen=True, slots=True)
class GraphStats:
    items: ItemStats
    edges: EdgeStats


class Stats:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    async def read(self) -> GraphStats:
        return GraphStats(await self.items(), await self.edges())

    async def items(self) -> ItemStats:
        return _items(await self.graph.read("stats_items", {}))

    async def edges(self) -> EdgeStats:
        return _edges(await self.graph.read("stats_edges", {}))


def _items(rows: list[Row]) -> ItemStats:
    dims: dict[str, list[Row]] = {}
    for row in rows:
        dims.setdefault(row["dim"], []).append(row)
    parents = {row["key"]: int(row["count"]) for row in dims.get("parents", ())}
    return ItemStats(
        total=sum(parents.values()),
        by_kind=_ordered(dims.get("kind", ())),
        by_source_kind=_ordered(dims.get("source_kind", ())),
        by_author=_ordered(dims.get("author", ())),
        by_scope=_ordered(dims.get("scope", ())),
        with_parents=parents.get("with", 0),
        root=parents.get("root", 0),
    )


def _edges(rows: list[Row]) -> EdgeStats:
    return EdgeStats(
        total=sum(int(r["total"]) for r in rows),
        active=sum(int(r["active"]) for r in rows),
        by_kind=_ordered(rows, key="kind", count="total"),
    )


def _ordered(rows: Iterable[Row], *, key: str = "key", count: str = "count") -> Counts:
    ranked = sorted(rows, key=lambda r: (int(r["first"]), str(r[key])))
    return tuple((str(r[key]), int(r[count])) for r in ranked)
