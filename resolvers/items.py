"""Resolvers for memory items."""

from __future__ import annotations

from typing import TypeAlias

import strawberry
from memexd.resolvers import convert
from memexd.schema.enums import Direction
from memexd.schema.inputs import MemoryFilter, MemoryItemInput, MemoryItemPatch, SortOption
from memexd.schema.types import Event, EventsResult, ItemResult, ItemsResult, MemoryItem
from strawberry.scalars import JSON

from memexd.ids import check_uuid
from memexd.memory.model import Direction as DirectionRecord
from memexd.server.context import Context

Info: TypeAlias = strawberry.Info[Context, None]


async def item(info: Info, id: strawberry.ID, include_retracted: bool = False) -> MemoryItem | None:
    found = await info.context.memex.item_reads.get(id, include_retracted=include_retracted)
    return None if found is None else MemoryItem.of(found)


async def items(
    info: Info,
    filter: MemoryFilter | None = None,
    sort: list[SortOption] | None = None,
    limit: int | None = None,
    offset: int | None = None,
    include_retracted: bool = False,
) -> list[MemoryItem]:
    found = await info.context.memex.item_reads.find(
        convert.memory_filter(filter),
        convert.sort_keys(sort),
        limit,
        offset,
        include_retracted=include_retracted,
    )
    return [MemoryItem.of(i) for i in found]


async def related_items(
    info: Info, id: strawberry.ID, direction: Direction | None = Direction.BOTH
) -> list[MemoryItem]:
    found = await info.context.memex.item_reads.related(
        id, DirectionRecord.named((direction or Direction.BOTH).value)
    )
    return [MemoryItem.of(i) for i in found]


async def parents(info: Info, id: strawberry.ID) -> list[MemoryItem]:
    return [MemoryItem.of(i) for i in await info.context.memex.item_reads.parents(id)]


async def children(info: Info, id: strawberry.ID) -> list[MemoryItem]:
    return [MemoryItem.of(i) for i in await info.context.memex.item_reads.children(id)]


async def create_item(info: Info, input: MemoryItemInput) -> ItemResult:
    created, events = await info.context.memex.items.create(
        [convert.new_item(input)], info.context.origin
    )
    return ItemResult(item=MemoryItem.of(created[0]), events=Event.all(events))


async def create_items(info: Info, inputs: list[MemoryItemInput]) -> ItemsResult:
    created, events = await info.context.memex.items.create(
        [convert.new_item(i) for i in inputs], info.context.origin
    )
    return ItemsResult(created=created, emitted=events)


async def update_item(
    info: Info,
    id: strawberry.ID,
    patch: MemoryItemPatch,
    author: str,
    reason: str | None = None,
    basis: JSON | None = None,
) -> ItemResult:
    updated, events = await info.context.memex.items.update(
        check_uuid(id), convert.item_patch(patch), author, reason, basis, info.context.origin
    )
    return ItemResult(item=MemoryItem.of(updated), events=Event.all(events))


async def retract_item(
    info: Info, id: strawberry.ID, author: str, reason: str | None = None
) -> EventsResult:
    events = await info.context.memex.items.retract(id, author, reason, info.context.origin)
    return EventsResult(events=Event.all(events))
