"""The root Query type."""

from __future__ import annotations

import strawberry

from memexd.resolvers import edges as edges_r
from memexd.resolvers import events as events_r
from memexd.resolvers import items as items_r
from memexd.schema.types import Edge, Event, MemoryItem

__all__ = ["Query"]


@strawberry.type
class Query:
    item: MemoryItem | None = strawberry.field(
        resolver=items_r.item, description="One item by id (retracted ones only when asked)."
    )
    items: list[MemoryItem] = strawberry.field(
        resolver=items_r.items,
        description="Items matching a filter, sorted (ties by id) and paged in the database.",
    )
    edge: Edge | None = strawberry.field(resolver=edges_r.edge)
    edges: list[Edge] = strawberry.field(resolver=edges_r.edges)
    related_items: list[MemoryItem] = strawberry.field(
        resolver=items_r.related_items, description="Items joined to this one by active edges."
    )
    parents: list[MemoryItem] = strawberry.field(resolver=items_r.parents)
    children: list[MemoryItem] = strawberry.field(resolver=items_r.children)
    events: list[Event] = strawberry.field(
        resolver=events_r.events, description="The event log in commit order, after a cursor."
    )
