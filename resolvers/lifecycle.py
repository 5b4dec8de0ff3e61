"""Resolvers for the memory lifecycle (schema/lifecycle.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.archive import ArchiveInput, ArchiveReport
from memexd.schema.common import Info
from memexd.schema.context import ContextBlock, ContextInput
from memexd.schema.items import MemoryItem
from memexd.schema.lifecycle import PromotionTag
from memexd.schema.promotion import PromotionResult

__all__ = [
    "archive_by_decay",
    "context",
    "profile",
    "promote_from_task",
    "promote_item",
    "record_access",
    "unarchive_items",
]


async def record_access(
    info: Info,
    ids: Annotated[
        list[strawberry.ID],
        strawberry.argument(description="Live items the caller may read (at most 1,000)."),
    ],
) -> list[MemoryItem]:
    return MemoryItem.all(await info.context.memex.usage.record(ids))


async def context(
    info: Info,
    input: Annotated[ContextInput, strawberry.argument(description="What the block is for.")],
) -> ContextBlock:
    return ContextBlock.of(await info.context.memex.contexts.block(input.request()))


async def profile(
    info: Info,
    scope_prefix: Annotated[
        str | None, strawberry.argument(description="Items under it only.")
    ] = None,
    tag: Annotated[
        PromotionTag | None, strawberry.argument(description="Items with this tag only.")
    ] = None,
    limit: Annotated[
        int | None, strawberry.argument(description="The newest this many (20; at most 100).")
    ] = None,
) -> ContextBlock:
    tagged = None if tag is None else str(tag.value)
    return ContextBlock.of(await info.context.memex.contexts.profile(scope_prefix, tagged, limit))


async def archive_by_decay(
    info: Info,
    input: Annotated[ArchiveInput, strawberry.argument(description="Which items, what threshold.")],
) -> ArchiveReport:
    report = await info.context.memex.archival.by_decay(input.request(), info.context.origin)
    return ArchiveReport.of(report)


async def unarchive_items(
    info: Info,
    ids: Annotated[
        list[strawberry.ID],
        strawberry.argument(description="Items to put back (at most 1,000)."),
    ],
    author: Annotated[str, strawberry.argument(description="Who puts them back.")],
) -> list[MemoryItem]:
    items = await info.context.memex.archival.unarchive(ids, author, info.context.origin)
    return MemoryItem.all(items)


_TAG = strawberry.argument(description="The taxonomy tag the promoted item gets.")
_AUTHOR = strawberry.argument(description="Who promotes (the new item's author).")
_DRY = strawberry.argument(description="Report what would be promoted; write nothing.")


async def promote_item(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="A live, unarchived item.")],
    tag: Annotated[PromotionTag, _TAG],
    author: Annotated[str, _AUTHOR],
    dry_run: Annotated[bool | None, _DRY] = None,
) -> PromotionResult:
    done = await info.context.memex.promotion.item(id, tag, author, dry_run, info.context.origin)
    return PromotionResult.of(done)


async def promote_from_task(
    info: Info,
    task_id: Annotated[strawberry.ID, strawberry.argument(description="The task.")],
    tag: Annotated[PromotionTag, _TAG],
    author: Annotated[str, _AUTHOR],
    dry_run: Annotated[bool | None, _DRY] = None,
) -> list[PromotionResult]:
    promotion = info.context.memex.promotion
    done = await promotion.from_task(task_id, tag, author, dry_run, info.context.origin)
    return [PromotionResult.of(p) for p in done]
