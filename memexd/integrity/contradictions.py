"""Contradictions: mark, list, resolve (winner supersedes loser)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memexd.errors import MemoryNotFound, StorageError
from memexd.events.log import Origin, make_event
from memexd.graph import Graph
from memexd.ids import check_uuid
from memexd.integrity.aliases import marker_source_kind
from memexd.memory.edges import EdgeCommands, NewEdge
from memexd.memory.model import Edge, Event, Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import edge_from_row, edge_json, edge_props, event_props, item_from_row
from memexd.memory.validation import check_text
from memexd.types import JSONObject

__all__ = ["LOSER_AUTHORITY_FACTOR", "Contradiction", "Contradictions"]

#: Resolving a contradiction multiplies the loser's authority by this.
LOSER_AUTHORITY_FACTOR = 0.5
_CAS_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class Contradiction:
    a: Item
    b: Item
    edge: Edge


class Contradictions:
    def __init__(self, graph: Graph, edges: EdgeCommands, reads: ItemReads) -> None:
        self.graph = graph
        self.edges = edges
        self.reads = reads

    async def mark(
        self, a: str, b: str, author: str, meta: Any, origin: Origin
    ) -> tuple[Edge, list[Event]]:
        """An active CONTRADICTS edge a→b; a = b marks a self-inconsistent item."""
        draft = NewEdge(
            from_id=a,
            to_id=b,
            kind="CONTRADICTS",
            author=author,
            source_kind=marker_source_kind(author),
            authority=1.0,
            meta=meta,
        )
        return await self.edges.create(draft, origin)

    async def active(self, limit: int) -> list[Contradiction]:
        rows = await self.graph.read("contradiction_list", {"limit": limit})
        return [
            Contradiction(item_from_row(r["a"]), item_from_row(r["b"]), edge_from_row(r["edge"]))
            for r in rows
        ]

    async def contradicted_by(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        rows = await self.graph.read("contradicted_by", {"ids": [check_uuid(i) for i in ids]})
        return {row["id"]: [item_from_row(r) for r in row["items"]] for row in rows}

    async def resolve(
        self, winner: str, loser: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        """Winner supersedes loser, whose authority drops; the contradiction
        goes inactive. With no active contradiction between them: nothing."""
        winner, loser = check_uuid(winner, "winnerId"), check_uuid(loser, "loserId")
        author = check_text(author, "author")
        for _ in range(_CAS_ATTEMPTS):
            rows = await self.graph.read("contradiction_pair", {"winner": winner, "loser": loser})
            if not rows:
                found = await self.reads.get_many([winner, loser])
                raise MemoryNotFound(winner if winner not in found else loser)
            state = rows[0]
            if not state["edges"]:
                return []
            params, events = self._plan(winner, loser, author, reason, state, origin)
            if await self.graph.write("contradiction_resolve", params):
                return events
        raise StorageError(f"the contradiction {winner}/{loser} kept changing")

    def _plan(
        self, winner: str, loser: str, author: str, reason: str | None,
        state: dict[str, Any], origin: Origin,
    ) -> tuple[dict[str, Any], list[Event]]:  # fmt: skip
        supersede = self.edges.build(
            NewEdge(from_id=winner, to_id=loser, kind="SUPERSEDES", author=author,
                    source_kind=marker_source_kind(author), authority=1.0)
        )  # fmt: skip
        authority = float(state["authority"]) * LOSER_AUTHORITY_FACTOR
        why: JSONObject = {} if reason is None else {"reason": reason}
        scope = state["winner_scope"]
        events = [
            make_event("edge.created", {"edge": edge_json(supersede)}, origin,
                       scope=scope, subject=supersede.edge_id),
            make_event("memory.updated", {"item_id": loser, "partial": {"authority": authority},
                                          "author": author, **why},
                       origin, scope=state["loser_scope"], subject=loser),
            *(make_event("edge.updated", {"edge_id": e, "partial": {"active": False},
                                          "author": author, **why},
                         origin, scope=scope, subject=e)
              for e in state["edges"]),
        ]  # fmt: skip
        params = {
            "winner": winner,
            "loser": loser,
            "version": state["version"],
            "authority": authority,
            "edge_ids": state["edges"],
            "supersede": edge_props(supersede),
            "key": {
                "edge_id": supersede.edge_id,
                "from_id": winner,
                "to_id": loser,
                "kind": "SUPERSEDES",
            },
            "events": [event_props(e) for e in events],
        }
        return params, events
