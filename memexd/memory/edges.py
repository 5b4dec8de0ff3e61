"""Typed edges: commands (create, update, retract) and reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import (
    ConstraintViolation,
    DuplicateEdge,
    EdgeNotFound,
    Forbidden,
    MemoryNotFound,
    StorageError,
)
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph
from memexd.memory import validation as check
from memexd.memory.meta import dump_json
from memexd.memory.model import Direction, Edge, EdgeFilter, EdgePatch, NewEdge
from memexd.memory.records import edge_from_row, edge_props
from memexd.memory.validation import Limits

__all__ = ["EdgeCommands", "EdgeReads", "edge_key", "pattern"]

#: An edge belongs to both its ends: changing it needs a write grant on both.
_NO_WRITE = "changing an edge needs a write grant on the scopes of both its ends"


def pattern(direction: Direction) -> str:
    """The relationship pattern for a direction, seen from the anchor item."""
    if direction.outgoing and not direction.incoming:
        return "-[r]->"
    if direction.incoming and not direction.outgoing:
        return "<-[r]-"
    return "-[r]-"


def edge_key(edge: Edge) -> dict[str, str]:
    """The ``EdgeKey`` node of an edge: its id, endpoints and kind (the
    relationship type), so an edge is found by id whatever its kind."""
    return {"edge_id": edge.edge_id, "from_id": edge.from_id, "to_id": edge.to_id,
            "kind": edge.kind}  # fmt: skip


class EdgeCommands:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def create(self, draft: NewEdge, origin: Origin) -> tuple[Edge, list[Event]]:
        edge = check.new_edge(draft, self.limits)
        event = ev.edge_created(edge, origin)
        params = {
            "from": edge.from_id,
            "to": edge.to_id,
            "edge_id": edge.edge_id,
            "props": edge_props(edge),
            "key": edge_key(edge),
            "events": [event_props(event)],
        }
        try:
            rows = await self.graph.write("edge_create", params, kind=edge.kind)
        except ConstraintViolation:
            rows = []
        if not rows:
            await self._explain_create_failure(edge)
        return edge, [event]

    async def _explain_create_failure(self, edge: Edge) -> None:
        if await self.graph.read("edge_key", {"edge_id": edge.edge_id}):
            raise DuplicateEdge([edge.edge_id])
        found = await self.graph.read(
            "item_get", {"ids": [edge.from_id, edge.to_id], "include_retracted": False}
        )
        scopes = {row["item"]["id"]: row["item"]["scope"] for row in found}
        for item_id in (edge.from_id, edge.to_id):
            if item_id not in scopes:
                raise MemoryNotFound(item_id)
        if not all(self.graph.access.can_write(s) for s in scopes.values()):
            raise Forbidden(_NO_WRITE)
        raise StorageError("edge write failed for an unknown reason")

    async def update(
        self, edge_id: str, patch: EdgePatch, author: str, reason: str | None, origin: Origin
    ) -> tuple[Edge, list[Event]]:
        edge_id = check.check_uuid(edge_id, "edgeId")
        author = check.check_text(author, "author")
        reason = check.check_prose(reason, "reason")
        patch = check.edge_patch(patch, self.limits)

        async def attempt() -> tuple[Edge, list[Event]] | None:
            rows = await self.graph.read("edge_get", {"ids": [edge_id]})
            if not rows:
                raise EdgeNotFound(edge_id)
            if not rows[0]["writable"]:
                raise Forbidden(_NO_WRITE)
            current, version = edge_from_row(rows[0]["edge"]), int(rows[0]["edge"]["version"])
            merged = check.merged_edge(current, patch, self.limits)
            event = ev.edge_updated(merged, origin, Why(author, reason))
            params = {"edge_id": edge_id, "version": version, "props": _update_props(merged),
                      "events": [event_props(event)]}  # fmt: skip
            if merged.kind != current.kind:
                written = await self.graph.write("edge_rekind", params, kind=merged.kind)
            else:
                written = await self.graph.write("edge_update", params)
            return (merged, [event]) if written else None

        return await compare_and_set(attempt, f"edge {edge_id}")

    async def retract(
        self, edge_id: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        edge_id = check.check_uuid(edge_id, "edgeId")
        why = Why(check.check_text(author, "author"), check.check_prose(reason, "reason"))

        async def attempt() -> list[Event] | None:
            rows = await self.graph.read("edge_get", {"ids": [edge_id]})
            if not rows:
                raise EdgeNotFound(edge_id)
            if not rows[0]["writable"]:
                raise Forbidden(_NO_WRITE)
            event = ev.edge_retracted(edge_from_row(rows[0]["edge"]), origin, why)
            params = {"edge_id": edge_id, "version": int(rows[0]["edge"]["version"]),
                      "events": [event_props(event)]}  # fmt: skip
            return [event] if await self.graph.write("edge_retract", params) else None

        return await compare_and_set(attempt, f"edge {edge_id}")


def _update_props(edge: Edge) -> dict[str, Any]:
    props: dict[str, Any] = {"authority": edge.authority, "active": edge.active}
    if edge.weight is not None:
        props["weight"] = edge.weight
    if edge.meta is not None:
        props["meta"] = dump_json(edge.meta)
    return props


class EdgeReads:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def get_many(self, edge_ids: list[str]) -> dict[str, Edge]:
        ids = check.check_ids(edge_ids, "edgeId", max_len=self.limits.max_list)
        return await self.fetch(ids)

    async def fetch(self, edge_ids: Sequence[str]) -> dict[str, Edge]:
        """Edges by id, for ids memexd itself holds (loaders): any number."""
        if not edge_ids:
            return {}
        rows = await self.graph.read("edge_get", {"ids": list(edge_ids)})
        return {row["edge"]["edge_id"]: edge_from_row(row["edge"]) for row in rows}

    async def find(self, flt: EdgeFilter, limit: int | None = None) -> list[Edge]:
        flt = check.edge_filter(flt)
        params: dict[str, Any] = {
            "to": flt.to_id,
            "min_weight": flt.min_weight,
            "active_only": flt.active_only,
            "limit": self.limits.page(limit),
        }
        kind = "" if flt.kind is None else f":{flt.kind}"
        if flt.from_id is not None:
            rows = await self.graph.read(
                "edge_find_from", {**params, "from": flt.from_id}, kind=kind
            )
        elif flt.to_id is not None:
            rows = await self.graph.read("edge_find_to", params, kind=kind)
        else:
            rows = await self.graph.read("edge_find", {**params, "from": None}, kind=kind)
        return [edge_from_row(row["edge"]) for row in rows]

    async def of_items(
        self, ids: list[str], direction: Direction, kind: str | None, active_only: bool
    ) -> dict[str, list[Edge]]:
        """Edges touching each item (for the loader: ids come from stored items)."""
        if kind is not None:
            check.check_edge_kind(kind)
        rows = await self.graph.read(
            "edges_of",
            {"ids": ids, "kind": kind, "active_only": active_only},
            pattern=pattern(direction),
        )
        return {row["id"]: [edge_from_row(e) for e in row["edges"]] for row in rows}
