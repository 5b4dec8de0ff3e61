"""The root Mutation type."""

from __future__ import annotations

import strawberry
from memexd.resolvers import edges as edges_r
from memexd.resolvers import graph as graph_r
from memexd.resolvers import items as items_r
from memexd.schema.types import CascadeResult, EdgeResult, EventsResult, ItemResult, ItemsResult

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
    mark_contradiction: EdgeResult = strawberry.mutation(
        resolver=graph_r.mark_contradiction,
        description="An active CONTRADICTS edge a→b (a = b marks a self-inconsistent item).",
    )
    resolve_contradiction: EventsResult = strawberry.mutation(
        resolver=graph_r.resolve_contradiction,
        description=(
            "Winner supersedes loser (SUPERSEDES edge, loser authority halved, contradiction "
            "inactive); a no-op without events when no active contradiction joins them."
        ),
    )
    mark_alias: EventsResult = strawberry.mutation(
        resolver=graph_r.mark_alias,
        description="Record identity both ways (a = b is a silent no-op).",
    )
    cascade_retract: CascadeResult = strawberry.mutation(
        resolver=graph_r.cascade_retract,
        description="Retract the item and all transitive dependents at once, children first.",
    )
