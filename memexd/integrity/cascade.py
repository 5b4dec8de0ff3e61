"""Cascade retraction: an item and everything that depends on it, at once.

The closure is found by a linear walk, read with the edges touching it, and
retracted by one statement at the versions read. If a concurrent writer added
a child to a doomed item (or changed one) since, the statement writes nothing
and the walk starts over, so when both finish, every live item whose parent
the cascade retracted was created after it.

The order is MemEX's: post-order, children before parents, siblings newest
first; each item's ``memory.retracted`` is followed by the ``edge.retracted``
of the edges touching it (see :mod:`memexd.memory.retraction`).
"""

from __future__ import annotations

from collections.abc import Sequence

from memexd.concurrency import compare_and_set
from memexd.errors import MemoryNotFound
from memexd.events.vocabulary import Event, Origin, Why
from memexd.graph import Graph
from memexd.integrity.ahead import Ahead
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk, post_order
from memexd.memory.retraction import Doomed, Retraction
from memexd.memory.validation import check_prose, check_text, check_uuid

__all__ = ["Cascade"]


class Cascade:
    def __init__(self, graph: Graph, provenance: Provenance) -> None:
        self.graph = graph
        self.provenance = provenance
        self.retraction = Retraction(graph)

    async def retract(
        self, item_id: str, author: str, reason: str | None, origin: Origin
    ) -> tuple[list[str], Sequence[Event]]:
        item_id = check_uuid(item_id)
        why = Why(check_text(author, "author"), check_prose(reason, "reason"))

        async def attempt() -> tuple[list[str], Sequence[Event]] | None:
            # the plan is read while the walk goes on (memexd.integrity.ahead)
            async with self.provenance.slots, Ahead(self.retraction.plan) as ahead:
                reach = await self.provenance.complete(
                    [item_id], Walk.CHILDREN, "cascade", steps=False, found=ahead.add
                )
                plan = await ahead.result()
            if not reach.found or item_id not in plan:
                raise MemoryNotFound(item_id)
            scopes = dict.fromkeys(plan[i].scope for i in reach.depth if i in plan)  # walk order
            self.graph.access.require_write(*scopes)
            order = post_order(item_id, _links(plan), lambda i: _insertion(plan, i))
            if set(order) != set(plan):
                return None  # an item went since the walk
            events = await self.retraction.write(order, plan, origin, why, closed=True)
            return None if events is None else (order, events)

        return await compare_and_set(attempt, f"the cascade from {item_id}")


def _links(plan: dict[str, Doomed]) -> list[tuple[str, str]]:
    """The PARENT links among the doomed items, parent first: each item's
    stored parents (the walk follows the same links, and a third of its cost
    was returning them)."""
    return [(p, c) for c, doomed in plan.items() for p in doomed.parents if p in plan]


def _insertion(plan: dict[str, Doomed], item_id: str) -> tuple[int, int, str]:
    """Where an item stands in insertion order (the walk's unknowns first)."""
    doomed = plan.get(item_id)
    if doomed is None:
        return (0, 0, item_id)
    return (doomed.seq, doomed.created_at, item_id)
