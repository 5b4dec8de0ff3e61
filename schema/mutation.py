"""The root Mutation type."""

from __future__ import annotations

import strawberry

from memexd.resolvers import edges as edges_r
from memexd.resolvers import items as items_r
from memexd.schema.types import EdgeResult, EventsResult, ItemResult, ItemsResult

__all__ = ["Mutation"]


@strawberry.type
class Mutation:
    create_item: ItemResult = strawberry.mutation(resolver=items_r.create_item)
    create_items: ItemsResult = strawberry.mutation(
        resolver=items_r.create_items, description="Create a batch atomically (one statement)."
    )
    update_item: ItemResult = strawberry.mutation(resolver=items_r.update_item)
    retract_item: EventsResult = strawberry.mutation(resolver=items_r.retract_item)
    create_edge: EdgeResult = strawberry.mutation(resolver=edges_r.create_edge)
    update_edge: EdgeResult = strawberry.mutation(resolver=edges_r.update_edge)
    retract_edge: EventsResult = strawberry.mutation(resolver=edges_r.retract_edge)
