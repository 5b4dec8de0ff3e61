"""Typed edges: commands (create, update, retract) and reads."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from memexd.errors import (
    ConstraintViolation,
    DuplicateEdge,
    EdgeNotFound,
    MemoryNotFound,
    StorageError,
)
from memexd.events.log import Origin, make_event
from memexd.graph import Graph
from memexd.ids import check_uuid, new_id
from memexd.memory.meta import dump_json
from memexd.memory.model import Direction, Edge, Event
from memexd.memory.records import edge_from_row, edge_json, edge_props, event_props
from memexd.memory.validation import (
    check_edge_kind,
    check_finite,
    check_object,
    check_score,
    check_text,
)
from memexd.settings import Settings
from memexd.types import JSONObject

__all__ = ["EdgeCommands", "EdgeFilter", "EdgePatch", "EdgeReads", "NewEdge", "pattern"]

_CAS_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class NewEdge:
    from_id: str
    to_id: str
    kind: str
    author: str
    source_kind: str
    authority: float
    edge_id: str | None = None
    weight: float | None = None
    active: bool = True
    meta: Any = None


@dataclass(frozen=True, slots=True)
class EdgePatch:
    kind: str | None = None
    weight: float | None = None
    authority: float | None = None
    active: bool | None = None
    meta: Any = None


@dataclass(frozen=True, slots=True)
class EdgeFilter:
    from_id: str | None = None
    to_id: str | None = None
    kind: str | None = None
    min_weight: float | None = None
    active_only: bool = True


def pattern(direction: Direction) -> str:
    """The relationship pattern for a direction, seen from the anchor item."""
    if direction.outgoing and not direction.incoming:
        return "-[r]->"
    if direction.incoming and not direction.outgoing:
        return "<-[r]-"
    return "-[r]-"


class EdgeCommands:
    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    async def create(self, draft: NewEdge, origin: Origin) -> tuple[Edge, list[Event]]:
        edge = self.build(draft)
        event = make_event("edge.created", {"edge": edge_json(edge)}, origin, subject=edge.edge_id)
        params = {
            "from": edge.from_id,
            "to": edge.to_id,
            "edge_id": edge.edge_id,
            "props": edge_props(edge),
            "key": {
                "edge_id": edge.edge_id,
                "from_id": edge.from_id,
                "to_id": edge.to_id,
                "kind": edge.kind,
            },
            "event": event_props(event),
        }
        try:
            rows = await self.graph.write("edge_create", params, kind=edge.kind)
        except ConstraintViolation:
            rows = []
        if not rows:
            await self._explain_create_failure(edge)
        return edge, [event]

    def build(self, d: NewEdge) -> Edge:
        """Validate a new edge (ids, kind, scores, meta) without writing it."""
        return Edge(
            edge_id=check_uuid(d.edge_id, "edgeId") if d.edge_id is not None else new_id(),
            from_id=check_uuid(d.from_id, "from"),
            to_id=check_uuid(d.to_id, "to"),
            kind=check_edge_kind(d.kind),
            author=check_text(d.author, "author"),
            source_kind=check_text(d.source_kind, "sourceKind"),
            authority=check_score(d.authority, "authority", required=True) or 0.0,
            weight=check_finite(d.weight, "weight"),
            active=d.active,
            meta=None if d.meta is None
            else check_object(d.meta, "meta", max_bytes=self.settings.max_content_bytes),
        )  # fmt: skip

    async def _explain_create_failure(self, edge: Edge) -> None:
        if await self.graph.read("edge_key", {"edge_id": edge.edge_id}):
            raise DuplicateEdge([edge.edge_id])
        found = await self.graph.read(
            "item_get", {"ids": [edge.from_id, edge.to_id], "include_retracted": False}
        )
        present = {row["item"]["id"] for row in found}
        for item_id in (edge.from_id, edge.to_id):
            if item_id not in present:
                raise MemoryNotFound(item_id)
        raise StorageError("edge write failed for an unknown reason")

    async def update(
        self, edge_id: str, patch: EdgePatch, author: str, reason: str | None, origin: Origin
    ) -> tuple[Edge, list[Event]]:
        edge_id = check_uuid(edge_id, "edgeId")
        author = check_text(author, "author")
        patch = self._check_patch(patch)
        for _ in range(_CAS_ATTEMPTS):
            rows = await self.graph.read("edge_get", {"ids": [edge_id]})
            if not rows:
                raise EdgeNotFound(edge_id)
            current, version = edge_from_row(rows[0]["edge"]), int(rows[0]["edge"]["version"])
            merged = _merge(current, patch)
            payload = _update_payload(edge_id, patch, author, reason)
            event = make_event("edge.updated", payload, origin, subject=edge_id)
            params = {"edge_id": edge_id, "version": version, "props": _update_props(merged),
                      "event": event_props(event)}  # fmt: skip
            if merged.kind != current.kind:
                written = await self.graph.write("edge_rekind", params, kind=merged.kind)
            else:
                written = await self.graph.write("edge_update", params)
            if written:
                return merged, [event]
        raise StorageError(f"edge {edge_id} kept changing under concurrent updates")

    def _check_patch(self, p: EdgePatch) -> EdgePatch:
        return EdgePatch(
            kind=None if p.kind is None else check_edge_kind(p.kind, "patch.kind"),
            weight=check_finite(p.weight, "patch.weight"),
            authority=check_score(p.authority, "patch.authority"),
            active=p.active,
            meta=None if p.meta is None
            else check_object(p.meta, "patch.meta", max_bytes=self.settings.max_content_bytes),
        )  # fmt: skip

    async def retract(
        self, edge_id: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        edge_id = check_uuid(edge_id, "edgeId")
        payload: JSONObject = {"edge_id": edge_id, "author": check_text(author, "author")}
        if reason is not None:
            payload["reason"] = reason
        event = make_event("edge.retracted", payload, origin, subject=edge_id)
        rows = await self.graph.write(
            "edge_retract", {"edge_id": edge_id, "event": event_props(event)}
        )
        if not rows:
            raise EdgeNotFound(edge_id)
        return [event]


def _merge(current: Edge, patch: EdgePatch) -> Edge:
    changes: dict[str, Any] = {
        k: v for k, v in (("kind", patch.kind), ("weight", patch.weight),
                          ("authority", patch.authority), ("active", patch.active))
        if v is not None
    }  # fmt: skip
    if patch.meta is not None:
        changes["meta"] = {**(current.meta or {}), **patch.meta}
    return replace(current, **changes)


def _update_payload(edge_id: str, patch: EdgePatch, author: str, reason: str | None) -> JSONObject:
    partial = {
        k: v for k, v in (("kind", patch.kind), ("weight", patch.weight),
                          ("authority", patch.authority), ("active", patch.active),
                          ("meta", patch.meta))
        if v is not None
    }  # fmt: skip
    payload: JSONObject = {"edge_id": edge_id, "partial": partial, "author": author}
    if reason is not None:
        payload["reason"] = reason
    return payload


def _update_props(edge: Edge) -> dict[str, Any]:
    props: dict[str, Any] = {"authority": edge.authority, "active": edge.active}
    if edge.weight is not None:
        props["weight"] = edge.weight
    if edge.meta is not None:
        props["meta"] = dump_json(edge.meta)
    return props


class EdgeReads:
    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    async def get_many(self, edge_ids: list[str]) -> dict[str, Edge]:
        ids = [check_uuid(i, "edgeId") for i in edge_ids]
        rows = await self.graph.read("edge_get", {"ids": ids})
        return {row["edge"]["edge_id"]: edge_from_row(row["edge"]) for row in rows}

    async def find(self, flt: EdgeFilter, limit: int | None = None) -> list[Edge]:
        params: dict[str, Any] = {
            "to": None if flt.to_id is None else check_uuid(flt.to_id, "to"),
            "min_weight": check_finite(flt.min_weight, "minWeight"),
            "active_only": flt.active_only,
            "limit": self.settings.max_page if limit is None else limit,
        }
        kind = "" if flt.kind is None else f":{check_edge_kind(flt.kind)}"
        if flt.from_id is not None:
            params["from"] = check_uuid(flt.from_id, "from")
            rows = await self.graph.read("edge_find_from", params, kind=kind)
        elif flt.to_id is not None:
            rows = await self.graph.read("edge_find_to", params, kind=kind)
        else:
            params["from"] = None
            rows = await self.graph.read("edge_find", params, kind=kind)
        return [edge_from_row(row["edge"]) for row in rows]

    async def of_items(
        self, ids: list[str], direction: Direction, kind: str | None, active_only: bool
    ) -> dict[str, list[Edge]]:
        if kind is not None:
            check_edge_kind(kind)
        rows = await self.graph.read(
            "edges_of",
            {"ids": ids, "kind": kind, "active_only": active_only},
            pattern=pattern(direction),
        )
        return {row["id"]: [edge_from_row(e) for e in row["edges"]] for row in rows}
