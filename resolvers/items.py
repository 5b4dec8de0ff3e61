"""Resolvers for memory items."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.resolvers.args import Author, ItemId, Limit, Reason
from memexd.schema.common import Direction, IncludeArchived, Info
from memexd.schema.events import Event, EventsResult
from memexd.schema.filters import MemoryFilter, SortOption, sort_keys
from memexd.schema.items import (
    ItemResult,
    ItemsResult,
    MemoryItem,
    MemoryItemInput,
    MemoryItemPatch,
)
from strawberry.scalars import JSON

from memexd.memory.archive import shown

IncludeRetracted = Annotated[
    bool, strawberry.argument(description="Return retracted items (tombstones) too.")
]


async def item(
    info: Info, id: ItemId, include_retracted: IncludeRetracted = False
) -> MemoryItem | None:
    found = await info.context.memex.item_reads.get(id, include_retracted=include_retracted)
    return None if found is None else MemoryItem.of(found)


async def items(
    info: Info,
    filter: Annotated[MemoryFilter | None, strawberry.argument(description="Which items.")] = None,
    sort: Annotated[
        list[SortOption] | None, strawberry.argument(description="Up to 4 keys; ties by id.")
    ] = None,
    limit: Limit = None,
    offset: Annotated[
        int | None, strawberry.argument(description="Skip this many (at most MEMEXD_MAX_OFFSET).")
    ] = None,
    include_retracted: IncludeRetracted = False,
) -> list[MemoryItem]:
    found = await info.context.memex.item_reads.find(
        None if filter is None else filter.draft(),
        sort_keys(sort),
        limit,
        offset,
        include_retracted=include_retracted,
    )
    return MemoryItem.all(found)


async def search_items(
    info: Info,
    text: Annotated[
        str,
        strawberry.argument(
            description="Words the content must all hold (letters and digits; at most 16)."
        ),
    ],
    filter: Annotated[MemoryFilter | None, strawberry.argument(description="Which items.")] = None,
    limit: Limit = None,
    include_retracted: IncludeRetracted = False,
) -> list[MemoryItem]:
    found = await info.context.memex.text.search(
        text, None if filter is None else filter.draft(), limit,
        include_retracted=include_retracted,
    )  # fmt: skip
    return MemoryItem.all(found)


async def related_items(
    info: Info,
    id: ItemId,
    direction: Annotated[
        Direction | None, strawberry.argument(description="Which way the edges point.")
    ] = Direction.BOTH,
    include_archived: IncludeArchived = False,
) -> list[MemoryItem]:
    way = (direction or Direction.BOTH).record()
    found = await info.context.memex.item_reads.related(id, way)
    return MemoryItem.all(shown(found, include_archived))


async def parents(
    info: Info, id: ItemId, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    found = await info.context.memex.item_reads.parents(id)
    return MemoryItem.all(shown(found, include_archived))


async def children(
    info: Info, id: ItemId, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    found = await info.context.memex.item_reads.children(id)
    return MemoryItem.all(shown(found, include_archived))


async def create_item(
    info: Info, input: Annotated[MemoryItemInput, strawberry.argument(description="The item.")]
) -> ItemResult:
    created, events = await info.context.memex.items.create([input.draft()], info.context.origin)
    return ItemResult(item=MemoryItem.of(created[0]), events=Event.all(list(events)))


async def create_items(
    info: Info,
    inputs: Annotated[
        list[MemoryItemInput],
        strawberry.argument(description="The items (at most MEMEXD_MAX_BATCH); all or none."),
    ],
) -> ItemsResult:
    # the inputs carry a draft's fields: validated as they are, no copy made
    created, events = await info.context.memex.items.create(inputs, info.context.origin)
    return ItemsResult(created=created, emitted=events)


async def update_item(
    info: Info,
    id: ItemId,
    patch: Annotated[MemoryItemPatch, strawberry.argument(description="What to change.")],
    author: Author,
    reason: Reason = None,
    basis: Annotated[
        JSON | None, strawberry.argument(description="Evidence for the change, kept in the event.")
    ] = None,
) -> ItemResult:
    updated, events = await info.context.memex.items.update(
        id, patch.draft(), author, reason, basis, info.context.origin
    )
    return ItemResult(item=MemoryItem.of(updated), events=Event.all(events))


async def retract_item(
    info: Info, id: ItemId, author: Author, reason: Reason = None
) -> EventsResult:
    events = await info.context.memex.items.retract(id, author, reason, info.context.origin)
    return EventsResult(events=await Event.returned(info, events))
