"""Provenance and dependency questions: support trees and sets, dependents,
stale items. Every walk is :func:`memexd.integrity.traversal.walk` (linear),
and at most ``max_concurrent_walks`` run at once, so a burst of big walks
queues instead of taking the process's memory."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memexd.errors import ResourceExhausted
from memexd.graph import Graph
from memexd.integrity.ahead import Ahead
from memexd.integrity.traversal import Reach, Walk, walk
from memexd.memory.model import Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import item_from_row
from memexd.memory.validation import check_limit, check_uuid
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
    def __init__(
        self, graph: Graph, settings: Settings, reads: ItemReads, slots: asyncio.Semaphore
    ) -> None:
        self.graph = graph
        self.settings = settings
        self.reads = reads
        #: shared by every caller: at most max_concurrent_walks walks at once
        self.slots = slots

    async def reach(
        self, starts: Sequence[str], how: Walk, max_depth: int | None = None, *,
        steps: bool = True, found: Callable[[list[str]], None] | None = None,
    ) -> Reach:  # fmt: skip
        limit = self.settings.traversal_max_depth
        if max_depth is not None:
            max_depth = check_limit(max_depth, "maxDepth", maximum=limit)
        return await walk(
            self.graph,
            starts,
            how,
            max_depth=limit if max_depth is None else max_depth,
            max_nodes=self.settings.traversal_max_nodes,
            steps=steps,
            found=found,
        )

    async def complete(
        self, starts: Sequence[str], how: Walk, what: str, *, steps: bool = True,
        found: Callable[[list[str]], None] | None = None,
    ) -> Reach:  # fmt: skip
        """A whole reach, or ``RESOURCE_EXHAUSTED`` naming the limit it hit
        (never a silent part). ``found``: as :func:`walk`'s."""
        reach = await self.reach(starts, how, steps=steps, found=found)
        if reach.truncated:
            s = self.settings
            raise ResourceExhausted(
                f"walking the {what} went past the traversal limits (depth "
                f"{s.traversal_max_depth}, {s.traversal_max_nodes} items); use supportTree "
                "with maxDepth to page through it"
            )
        return reach

    async def support_tree(self, item_id: str, max_depth: int | None) -> SupportTree | None:
        item_id = check_uuid(item_id)
        async with self.slots:
            reach = await self.reach([item_id], Walk.PARENTS, max_depth)
            if not reach.found:
                return None
            items = await self.reads.fetch(list(reach.depth))
        nodes = [(items[i], d) for i, d in reach.depth.items() if i in items]
        return SupportTree(item_id, nodes, reach.links(), reach.truncated)

    async def support_set(self, item_id: str) -> list[Item]:
        """The item and everything that supports it, deduplicated, item first."""
        item_id = check_uuid(item_id)
        return await self.items_reached([item_id], Walk.PARENTS, "support set")

    async def dependents(self, item_id: str, transitive: bool) -> list[Item]:
        """Live items that name the item as a parent, directly or through other
        live dependents, whether the item itself is live, retracted or missing
        (as MemEX's ``getDependents``); never the item itself."""
        item_id = check_uuid(item_id)
        direct = await self.reads.children(item_id)
        if not transitive or not direct:
            return direct
        starts = [c.id for c in direct]
        return await self.items_reached(starts, Walk.CHILDREN, "dependents", leave_out=item_id)

    async def items_reached(
        self, starts: Sequence[str], how: Walk, what: str, *, leave_out: str | None = None
    ) -> list[Item]:
        """The live items of a whole reach but ``leave_out``, in BFS order,
        read in parts while the walk goes on (:mod:`memexd.integrity.ahead`)."""
        async with self.slots, Ahead(self.reads.fetch) as ahead:
            reach = await self.complete(starts, how, what, steps=False, found=ahead.add)
            found = await ahead.result()
        return [found[i] for i in reach.depth if i in found and i != leave_out]

    async def stale_items(
        self, limit: int | None = None, include_archived: bool = False
    ) -> list[StaleItem]:
        """Live items naming a parent that is missing or retracted (archived
        ones unless asked)."""
        params = {"limit": self.reads.limits.page(limit), "include_archived": include_archived}
        rows = await self.graph.read("item_stale", params)
        out = []
        for row in rows:
            item = item_from_row(row["item"])
            bad = set(row["bad"])
            out.append(StaleItem(item, [p for p in dict.fromkeys(item.parents or ()) if p in bad]))
        return out
