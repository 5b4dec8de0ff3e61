"""Contradictions: mark, list, resolve (winner supersedes loser)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import MemoryNotFound
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.integrity.aliases import marker
from memexd.memory import validation as check
from memexd.memory.edges import EdgeCommands, edge_key
from memexd.memory.model import Edge, Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import edge_from_row, edge_props, item_from_row
from memexd.memory.validation import Limits

__all__ = ["LOSER_AUTHORITY_FACTOR", "Contradiction", "Contradictions"]

#: Resolving a contradiction multiplies the loser's authority by this.
LOSER_AUTHORITY_FACTOR = 0.1


@dataclass(frozen=True, slots=True)
class Contradiction:
    a: Item
    b: Item
    edge: Edge


class Contradictions:
    def __init__(self, graph: Graph, limits: Limits, edges: EdgeCommands, reads: ItemReads) -> None:
        self.graph = graph
        self.limits = limits
        self.edges = edges
        self.reads = reads

    async def mark(
        self, a: str, b: str, author: str, meta: Any, origin: Origin
    ) -> tuple[Edge, list[Event]]:
        """An active CONTRADICTS edge a→b; a = b marks a self-inconsistent item."""
        return await self.edges.create(marker(a, b, "CONTRADICTS", author, meta), origin)

    async def active(
        self, limit: int | None, include_archived: bool = False
    ) -> list[Contradiction]:
        """Active contradictions; none with an archived side unless asked."""
        params = {"limit": self.limits.page(limit), "include_archived": include_archived}
        rows = await self.graph.read("contradiction_list", params)
        return [
            Contradiction(item_from_row(r["a"]), item_from_row(r["b"]), edge_from_row(r["edge"]))
            for r in rows
        ]

    async def contradicted_by(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        rows = await self.graph.read("contradicted_by", {"ids": list(ids)})
        return {row["id"]: [item_from_row(r) for r in row["items"]] for row in rows}

    async def resolve(
        self, winner: str, loser: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        """As MemEX: the active contradictions between them are retracted,
        winner supersedes loser, whose authority drops. With no active
        contradiction between them: nothing."""
        winner, loser = check.check_uuid(winner, "winnerId"), check.check_uuid(loser, "loserId")
        author = check.check_text(author, "author")
        reason = check.check_prose(reason, "reason")
        meta = {"reason": reason} if reason else None
        draft = marker(winner, loser, "SUPERSEDES", author, meta)
        supersede = check.new_edge(draft, self.limits)

        async def attempt() -> list[Event] | None:
            rows = await self.graph.read("contradiction_pair", {"winner": winner, "loser": loser})
            if not rows:
                found = await self.reads.fetch([winner, loser])
                raise MemoryNotFound(winner if winner not in found else loser)
            self.graph.access.require_write(rows[0]["winner_scope"], rows[0]["loser"]["scope"])
            if not rows[0]["edges"]:
                return []
            params, events = _plan(supersede, Why(author, reason), rows[0], origin)
            return events if await self.graph.write("contradiction_resolve", params) else None

        return await compare_and_set(attempt, f"the contradiction {winner}/{loser}")


def _plan(
    supersede: Edge, why: Why, state: dict[str, Any], origin: Origin
) -> tuple[dict[str, Any], list[Event]]:
    """MemEX's order: the contradictions retracted (insertion order), the
    SUPERSEDES edge created, the loser updated."""
    loser = item_from_row(state["loser"])
    lowered = replace(loser, authority=loser.authority * LOSER_AUTHORITY_FACTOR)
    scopes = (state["winner_scope"], loser.scope)
    edges = sorted((edge_from_row(e) for e in state["edges"]), key=lambda e: (e.seq, e.edge_id))
    events = [
        *(ev.edge_retracted(e, origin, why, scopes=_ends(e, supersede, scopes)) for e in edges),
        ev.edge_created(supersede, origin, scopes=scopes, why=why),
        ev.memory_updated(lowered, origin, why),
    ]
    params = {
        "winner": supersede.from_id,
        "loser": supersede.to_id,
        "version": int(state["loser"]["version"]),
        "authority": lowered.authority,
        "edge_ids": [e.edge_id for e in edges],
        "supersede": edge_props(supersede),
        "key": edge_key(supersede),
        "events": [event_props(e) for e in events],
        "created": ev.creation_record(loser),
    }
    return params, events


def _ends(edge: Edge, supersede: Edge, scopes: tuple[str, str]) -> tuple[str, str]:
    """The scopes of a contradiction's ends (it may point either way)."""
    return scopes if edge.from_id == supersede.from_id else (scopes[1], scopes[0])
