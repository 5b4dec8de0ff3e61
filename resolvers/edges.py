"""Resolvers for typed edges."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.resolvers.args import Author, Limit, Reason
from memexd.schema.common import Info
from memexd.schema.edges import Edge, EdgeFilter, EdgeInput, EdgePatch, EdgeResult
from memexd.schema.events import Event, EventsResult

EdgeId = Annotated[strawberry.ID, strawberry.argument(description="The edge's id.")]


async def edge(info: Info, edge_id: EdgeId) -> Edge | None:
    found = await info.context.memex.edge_reads.get_many([edge_id])
    return next((Edge.of(e) for e in found.values()), None)


async def edges(
    info: Info,
    filter: Annotated[EdgeFilter | None, strawberry.argument(description="Which edges.")] = None,
    limit: Limit = None,
) -> list[Edge]:
    flt = EdgeFilter() if filter is None else filter
    return [Edge.of(e) for e in await info.context.memex.edge_reads.find(flt.draft(), limit)]


async def create_edge(
    info: Info, input: Annotated[EdgeInput, strawberry.argument(description="The edge.")]
) -> EdgeResult:
    created, events = await info.context.memex.edges.create(input.draft(), info.context.origin)
    return EdgeResult(edge=Edge.of(created), events=Event.all(events))


async def update_edge(
    info: Info,
    edge_id: EdgeId,
    patch: Annotated[EdgePatch, strawberry.argument(description="What to change.")],
    author: Author,
    reason: Reason = None,
) -> EdgeResult:
    updated, events = await info.context.memex.edges.update(
        edge_id, patch.draft(), author, reason, info.context.origin
    )
    return EdgeResult(edge=Edge.of(updated), events=Event.all(events))


async def retract_edge(
    info: Info, edge_id: EdgeId, author: Author, reason: Reason = None
) -> EventsResult:
    events = await info.context.memex.edges.retract(edge_id, author, reason, info.context.origin)
    return EventsResult(events=Event.all(events))
