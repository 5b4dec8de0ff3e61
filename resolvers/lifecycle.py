"""Resolvers for the memory lifecycle (schema/lifecycle.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.items import MemoryItem

__all__ = ["record_access"]


async def record_access(
    info: Info,
    ids: Annotated[
        list[strawberry.ID],
        strawberry.argument(description="Live items the caller may read (at most 1,000)."),
    ],
) -> list[MemoryItem]:
    return MemoryItem.all(await info.context.memex.usage.record(ids))
