"""Resolvers for memory through time: items and support sets as of an instant."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, cast

import strawberry
from memexd.resolvers.args import Author, ItemId, Limit, Reason
from memexd.schema.common import IncludeArchived, Info
from memexd.schema.events import Event
from memexd.schema.filters import MemoryFilter, epoch_ms
from memexd.schema.history import UndoReport
from memexd.schema.items import MemoryItem

from memexd.history.asof import Instant
from memexd.memory.archive import shown

AsOfArg = Annotated[
    datetime,
    strawberry.argument(
        description="The instant (UTC unless it says otherwise); from the log's first event "
        "to now. Events logged at or before it count."
    ),
]


async def _instant(info: Info, value: datetime) -> Instant:
    ms = cast(int, epoch_ms(value, "asOf", up=False))  # a non-null DateTime gives a number
    return await info.context.memex.as_of.instant(ms)


async def item_as_of(info: Info, id: ItemId, as_of: AsOfArg) -> MemoryItem | None:
    memex = info.context.memex
    found = await memex.as_of.item(id, await _instant(info, as_of))
    return None if found is None else MemoryItem.of(found)


async def items_as_of(
    info: Info,
    as_of: AsOfArg,
    filter: Annotated[
        MemoryFilter | None,
        strawberry.argument(description="Which items, by what they were then."),
    ] = None,
    limit: Limit = None,
) -> list[MemoryItem]:
    memex = info.context.memex
    at = await _instant(info, as_of)
    found = await memex.as_of.matching(None if filter is None else filter.draft(), limit, at)
    return MemoryItem.all(found)


async def support_set_as_of(
    info: Info, id: ItemId, as_of: AsOfArg, include_archived: IncludeArchived = False
) -> list[MemoryItem]:
    memex = info.context.memex
    found = await memex.as_of.support_set(id, await _instant(info, as_of))
    return MemoryItem.all(shown(found, include_archived))


async def undo_trace(
    info: Info,
    trace_id: Annotated[
        strawberry.ID,
        strawberry.argument(description="The trace to take back (a response's x-trace-id)."),
    ],
    author: Author,
    reason: Reason = None,
    dry_run: Annotated[
        bool | None, strawberry.argument(description="Report the plan; write nothing.")
    ] = None,
) -> UndoReport:
    memex = info.context.memex
    done = await memex.undo.trace(trace_id, author, reason, dry_run, info.context.origin)
    return UndoReport(
        trace_id=strawberry.ID(done.trace_id),
        dry_run=done.dry_run,
        retracted_item_ids=[strawberry.ID(i) for i in done.retracted_item_ids],
        restored_item_ids=[strawberry.ID(i) for i in done.restored_item_ids],
        retracted_edge_ids=[strawberry.ID(i) for i in done.retracted_edge_ids],
        conflicts=done.conflicts,
        events=await Event.returned(info, done.events),
    )
