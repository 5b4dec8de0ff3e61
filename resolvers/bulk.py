"""Resolvers for the bulk transforms: applyMany, bulkAdjustScores, decayImportance."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.resolvers.args import Author, Reason
from memexd.schema.bulk import BulkOptions, ItemTransformInput, ScoreAdjustment
from memexd.schema.common import Info
from memexd.schema.events import Event, EventsResult
from memexd.schema.filters import MemoryFilter

from memexd.memory.bulk import BulkCommands

__all__ = ["apply_many", "bulk_adjust_scores", "decay_importance"]

Filter = Annotated[
    MemoryFilter | None,
    strawberry.argument(description="Which items (among those the caller can read)."),
]


def _bulk(info: Info) -> BulkCommands:
    memex = info.context.memex
    return BulkCommands(memex.graph, memex.limits)


async def apply_many(
    info: Info,
    filter: Filter = None,
    *,
    transform: Annotated[
        ItemTransformInput, strawberry.argument(description="What to do to each item.")
    ],
    author: Author,
    reason: Reason = None,
    options: Annotated[
        BulkOptions | None,
        strawberry.argument(description="Sort, offset and limit the matched items first."),
    ] = None,
) -> EventsResult:
    events = await _bulk(info).apply_many(
        None if filter is None else filter.draft(),
        transform.draft(),
        author,
        reason,
        None if options is None else options.draft(),
        info.context.origin,
    )
    return EventsResult(events=await Event.returned(info, events))


async def bulk_adjust_scores(
    info: Info,
    filter: Filter = None,
    *,
    delta: Annotated[
        ScoreAdjustment,
        strawberry.argument(description="Deltas, each result clamped to [0, 1]."),
    ],
    author: Author,
    reason: Reason = None,
) -> EventsResult:
    events = await _bulk(info).adjust_scores(
        None if filter is None else filter.draft(), delta.draft(), author, reason,
        info.context.origin,
    )  # fmt: skip
    return EventsResult(events=await Event.returned(info, events))


async def decay_importance(
    info: Info,
    older_than_ms: Annotated[
        float, strawberry.argument(description="Items created more than this long ago (ms).")
    ],
    factor: Annotated[
        float, strawberry.argument(description="Multiplies importance (clamped to [0, 1]).")
    ],
    author: Author,
    reason: Reason = None,
    filter: Annotated[
        MemoryFilter | None,
        strawberry.argument(description="Only these items (memexd's addition to MemEX)."),
    ] = None,
) -> EventsResult:
    events = await _bulk(info).decay_importance(
        older_than_ms, factor, author, reason, info.context.origin,
        None if filter is None else filter.draft(),
    )  # fmt: skip
    return EventsResult(events=await Event.returned(info, events))
