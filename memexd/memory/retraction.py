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

import copy
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from memexd.events import vocabulary as ev
from memexd.events.lazy import LazyEvents
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.ids import new_id
from memexd.memory.model import Edge
from memexd.memory.records import edge_from_row
from memexd.types import Row

__all__ = ["FENCE_MS", "Doomed", "Retraction", "RetractionEvents", "placement"]

#: How long a cascade that lost a race keeps new children away from its
#: items (it clears the fence when it succeeds; a crash leaves it to expire).
FENCE_MS = 5_000


class Doomed(NamedTuple):
    """A live item about to be retracted: what the retraction needs of it
    (not its record: its event's payload is read from it when asked for),
    with the live edges touching it (and the scopes of their ends), in
    insertion order. A named tuple: a cascade makes one per item (10,000
    took 10.9 ms as a frozen dataclass, 5.1 ms so, with no sort of the
    empty edge lists)."""

    id: str
    scope: str
    seq: int
    created_at: int
    version: int
    edges: tuple[tuple[Edge, tuple[str, str]], ...]
    #: Its parents, as stored (each a PARENT link when that parent exists).
    parents: tuple[str, ...] = ()


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
    ) -> Sequence[Event] | None:
        """Retract ``order`` (all in ``plan``) and their edges; ``closed``: no
        live child outside ``order`` may exist (a cascade). The events the
        caller can read, or ``None`` when the state changed since the plan."""
        events = RetractionEvents(order, plan, origin, why)
        kept, logged = events.placement()
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
        return events.readable(self.graph.access.can_read)


def _doomed(item: list[Any], edges: list[tuple[Edge, tuple[str, str]]]) -> Doomed:
    """From the plan's ``[id, scope, seq, created_at, version, parents]`` and edges."""
    if edges:
        edges.sort(key=lambda pair: (pair[0].seq, pair[0].edge_id))
    item_id, scope, seq, created_at, version, parents = item
    return Doomed(
        item_id, scope, int(seq or 0), int(created_at), int(version), tuple(edges),
        tuple(parents) if parents else (),
    )  # fmt: skip


#: One entry of a retraction's log: the item whose memory.retracted event it
#: is (None for other events), the event's id, and the event when it is not
#: a memory.retracted one.
LogEntry = tuple[str | None, str, Event | None]


def placement(events: Sequence[Event]) -> tuple[dict[str, tuple[str, int]], dict[str, Any]]:
    """How a command that retracts items logs ``events`` (``@log_lock``,
    ``@log_retracted``, ``@log_placed``): each memory.retracted event on its
    item (item id → the event's id and its place among ``events``), the rest
    as nodes at their places; the statement's ``events``, ``count`` and
    ``marks`` (what all its retractions share) parameters."""
    first = next((e for e in events if e.type == ev.MEMORY_RETRACTED), None)
    log = ((e.subject, e.id, None) if e.type == ev.MEMORY_RETRACTED and e.subject is not None
           else (None, e.id, e) for e in events)  # fmt: skip
    return _placed(log, {} if first is None else ev.retraction_marks(first))


def _placed(
    log: Iterable[LogEntry], marks: dict[str, Any]
) -> tuple[dict[str, tuple[str, int]], dict[str, Any]]:
    kept: dict[str, tuple[str, int]] = {}
    placed: list[dict[str, Any]] = []
    count = 0
    for at, (item_id, event_id, event) in enumerate(log):
        count = at + 1
        if event is None and item_id is not None:
            kept[item_id] = (event_id, at)
        elif event is not None:
            placed.append({**event_props(event), "at": at})
    return kept, {"events": placed, "count": count, "marks": marks}


class RetractionEvents(LazyEvents):
    """A retraction's events in log order: each item's ``memory.retracted``,
    then the ``edge.retracted`` of its edges not yet reported (an edge
    between two doomed items goes with the first of them). The
    memory.retracted records are made on first look, their ids drawn up
    front: a cascade of 10,000 items is rarely asked for them (making them
    took 38 ms of its 0.5 s)."""

    def __init__(
        self, order: Sequence[str], plan: dict[str, Doomed], origin: Origin, why: Why,
        cause: str = "memory.retract",
    ) -> None:  # fmt: skip
        self._plan, self._origin, self._why, self._cause = plan, origin, why, cause
        self._ts = time.time_ns() // 1_000_000  # one command, one time
        #: an item id stands for its memory.retracted event (id in _ids)
        self._entries: list[str | Event] = []
        self._ids: dict[str, str] = {}
        reported: set[str] = set()
        for item_id in order:
            self._entries.append(item_id)
            self._ids[item_id] = new_id()
            for edge, scopes in plan[item_id].edges:
                if edge.edge_id not in reported:
                    reported.add(edge.edge_id)
                    event = ev.edge_retracted(edge, origin, why, cause=cause,
                                              scopes=scopes, ts=self._ts)  # fmt: skip
                    self._entries.append(event)

    def placement(self) -> tuple[dict[str, tuple[str, int]], dict[str, Any]]:
        """As :func:`placement`, without making the memory.retracted records."""
        log = ((e, self._ids[e], None) if isinstance(e, str) else (None, e.id, e)
               for e in self._entries)  # fmt: skip
        first = next((e for e in self._entries if isinstance(e, str)), None)
        return _placed(log, {} if first is None else ev.retraction_marks(self._event(first)))

    def readable(self, can_read: Callable[[str], bool]) -> RetractionEvents:
        """The events a caller who ``can_read`` these scopes may see (all of
        an event's scopes), still made on first look."""
        told = {s for entry in self._entries for s in self._scopes(entry)}
        hidden = {s for s in told if not can_read(s)}
        if not hidden:
            return self
        out = copy.copy(self)
        out._entries = [e for e in self._entries if hidden.isdisjoint(self._scopes(e))]
        out._made = None
        return out

    def _scopes(self, entry: str | Event) -> tuple[str, ...]:
        return (self._plan[entry].scope,) if isinstance(entry, str) else entry.scopes or ()

    def _event(self, entry: str | Event) -> Event:
        if not isinstance(entry, str):
            return entry
        return ev.memory_retracted(entry, self._plan[entry].scope, self._origin, self._why,
                                   self._ts, event_id=self._ids[entry],
                                   cause=self._cause)  # fmt: skip

    def _make(self) -> list[Event]:
        return [self._event(entry) for entry in self._entries]

    def __len__(self) -> int:
        return len(self._entries)
