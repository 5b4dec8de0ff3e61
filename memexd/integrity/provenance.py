"""Provenance and dependency questions: support trees and sets, dependents,
stale items. Every walk is :func:`memexd.integrity.traversal.walk` (linear)."""

from __future__ import annotations

from dataclasses import dataclass

from memexd.errors import BadUserInput, ResourceExhausted
from memexd.graph import Graph
from memexd.ids import check_uuid
from memexd.integrity.traversal import Reach, Walk, walk
from memexd.memory.model import Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import item_from_row
from memexd.settings import Settings

__all__ = ["Provenance", "StaleItem", "SupportTree"]


@dataclass(frozen=True, slots=True)
class SupportTree:
    root: str
    #: Items with their BFS depth (root 0), in BFS order.
    nodes: list[tuple[Item, int]]
    #: ``(child, parent)`` links between the nodes.
    links: list[tuple[str, str]]
    truncated: bool


@dataclass(frozen=True, slots=True)
class StaleItem:
    item: Item
    missing_parents: list[str]


class Provenance:
    def __init__(self, graph: Graph, settings: Settings, reads: ItemReads) -> None:
        self.graph = graph
        self.settings = settings
        self.reads = reads

    async def reach(
        self, item_id: str, how: Walk, max_depth: int | None = None, *, steps: bool = True
    ) -> Reach:
        limit = self.settings.traversal_max_depth
        if max_depth is not None and max_depth < 0:
            raise BadUserInput("must not be negative", field="maxDepth")
        return await walk(
            self.graph,
            check_uuid(item_id),
            how,
            max_depth=limit if max_depth is None else min(max_depth, limit),
            max_nodes=self.settings.traversal_max_nodes,
            steps=steps,
        )

    async def support_tree(self, item_id: str, max_depth: int | None) -> SupportTree | None:
        reach = await self.reach(item_id, Walk.PARENTS, max_depth)
        if not reach.found:
            return None
        items = await self.reads.get_many(list(reach.depth))
        nodes = [(items[i], d) for i, d in reach.depth.items() if i in items]
        return SupportTree(item_id, nodes, reach.links(), reach.truncated)

    async def support_set(self, item_id: str) -> list[Item]:
        """The item and everything that supports it, deduplicated, item first."""
        reach = await self.complete(item_id, Walk.PARENTS, "support set", steps=False)
        return await self._items(reach)

    async def dependents(self, item_id: str, transitive: bool) -> list[Item]:
        if not transitive:
            return await self.reads.children(item_id)
        reach = await self.complete(item_id, Walk.CHILDREN, "dependents", steps=False)
        reach.depth.pop(check_uuid(item_id), None)
        return await self._items(reach)

    async def complete(self, item_id: str, how: Walk, what: str, *, steps: bool = True) -> Reach:
        """A whole reach, or an error naming the limit it hit (never a silent part)."""
        reach = await self.reach(item_id, how, steps=steps)
        if reach.truncated:
            s = self.settings
            raise ResourceExhausted(
                f"the {what} of {item_id} exceeds the traversal limits "
                f"(depth {s.traversal_max_depth}, {s.traversal_max_nodes} items); "
                "use supportTree with maxDepth to page through it"
            )
        return reach

    async def _items(self, reach: Reach) -> list[Item]:
        found = await self.reads.get_many(list(reach.depth))
        return [found[i] for i in reach.depth if i in found]

    async def stale_items(self, limit: int | None = None) -> list[StaleItem]:
        """Live items naming a parent that is missing or retracted."""
        page = self.settings.max_page if limit is None else limit
        rows = await self.graph.read("item_stale", {"limit": page})
        out = []
        for row in rows:
            item = item_from_row(row["item"])
            bad = set(row["bad"])
            out.append(StaleItem(item, [p for p in dict.fromkeys(item.parents) if p in bad]))
        return out
