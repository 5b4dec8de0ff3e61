"""The root Query type."""

from __future__ import annotations

import strawberry
from memexd.resolvers import edges as edges_r
from memexd.resolvers import events as events_r
from memexd.resolvers import graph as graph_r
from memexd.resolvers import items as items_r
from memexd.schema.types import (
    Contradiction,
    Edge,
    Event,
    MemoryItem,
    ProvenanceGraph,
    StaleItem,
)

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
    support_tree: ProvenanceGraph | None = strawberry.field(
        resolver=graph_r.support_tree,
        description="Transitive parents as a flat graph (cycle-safe, missing parents skipped).",
    )
    support_set: list[MemoryItem] = strawberry.field(
        resolver=graph_r.support_set,
        description="The item and everything supporting it, deduplicated, item first.",
    )
    contradictions: list[Contradiction] = strawberry.field(
        resolver=graph_r.contradictions, description="Active CONTRADICTS edges with both items."
    )
    stale_items: list[StaleItem] = strawberry.field(
        resolver=graph_r.stale_items,
        description="Live items naming a parent that is missing or retracted.",
    )
    dependents: list[MemoryItem] = strawberry.field(
        resolver=graph_r.dependents, description="Children, or all descendants when transitive."
    )
    aliases: list[MemoryItem] = strawberry.field(resolver=graph_r.aliases)
    alias_group: list[MemoryItem] = strawberry.field(
        resolver=graph_r.alias_group,
        description="The transitive closure of aliasing, the item itself first.",
    )
