"""Working memory with a capacity (SPEC §11, seed 001).

A session may say how many of its ``SESSION`` items stay active in a scope
(``setWorkingMemory``; 7 is the classic figure). When new ones come in past
that, the lowest-ranked by decay score are archived in the same write as the
new items, each with its ``memory.archived`` event (:meth:`WorkingMemory.plan`
plans it, ``cypher/item_create`` checks the plan and writes it). New items
are never the ones archived: a batch bigger than the capacity keeps all of
it. Setting a capacity archives nothing by itself; the next item in that
session brings the session down to it.

A capacity belongs to a (scope, session) pair, so one tenant's setting
never archives another's items, whatever session ids they share; setting it
needs a write grant on the scope. It is configuration: no event.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memexd.errors import BadUserInput
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.memory.filters import MemoryFilter
from memexd.memory.model import Item, SortKey
from memexd.memory.reads import ItemReads
from memexd.memory.records import item_from_row
from memexd.memory.validation import Limits, check_limit, check_text

__all__ = ["MAX_CAPACITY", "NO_EVICTION", "Pair", "WorkingMemory", "WorkingSet"]

#: A working memory holds at most this many items.
MAX_CAPACITY = 1_000
#: item_create's parameters for a batch that archives nothing.
NO_EVICTION: Mapping[str, list[Any]] = {
    "evict_ids": [],
    "evict": [],
    "evict_events": [],
    "occupancy": [],
    "occ_sessions": [],
}

#: (scope, session id)
Pair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class WorkingSet:
    """A session's working memory in a scope: its capacity and what it holds,
    highest decay score first."""

    scope: str
    session_id: str
    capacity: int | None
    items: list[Item]


@dataclass(frozen=True, slots=True)
class Eviction:
    """What a batch's write archives, as item_create takes it."""

    params: dict[str, Any]
    events: list[Event]


class WorkingMemory:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph, self.limits = graph, limits

    async def set(self, scope: Any, session_id: Any, capacity: Any) -> int | None:
        """Set (or, with ``None``, remove) a session's capacity in a scope."""
        scope, session = check_text(scope, "scope"), check_text(session_id, "sessionId")
        size = None if capacity is None else _capacity(capacity)
        self.graph.access.require_write(scope, field="scope")
        params = {"scope": scope, "session_id": session, "capacity": size}
        await self.graph.write("working_memory_set", params)
        return size

    async def get(self, scope: Any, session_id: Any, reads: ItemReads) -> WorkingSet:
        scope, session = check_text(scope, "scope"), check_text(session_id, "sessionId")
        if not self.graph.access.can_read(scope):  # another tenant's: nothing to see
            return WorkingSet(scope, session, None, [])
        rows = await self.graph.read("working_memory_get", {
            "sessions": [session], "pairs": [{"scope": scope, "session": session}]})  # fmt: skip
        capacity = int(rows[0]["capacity"]) if rows else None
        flt = MemoryFilter(scope=scope, session_id=session, lifecycle=["SESSION"])
        items = await reads.find(flt, [SortKey("decay")], limit=self.limits.max_list)
        return WorkingSet(scope, session, capacity, items)

    async def plan(self, incoming: Mapping[Pair, int], author: str, origin: Origin) -> Eviction:
        """What a batch bringing ``incoming`` SESSION items to each pair
        archives, read now (item_create checks it is still so)."""
        sessions = sorted({session for _, session in incoming})
        pairs = [{"scope": scope, "session": session} for scope, session in incoming]
        rows = await self.graph.read("working_memory_get", {"sessions": sessions, "pairs": pairs})
        if not rows:
            return Eviction(dict(NO_EVICTION), [])
        now = time.time_ns() // 1_000_000
        doomed: list[tuple[Item, int, int]] = []
        for row in rows:
            pair = (row["scope"], row["session_id"])
            over = int(row["held"]) + incoming[pair] - int(row["capacity"])
            if over > 0:
                doomed += [(*m, int(row["capacity"])) for m in await self._lowest(pair, over, now)]
        events = [ev.memory_archived(item, origin, _why(author, cap), True)
                  for item, _, cap in doomed]  # fmt: skip
        params = {
            "evict_ids": [item.id for item, _, _ in doomed],
            "evict": [{"id": item.id, "version": v} for item, v, _ in doomed],
            "evict_events": [event_props(e) for e in events],
            "occupancy": [_held(r) for r in rows],
            "occ_sessions": sorted({r["session_id"] for r in rows}),
        }
        return Eviction(params, events)

    async def _lowest(self, pair: Pair, count: int, now: int) -> list[tuple[Item, int]]:
        params = {"scope": pair[0], "session_id": pair[1], "now": now,
                  "half_life": self.limits.decay_half_life_ms,
                  "limit": min(count, self.limits.max_batch)}  # fmt: skip
        rows = await self.graph.read("working_memory_members", params)
        return [(item_from_row(r["item"]), int(r["item"]["version"])) for r in rows]


def _held(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"scope": row["scope"], "session": row["session_id"], "held": int(row["held"])}


def _why(author: str, capacity: int) -> Why:
    return Why(author, f"working memory over its capacity of {capacity}")


def _capacity(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadUserInput("must be a whole number of at least 1", field="capacity")
    return check_limit(value, "capacity", maximum=MAX_CAPACITY)
