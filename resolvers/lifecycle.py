"""Resolvers for the memory lifecycle (schema/lifecycle.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.context import ContextBlock, ContextInput
from memexd.schema.items import MemoryItem
from memexd.schema.lifecycle import PromotionTag

__all__ = ["context", "profile", "record_access"]


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
