"""Retraction: an item and every edge touching it go together.

MemEX removes a retracted item's edges, whatever their kind or state, and
says so with one ``edge.retracted`` per edge (``cause_type``
``memory.retract``) right after the item's ``memory.retracted``, in edge
insertion order, a self-edge once. memexd keeps tombstones instead of
deleting, but logs the same events in the same order. Plain retraction and
cascades share this: read the plan, build the events, write them with the
change at the versions read (compare-and-set).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.memory.model import Edge
from memexd.memory.records import edge_from_row
from memexd.types import Row

__all__ = ["FENCE_MS", "Doomed", "Retraction", "placement", "retraction_events"]

#: How long a cascade that lost a race keeps new children away from its
#: items (it clears the fence when it succeeds; a crash leaves it to expire).
FENCE_MS = 5_000


@dataclass(frozen=True, slots=True)
class Doomed:
    """A live item about to be retracted: what the retraction needs of it
    (not its record: its event's payload is read from it when asked for),
    with the live edges touching it (and the scopes of their ends), in
    insertion order."""

    id: str
    scope: str
    seq: int
    created_at: int
    version: int
    edges: tuple[tuple[Edge, tuple[str, str]], ...]


class Retraction:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    async def plan(self, ids: Sequence[str]) -> dict[str, Doomed]:
        """The live items among ``ids`` the caller can read, with their edges.
        The statement gives a row per item, then a row per edge and item it
        touches (see ``cypher/item_retract_plan.cypher``)."""
        rows = await self.graph.read("item_retract_plan", {"ids": list(ids)})
        items: dict[str, list[Any]] = {}
        found: dict[str, tuple[Row, list[str]]] = {}
        for row in rows:
            if row["item"] is not None:
                items[row["item"][0]] = row["item"]
            else:  # an edge between two of the items comes once from each
                found.setdefault(row["edge"]["edge_id"], (row["edge"], row["scopes"]))
        touching: dict[str, list[tuple[Edge, tuple[str, str]]]] = {}
        for edge_row, scopes in found.values():
            edge = edge_from_row(edge_row)
            for end in {edge.from_id, edge.to_id}:
                if end in items:
                    touching.setdefault(end, []).append((edge, (scopes[0], scopes[1])))
        return {item_id: _doomed(row, touching.get(item_id, [])) for item_id, row in items.items()}

    async def write(
        self,
        order: Sequence[str],
        plan: dict[str, Doomed],
        origin: Origin,
        why: Why,
        *,
        closed: bool,
    ) -> list[Event] | None:
        """Retract ``order`` (all in ``plan``) and their edges; ``closed``: no
        live child outside ``order`` may exist (a cascade). The events the
        caller can read, or ``None`` when the state changed since the plan."""
        events = retraction_events(order, plan, origin, why)
        kept, logged = placement(events)
        params = {
            "ids": list(order),
            "versions": [plan[i].version for i in order],
            "event_ids": [kept[i][0] for i in order],
            "at": [kept[i][1] for i in order],
            # sorted: the statement compares them with its own, in order
            "edge_ids": sorted({e.edge_id for i in order for e, _ in plan[i].edges}),
            "closed": closed,
            "fence_ms": FENCE_MS,
            **logged,
        }
        rows = await self.graph.write("item_retract", params)
        if not rows or not rows[0]["ok"]:
            return None
        told = {s for e in events for s in e.scopes or ()}  # few scopes, many events
        readable = {s for s in told if self.graph.access.can_read(s)}
        return [e for e in events if readable.issuperset(e.scopes or ())]


def _doomed(item: list[Any], edges: list[tuple[Edge, tuple[str, str]]]) -> Doomed:
    """From the plan's ``[id, scope, seq, created_at, version]`` and edges."""
    edges.sort(key=lambda pair: (pair[0].seq, pair[0].edge_id))
    item_id, scope, seq, created_at, version = item
    return Doomed(item_id, scope, int(seq or 0), int(created_at), int(version), tuple(edges))


def placement(events: Sequence[Event]) -> tuple[dict[str, tuple[str, int]], dict[str, Any]]:
    """How a command that retracts items logs ``events`` (``@log_lock``,
    ``@log_retracted``, ``@log_placed``): each memory.retracted event on its
    item (item id → the event's id and its place among ``events``), the rest
    as nodes at their places; the statement's ``events``, ``count`` and
    ``marks`` (what all its retractions share) parameters."""
    kept: dict[str, tuple[str, int]] = {}
    placed: list[dict[str, Any]] = []
    for at, event in enumerate(events):
        if event.type == ev.MEMORY_RETRACTED and event.subject is not None:
            kept[event.subject] = (event.id, at)
        else:
            placed.append({**event_props(event), "at": at})
    first = next((e for e in events if e.type == ev.MEMORY_RETRACTED), None)
    marks = {} if first is None else ev.retraction_marks(first)
    return kept, {"events": placed, "count": len(events), "marks": marks}


def retraction_events(
    order: Sequence[str], plan: dict[str, Doomed], origin: Origin, why: Why
) -> list[Event]:
    """Each item's ``memory.retracted``, then its edges not yet reported (an
    edge between two doomed items goes with the first of them)."""
    events: list[Event] = []
    reported: set[str] = set()
    ts = time.time_ns() // 1_000_000  # one command, one time
    for item_id in order:
        doomed = plan[item_id]
        events.append(ev.memory_retracted(item_id, doomed.scope, origin, why, ts))
        for edge, scopes in doomed.edges:
            if edge.edge_id not in reported:
                reported.add(edge.edge_id)
                events.append(ev.edge_retracted(edge, origin, why, cause="memory.retract",
                                                scopes=scopes, ts=ts))  # fmt: skip
    return events
