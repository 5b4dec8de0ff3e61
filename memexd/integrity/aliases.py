"""Identity: ``markAlias`` records it both ways; groups are its closure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memexd.errors import MemoryNotFound
from memexd.events.log import Origin, make_event
from memexd.graph import Graph
from memexd.ids import check_uuid
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk
from memexd.memory.edges import EdgeCommands, NewEdge
from memexd.memory.model import Event, Item
from memexd.memory.records import edge_json, edge_props, event_props, item_from_row

__all__ = ["Aliases", "marker_source_kind"]


def marker_source_kind(author: str) -> str:
    """The ``source_kind`` of edges memexd writes for an author (alias,
    contradiction, supersession marks): by the author's MemEX prefix."""
    if author.startswith("user:"):
        return "user_explicit"
    if author.startswith("agent:"):
        return "agent_inferred"
    return "derived_deterministic"


class Aliases:
    def __init__(self, graph: Graph, edges: EdgeCommands, provenance: Provenance) -> None:
        self.graph = graph
        self.edges = edges
        self.provenance = provenance

    async def mark(self, a: str, b: str, author: str, meta: Any, origin: Origin) -> list[Event]:
        a, b = check_uuid(a, "a"), check_uuid(b, "b")
        drafts = [
            NewEdge(from_id=x, to_id=y, kind="ALIAS", author=author,
                    source_kind=marker_source_kind(author), authority=1.0, meta=meta)
            for x, y in ((a, b), (b, a))
        ]  # fmt: skip
        edges = [self.edges.build(d) for d in drafts]  # validates author and meta too
        if a == b:
            return []  # a self-alias says nothing
        events = {
            e.edge_id: make_event("edge.created", {"edge": edge_json(e)}, origin, subject=e.edge_id)
            for e in edges
        }
        specs = [
            {"from": e.from_id, "to": e.to_id, "props": edge_props(e),
             "key": {"edge_id": e.edge_id, "from_id": e.from_id, "to_id": e.to_id,
                     "kind": e.kind},
             "event": event_props(events[e.edge_id])}
            for e in edges
        ]  # fmt: skip
        rows = await self.graph.write("alias_mark", {"a": a, "b": b, "edges": specs})
        if not rows:
            await self._missing(a, b)
        return [events[edge_id] for edge_id in rows[0]["created"]]

    async def _missing(self, a: str, b: str) -> None:
        found = await self.provenance.reads.get_many([a, b])
        raise MemoryNotFound(a if a not in found else b)

    async def direct_of(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        checked = [check_uuid(i) for i in ids]
        rows = await self.graph.read("alias_direct", {"ids": checked})
        return {row["id"]: [item_from_row(r) for r in row["items"]] for row in rows}

    async def direct(self, item_id: str) -> list[Item]:
        return (await self.direct_of([item_id])).get(check_uuid(item_id), [])

    async def group(self, item_id: str) -> list[Item]:
        """The transitive closure of aliasing, the item itself first."""
        reach = await self.provenance.complete(item_id, Walk.ALIASES, "alias group", steps=False)
        found = await self.provenance.reads.get_many(list(reach.depth))
        return [found[i] for i in reach.depth if i in found]
