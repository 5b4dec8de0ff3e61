"""Working memory in GraphQL (memexd.memory.working)."""

from __future__ import annotations

import strawberry
from memexd.schema.items import MemoryItem

from memexd.memory.working import WorkingSet

__all__ = ["WorkingMemory"]


@strawberry.type(description='A session\'s working memory in a scope (README, "Lifecycle"): '
                 "its live, unarchived SESSION items, and how many may stay.")  # fmt: skip
class WorkingMemory:
    scope: str = strawberry.field(description="The scope it holds items of.")
    session_id: str = strawberry.field(description="The session.")
    capacity: int | None = strawberry.field(
        description="How many SESSION items stay unarchived; null: no bound."
    )
    items: list[MemoryItem] = strawberry.field(
        description="What it holds, highest decay score first (the last is archived first; "
        "at most MEMEXD_MAX_LIST)."
    )

    @classmethod
    def of(cls, w: WorkingSet) -> WorkingMemory:
        return cls(scope=w.scope, session_id=w.session_id, capacity=w.capacity,
                   items=MemoryItem.all(w.items))  # fmt: skip
