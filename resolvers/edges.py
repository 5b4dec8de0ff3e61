"""Resolvers for typed edges."""

from __future__ import annotations

from typing import TypeAlias

import strawberry
from memexd.resolvers import convert
from memexd.schema.inputs import EdgeFilter, EdgeInput, EdgePatch
from memexd.schema.types import Edge, EdgeResult, Event, EventsResult

from memexd.server.context import Context

Info: TypeAlias = strawberry.Info[Context, None]


async def edge(info: Info, edge_id: strawberry.ID) -> Edge | None:
    found = await info.context.memex.edge_reads.get_many([edge_id])
    return next((Edge.of(e) for e in found.values()), None)


async def edges(
    info: Info, filter: EdgeFilter | None = None, limit: int | None = None
) -> list[Edge]:
    found = await info.context.memex.edge_reads.find(convert.edge_filter(filter), limit)
    return [Edge.of(e) for e in found]


async def create_edge(info: Info, input: EdgeInput) -> EdgeResult:
    created, events = await info.context.memex.edges.create(
        convert.new_edge(input), info.context.origin
    )
    return EdgeResult(edge=Edge.of(created), events=Event.all(events))


async def update_edge(
    info: Info, edge_id: strawberry.ID, patch: EdgePatch, author: str, reason: str | None = None
) -> EdgeResult:
    updated, events = await info.context.memex.edges.update(
        edge_id, convert.edge_patch(patch), author, reason, info.context.origin
    )
    return EdgeResult(edge=Edge.of(updated), events=Event.all(events))


async def retract_edge(
    info: Info, edge_id: strawberry.ID, author: str, reason: str | None = None
) -> EventsResult:
    events = await info.context.memex.edges.retract(edge_id, author, reason, info.context.origin)
    return EventsResult(events=Event.all(events))
