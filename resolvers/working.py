"""Resolvers for working memory (schema/working.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.working import WorkingMemory

__all__ = ["set_working_memory", "working_memory"]

_SCOPE = strawberry.argument(description="The scope (exactly) its items are in.")
_SESSION = strawberry.argument(description="The session id.")


async def working_memory(
    info: Info, scope: Annotated[str, _SCOPE], session_id: Annotated[str, _SESSION]
) -> WorkingMemory:
    memex = info.context.memex
    return WorkingMemory.of(await memex.items.working.get(scope, session_id, memex.item_reads))


async def set_working_memory(
    info: Info,
    scope: Annotated[str, _SCOPE],
    session_id: Annotated[str, _SESSION],
    capacity: Annotated[
        int | None,
        strawberry.argument(description="1 to 1,000; null removes the bound."),
    ],
) -> WorkingMemory:
    memex = info.context.memex
    await memex.items.working.set(scope, session_id, capacity)
    return WorkingMemory.of(await memex.items.working.get(scope, session_id, memex.item_reads))
