"""GraphQL object types. Nested fields read through the per-request loaders."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

import strawberry
from memexd.schema.enums import Direction
from strawberry.scalars import JSON

from memexd.ids import ms_to_datetime
from memexd.integrity.provenance import SupportTree
from memexd.memory.model import Edge as EdgeRecord
from memexd.memory.model import Event as EventRecord
from memexd.memory.model import Item
from memexd.server.context import Context

__all__ = [
    "CascadeResult",
    "Contradiction",
    "Edge",
    "EdgeResult",
    "Event",
    "EventsResult",
    "ItemResult",
    "ItemsResult",
    "MemoryItem",
    "ProvenanceGraph",
    "ProvenanceLink",
    "ProvenanceNode",
    "StaleItem",
]

Info: TypeAlias = strawberry.Info[Context, None]


@strawberry.type(description="A belief: content with provenance, trust scores and scope.")
class MemoryItem:
    id: strawberry.ID
    scope: str
    kind: str
    content: JSON
    author: str
    source_kind: str
    parents: list[strawberry.ID]
    authority: float
    conviction: float | None
    importance: float | None
    intent_id: strawberry.ID | None
    task_id: strawberry.ID | None
    meta: JSON | None
    created_at: datetime
    retracted: bool

    @classmethod
    def of(cls, item: Item) -> MemoryItem:
        return cls(
            id=strawberry.ID(item.id),
            scope=item.scope,
            kind=item.kind,
            content=JSON(item.content),
            author=item.author,
            source_kind=item.source_kind,
            parents=[strawberry.ID(p) for p in item.parents],
            authority=item.authority,
            conviction=item.conviction,
            importance=item.importance,
            intent_id=None if item.intent_id is None else strawberry.ID(item.intent_id),
            task_id=None if item.task_id is None else strawberry.ID(item.task_id),
            meta=None if item.meta is None else JSON(item.meta),
            created_at=ms_to_datetime(item.created_at),
            retracted=item.retracted,
        )

    @strawberry.field(description="Live parents that exist, in the order `parents` lists them.")
    async def parent_items(self, info: Info) -> list[MemoryItem]:
        unique = list(dict.fromkeys(self.parents))
        found = await info.context.loaders.items.load_many(unique)
        return [MemoryItem.of(item) for item in found if item is not None]

    @strawberry.field(description="Live items that list this one as a parent.")
    async def children(self, info: Info) -> list[MemoryItem]:
        return [MemoryItem.of(c) for c in await info.context.loaders.children.load(self.id)]

    @strawberry.field(description="Direct aliases: items joined by an active ALIAS edge.")
    async def aliases(self, info: Info) -> list[MemoryItem]:
        return [MemoryItem.of(a) for a in await info.context.loaders.aliases.load(self.id)]

    @strawberry.field(
        description="Items on the other side of active CONTRADICTS edges (not itself)."
    )
    async def contradicted_by(self, info: Info) -> list[MemoryItem]:
        found = await info.context.loaders.contradicted_by.load(self.id)
        return [MemoryItem.of(c) for c in found]

    @strawberry.field(description="Edges touching this item (active ones unless told).")
    async def edges(
        self,
        info: Info,
        direction: Direction | None = Direction.BOTH,
        kind: str | None = None,
        active_only: bool = True,
    ) -> list[Edge]:
        loader = info.context.loaders.edges((direction or Direction.BOTH).value, kind, active_only)
        return [Edge.of(e) for e in await loader.load(self.id)]


@strawberry.type(
    description="A typed relation between two items; its kind is the relationship type."
)
class Edge:
    edge_id: strawberry.ID
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    kind: str
    weight: float | None
    author: str
    source_kind: str
    authority: float
    active: bool
    meta: JSON | None

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

    @strawberry.field
    async def from_item(self, info: Info) -> MemoryItem | None:
        item = await info.context.loaders.items.load(self.from_)
        return None if item is None else MemoryItem.of(item)

    @strawberry.field
    async def to_item(self, info: Info) -> MemoryItem | None:
        item = await info.context.loaders.items.load(self.to)
        return None if item is None else MemoryItem.of(item)


@strawberry.type(description="A lifecycle event (MemEX names and payloads).")
class Event:
    id: strawberry.ID
    namespace: str
    type: str
    ts: datetime
    trace_id: str | None
    cause_id: str | None
    payload: JSON

    @classmethod
    def of(cls, event: EventRecord) -> Event:
        return cls(
            id=strawberry.ID(event.id),
            namespace=event.namespace,
            type=event.type,
            ts=ms_to_datetime(event.ts),
            trace_id=event.trace_id,
            cause_id=event.cause_id,
            payload=JSON(event.payload),
        )

    @classmethod
    def all(cls, events: list[EventRecord]) -> list[Event]:
        return [cls.of(e) for e in events]


@strawberry.type
class ProvenanceLink:
    child: strawberry.ID
    parent: strawberry.ID


@strawberry.type
class ProvenanceNode:
    item: MemoryItem
    depth: int


@strawberry.type(
    description="A support tree as a flat graph: nodes with depth, child→parent links."
)
class ProvenanceGraph:
    root: strawberry.ID
    nodes: list[ProvenanceNode]
    links: list[ProvenanceLink]
    truncated: bool = strawberry.field(
        description="True when maxDepth or the traversal limits cut the tree short."
    )

    @classmethod
    def of(cls, tree: SupportTree) -> ProvenanceGraph:
        return cls(
            root=strawberry.ID(tree.root),
            nodes=[ProvenanceNode(item=MemoryItem.of(i), depth=d) for i, d in tree.nodes],
            links=[
                ProvenanceLink(child=strawberry.ID(c), parent=strawberry.ID(p))
                for c, p in tree.links
            ],
            truncated=tree.truncated,
        )


@strawberry.type
class Contradiction:
    a: MemoryItem
    b: MemoryItem
    edge: Edge


@strawberry.type
class StaleItem:
    item: MemoryItem
    missing_parents: list[strawberry.ID]


@strawberry.type
class CascadeResult:
    retracted: list[strawberry.ID] = strawberry.field(
        description="Retracted ids, children before parents."
    )
    events: list[Event]


@strawberry.type
class ItemResult:
    item: MemoryItem
    events: list[Event]


@strawberry.type
class ItemsResult:
    """Built lazily: a batch of thousands usually selects only ``items { id }``."""

    created: strawberry.Private[list[Item]]
    emitted: strawberry.Private[list[EventRecord]]

    @strawberry.field
    def items(self) -> list[MemoryItem]:
        return [MemoryItem.of(i) for i in self.created]

    @strawberry.field
    def events(self) -> list[Event]:
        return Event.all(self.emitted)


@strawberry.type
class EdgeResult:
    edge: Edge
    events: list[Event]


@strawberry.type
class EventsResult:
    events: list[Event]
