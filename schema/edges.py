"""Typed edges in GraphQL: the ``Edge`` type, its inputs, filter and result."""

from __future__ import annotations

import strawberry
from memexd.schema.common import Info, flat
from memexd.schema.events import Event
from memexd.schema.items import MemoryItem
from strawberry.scalars import JSON

from memexd.memory.model import Edge as EdgeRecord
from memexd.memory.model import EdgeFilter as EdgeFilterRecord
from memexd.memory.model import EdgePatch as EdgePatchRecord
from memexd.memory.model import NewEdge

__all__ = ["Edge", "EdgeFilter", "EdgeInput", "EdgePatch", "EdgeResult"]

_KIND = "Upper-case kind, the relationship type: `SUPPORTS`, `CONTRADICTS`, `ALIAS`, …"


@strawberry.federation.type(
    keys=["edgeId"],
    description="A typed relation between two items; its kind is the relationship type.",
)
class Edge:
    edge_id: strawberry.ID = strawberry.field(description="The edge's own id (a UUID).")
    from_: strawberry.ID = strawberry.field(name="from", description="The source item's id.")
    to: strawberry.ID = strawberry.field(description="The target item's id.")
    kind: str = strawberry.field(description=_KIND)
    weight: float | None = strawberry.field(description="Optional strength of the relation.")
    author: str = strawberry.field(description="Who asserted the relation.")
    source_kind: str = strawberry.field(description="How the relation was obtained.")
    authority: float = strawberry.field(description="How much to trust it, in [0, 1].")
    active: bool = strawberry.field(
        description="False once deactivated (e.g. a resolved contradiction); kept for history."
    )
    meta: JSON | None = strawberry.field(description="Free-form JSON object.")

    @classmethod
    def of(cls, edge: EdgeRecord) -> Edge:
        return cls(
            edge_id=strawberry.ID(edge.edge_id),
            from_=strawberry.ID(edge.from_id),
            to=strawberry.ID(edge.to_id),
            kind=edge.kind,
            weight=edge.weight,
            author=edge.author,
            source_kind=edge.source_kind,
            authority=edge.authority,
            active=edge.active,
            meta=None if edge.meta is None else JSON(edge.meta),
        )

    @classmethod
    async def resolve_reference(cls, info: Info, key: str) -> Edge | None:
        """A federation reference: null when missing, retracted or unreadable."""
        edge = await info.context.loaders.edges_by_id.load(key)
        return None if edge is None else cls.of(edge)

    @strawberry.field(description="The source item, if it is live.")
    async def from_item(self, info: Info) -> MemoryItem | None:
        item = await info.context.loaders.items.load(self.from_)
        return None if item is None else MemoryItem.of(item)

    @strawberry.field(description="The target item, if it is live.")
    async def to_item(self, info: Info) -> MemoryItem | None:
        item = await info.context.loaders.items.load(self.to)
        return None if item is None else MemoryItem.of(item)


@flat
@strawberry.input(description="A new typed edge between two live items.")
class EdgeInput:
    edge_id: strawberry.ID | None = strawberry.field(
        default=None, description="A UUID of your own; generated when absent."
    )
    from_: strawberry.ID = strawberry.field(name="from", description="The source item's id.")
    to: strawberry.ID = strawberry.field(description="The target item's id (may equal `from`).")
    kind: str = strawberry.field(description=_KIND)
    weight: float | None = strawberry.field(default=None, description="Optional strength.")
    author: str = strawberry.field(description="Who asserts the relation.")
    source_kind: str = strawberry.field(description="How the relation was obtained.")
    authority: float = strawberry.field(description="How much to trust it, in [0, 1].")
    active: bool | None = strawberry.field(default=True, description="Created active unless false.")
    meta: JSON | None = strawberry.field(default=None, description="Free-form JSON object.")

    def draft(self) -> NewEdge:
        return NewEdge(
            edge_id=self.edge_id, from_id=self.from_, to_id=self.to, kind=self.kind,
            author=self.author, source_kind=self.source_kind, authority=self.authority,
            weight=self.weight, active=True if self.active is None else self.active,
            meta=self.meta,
        )  # fmt: skip


@flat
@strawberry.input(description="Changes to an edge; absent or null fields stay as they are.")
class EdgePatch:
    kind: str | None = strawberry.field(default=None, description="A new kind.")
    weight: float | None = strawberry.field(default=None, description="A new weight.")
    authority: float | None = strawberry.field(default=None, description="A new authority.")
    active: bool | None = strawberry.field(default=None, description="Activate or deactivate.")
    meta: JSON | None = strawberry.field(
        default=None, description="Keys to set in meta (a shallow merge)."
    )

    def draft(self) -> EdgePatchRecord:
        return EdgePatchRecord(kind=self.kind, weight=self.weight, authority=self.authority,
                               active=self.active, meta=self.meta)  # fmt: skip


@strawberry.input(description="Which edges to list; all fields AND-combined.")
class EdgeFilter:
    from_: strawberry.ID | None = strawberry.field(
        name="from", default=None, description="Only edges leaving this item."
    )
    to: strawberry.ID | None = strawberry.field(
        default=None, description="Only edges entering this item."
    )
    kind: str | None = strawberry.field(default=None, description="Only edges of this kind.")
    min_weight: float | None = strawberry.field(
        default=None, description="Only edges with at least this weight."
    )
    active_only: bool | None = strawberry.field(
        default=True, description="Leave out deactivated edges (the default)."
    )

    def draft(self) -> EdgeFilterRecord:
        return EdgeFilterRecord(
            from_id=self.from_, to_id=self.to, kind=self.kind, min_weight=self.min_weight,
            active_only=True if self.active_only is None else self.active_only,
        )  # fmt: skip


@strawberry.type(description="The edge a command wrote and the events it emitted.")
class EdgeResult:
    edge: Edge = strawberry.field(description="The edge as stored.")
    events: list[Event] = strawberry.field(description="The events the command emitted.")
