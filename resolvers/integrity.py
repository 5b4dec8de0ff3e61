"""Resolvers for the integrity questions: provenance, dependents, staleness,
contradictions, aliases and cascade retraction."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.resolvers.args import Author, ItemId, Limit, Meta, Reason
from memexd.schema.common import IncludeArchived, Info
from memexd.schema.edges import Edge, EdgeResult
from memexd.schema.events import Event, EventsResult
from memexd.schema.integrity import CascadeResult, Contradiction, ProvenanceGraph, StaleItem
from memexd.schema.items import MemoryItem

from memexd.memory.archive import shown

OtherId = Annotated[strawberry.ID, strawberry.argument(description="The other item's id.")]


async def support_tree(
    info: Info,
    id: ItemId,
    max_depth: Annotated[
        int | None,
        strawberry.argument(description="Stop this many parent steps from the item."),
    ] = None,
    include_archived: IncludeArchived = False,
) -> ProvenanceGraph | None:
    tree = await info.context.memex.provenance.support_tree(id, max_depth)
    return None if tree is None else ProvenanceGraph.of(tree, include_archived)


async def support_set(
    info: Info, id: ItemId, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    found = await info.context.memex.provenance.support_set(id)
    return MemoryItem.all(shown(found, include_archived))


async def dependents(
    info: Info,
    id: ItemId,
    transitive: Annotated[
        bool | None, strawberry.argument(description="All descendants, not only children.")
    ] = False,
    include_archived: IncludeArchived = False,
) -> list[MemoryItem]:
    found = await info.context.memex.provenance.dependents(id, bool(transitive))
    return MemoryItem.all(shown(found, include_archived))


async def stale_items(
    info: Info, limit: Limit = None, include_archived: IncludeArchived = False
) -> list[StaleItem]:
    found = await info.context.memex.provenance.stale_items(limit, bool(include_archived))
    return [StaleItem.of(s) for s in found]


async def contradictions(
    info: Info, limit: Limit = None, include_archived: IncludeArchived = False
) -> list[Contradiction]:
    found = await info.context.memex.contradictions.active(limit, bool(include_archived))
    return [Contradiction.of(c) for c in found]


async def aliases(
    info: Info, id: ItemId, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    return MemoryItem.all(shown(await info.context.memex.aliases.direct(id), include_archived))


async def alias_group(
    info: Info, id: ItemId, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    return MemoryItem.all(shown(await info.context.memex.aliases.group(id), include_archived))


async def mark_contradiction(
    info: Info,
    a: Annotated[strawberry.ID, strawberry.argument(description="The contradicting item.")],
    b: Annotated[strawberry.ID, strawberry.argument(description="The contradicted item.")],
    author: Author,
    meta: Meta = None,
) -> EdgeResult:
    edge, events = await info.context.memex.contradictions.mark(
        a, b, author, meta, info.context.origin
    )
    return EdgeResult(edge=Edge.of(edge), events=Event.all(events))


async def resolve_contradiction(
    info: Info,
    winner_id: Annotated[strawberry.ID, strawberry.argument(description="The item that stands.")],
    loser_id: Annotated[strawberry.ID, strawberry.argument(description="The item superseded.")],
    author: Author,
    reason: Reason = None,
) -> EventsResult:
    events = await info.context.memex.contradictions.resolve(
        winner_id, loser_id, author, reason, info.context.origin
    )
    return EventsResult(events=Event.all(events))


async def mark_alias(
    info: Info,
    a: Annotated[strawberry.ID, strawberry.argument(description="One item.")],
    b: OtherId,
    author: Author,
    meta: Meta = None,
    skip_existing: Annotated[
        bool,
        strawberry.argument(
            description="Leave a direction alone when an active ALIAS edge already joins it "
            "(memexd's option; MemEX adds two more edges each time)."
        ),
    ] = False,
) -> EventsResult:
    events = await info.context.memex.aliases.mark(
        a, b, author, meta, info.context.origin, skip_existing=skip_existing
    )
    return EventsResult(events=Event.all(events))


async def unmark_alias(
    info: Info,
    a: Annotated[strawberry.ID, strawberry.argument(description="One item.")],
    b: OtherId,
    author: Author,
    reason: Reason = None,
) -> EventsResult:
    events = await info.context.memex.aliases.unmark(a, b, author, reason, info.context.origin)
    return EventsResult(events=Event.all(events))


async def cascade_retract(
    info: Info, id: ItemId, author: Author, reason: Reason = None
) -> CascadeResult:
    order, events = await info.context.memex.cascade.retract(
        id, author, reason, info.context.origin
    )
    return CascadeResult(retracted=[strawberry.ID(i) for i in order], emitted=events)
