"""Identity: ``markAlias`` records it both ways, ``unmarkAlias`` takes it
back; groups are its closure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput, MemoryNotFound
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk
from memexd.memory import validation as check
from memexd.memory.edges import edge_key
from memexd.memory.model import Item, NewEdge
from memexd.memory.records import edge_from_row, edge_props, item_from_row
from memexd.memory.validation import Limits

__all__ = ["MARKER_SOURCE_KIND", "Aliases"]

#: The ``source_kind`` of edges memexd writes for an author (alias,
#: contradiction, supersession marks): MemEX's one fixed value.
MARKER_SOURCE_KIND = "derived_deterministic"


def marker(from_id: str, to_id: str, kind: str, author: str, meta: Any = None) -> NewEdge:
    """The draft of an edge memexd writes on an author's behalf."""
    return NewEdge(from_id=from_id, to_id=to_id, kind=kind, author=author,
                   source_kind=MARKER_SOURCE_KIND, authority=1.0, meta=meta)  # fmt: skip


class Aliases:
    def __init__(self, graph: Graph, limits: Limits, provenance: Provenance) -> None:
        self.graph = graph
        self.limits = limits
        self.provenance = provenance

    async def mark(
        self, a: str, b: str, author: str, meta: Any, origin: Origin, *, skip_existing: bool = False
    ) -> list[Event]:
        """ALIAS a→b then b→a, as MemEX (``skip_existing``: not where an active
        one already is)."""
        a, b = check.check_uuid(a, "a"), check.check_uuid(b, "b")
        # validates author and meta even for the no-op
        edges = [
            check.new_edge(marker(x, y, "ALIAS", author, meta), self.limits)
            for x, y in ((a, b), (b, a))
        ]
        if a == b:
            return []  # a self-alias says nothing
        events = {e.edge_id: ev.edge_created(e, origin) for e in edges}
        specs = [
            {"ord": i, "from": e.from_id, "to": e.to_id, "props": edge_props(e),
             "key": edge_key(e), "event": event_props(events[e.edge_id])}
            for i, e in enumerate(edges)
        ]  # fmt: skip
        params = {"a": a, "b": b, "edges": specs, "skip_existing": skip_existing}
        rows = await self.graph.write("alias_mark", params)
        if not rows:
            await self._both_writable(a, b)
            raise MemoryNotFound(a)  # retracted meanwhile
        return [events[edge_id] for edge_id in rows[0]["created"]]

    async def unmark(
        self, a: str, b: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        """Retract every ALIAS edge joining ``a`` and ``b`` (each way, active
        or not), in one write with an ``edge.retracted`` event each; the
        groups split as the remaining links say. ``BAD_USER_INPUT`` when no
        active ALIAS edge joins them."""
        a, b = check.check_uuid(a, "a"), check.check_uuid(b, "b")
        why = Why(check.check_text(author, "author"), check.check_prose(reason, "reason"))
        if a == b:
            raise BadUserInput("an item is not an alias of itself", field="b")

        async def attempt() -> list[Event] | None:
            await self._both_writable(a, b)
            rows = await self.graph.read("alias_between", {"a": a, "b": b})
            if not any(r["edge"]["active"] for r in rows):
                raise BadUserInput(f"{a} and {b} are not aliases", field="b")
            events = [ev.edge_retracted(edge_from_row(r["edge"]), origin, why,
                                        cause="alias.unmark") for r in rows]  # fmt: skip
            edges = [{"edge_id": r["edge"]["edge_id"], "version": int(r["edge"]["version"]),
                      "event": event_props(e)}
                     for r, e in zip(rows, events, strict=True)]  # fmt: skip
            done = await self.graph.write("alias_unmark", {"a": a, "b": b, "edges": edges})
            return events if done else None

        return await compare_and_set(attempt, f"the aliases of {a} and {b}")

    async def _both_writable(self, a: str, b: str) -> None:
        found = await self.provenance.reads.fetch([a, b])
        for item_id in (a, b):  # missing before forbidden, as for any edge
            if item_id not in found:
                raise MemoryNotFound(item_id)
        self.graph.access.require_write(*(item.scope for item in found.values()))

    async def direct_of(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        rows = await self.graph.read("alias_direct", {"ids": list(ids)})
        return {row["id"]: [item_from_row(r) for r in row["items"]] for row in rows}

    async def direct(self, item_id: str) -> list[Item]:
        item_id = check.check_uuid(item_id)
        return (await self.direct_of([item_id])).get(item_id, [])

    async def group(self, item_id: str) -> list[Item]:
        """The transitive closure of aliasing, the item itself first."""
        item_id = check.check_uuid(item_id)
        return await self.provenance.items_reached([item_id], Walk.ALIASES, "alias group")
