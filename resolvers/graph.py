"""Resolvers for the graph questions: provenance, dependents, staleness,
contradictions, aliases and cascade retraction."""

from __future__ import annotations

from typing import TypeAlias

import strawberry
from memexd.schema.types import (
    CascadeResult,
    Contradiction,
    Edge,
    EdgeResult,
    Event,
    EventsResult,
    MemoryItem,
    ProvenanceGraph,
    StaleItem,
)
from strawberry.scalars import JSON

from memexd.memory.validation import check_limit
from memexd.server.context import Context

Info: TypeAlias = strawberry.Info[Context, None]


async def support_tree(
    info: Info, id: strawberry.ID, max_depth: int | None = None
) -> ProvenanceGraph | None:
    tree = await info.context.memex.provenance.support_tree(id, max_depth)
    return None if tree is None else ProvenanceGraph.of(tree)


async def support_set(info: Info, id: strawberry.ID) -> list[MemoryItem]:
    return [MemoryItem.of(i) for i in await info.context.memex.provenance.support_set(id)]


async def dependents(
    info: Info, id: strawberry.ID, transitive: bool | None = False
) -> list[MemoryItem]:
    found = await info.context.memex.provenance.dependents(id, bool(transitive))
    return [MemoryItem.of(i) for i in found]


async def stale_items(info: Info, limit: int | None = None) -> list[StaleItem]:
    page = check_limit(limit, "limit", maximum=info.context.memex.settings.max_page)
    found = await info.context.memex.provenance.stale_items(page)
    return [
        StaleItem(item=MemoryItem.of(s.item),
                  missing_parents=[strawberry.ID(p) for p in s.missing_parents])
        for s in found
    ]  # fmt: skip


async def contradictions(info: Info, limit: int | None = None) -> list[Contradiction]:
    settings = info.context.memex.settings
    page = check_limit(limit, "limit", maximum=settings.max_page)
    found = await info.context.memex.contradictions.active(
        settings.max_page if page is None else page
    )
    return [Contradiction(a=MemoryItem.of(c.a), b=MemoryItem.of(c.b), edge=Edge.of(c.edge))
            for c in found]  # fmt: skip


async def aliases(info: Info, id: strawberry.ID) -> list[MemoryItem]:
    return [MemoryItem.of(i) for i in await info.context.memex.aliases.direct(id)]


async def alias_group(info: Info, id: strawberry.ID) -> list[MemoryItem]:
    return [MemoryItem.of(i) for i in await info.context.memex.aliases.group(id)]


async def mark_contradiction(
    info: Info, a: strawberry.ID, b: strawberry.ID, author: str, meta: JSON | None = None
) -> EdgeResult:
    edge, events = await info.context.memex.contradictions.mark(
        a, b, author, meta, info.context.origin
    )
    return EdgeResult(edge=Edge.of(edge), events=Event.all(events))


async def resolve_contradiction(
    info: Info,
    winner_id: strawberry.ID,
    loser_id: strawberry.ID,
    author: str,
    reason: str | None = None,
) -> EventsResult:
    events = await info.context.memex.contradictions.resolve(
        winner_id, loser_id, author, reason, info.context.origin
    )
    return EventsResult(events=Event.all(events))


async def mark_alias(
    info: Info, a: strawberry.ID, b: strawberry.ID, author: str, meta: JSON | None = None
) -> EventsResult:
    events = await info.context.memex.aliases.mark(a, b, author, meta, info.context.origin)
    return EventsResult(events=Event.all(events))


async def cascade_retract(
    info: Info, id: strawberry.ID, author: str, reason: str | None = None
) -> CascadeResult:
    order, events = await info.context.memex.cascade.retract(
        id, author, reason, info.context.origin
    )
    return CascadeResult(retracted=[strawberry.ID(i) for i in order], events=Event.all(events))
