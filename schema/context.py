"""Context blocks in GraphQL: ``context(input)`` and ``profile`` (memexd.memory.context)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from memexd.schema.filters import epoch_ms
from memexd.schema.items import MemoryItem

from memexd.memory import context as domain

__all__ = ["ContextBlock", "ContextInput", "ContextSection"]


@strawberry.input(description="What an agent is about to work on: its context block is built "
                  "for it (README, \"Lifecycle\").")  # fmt: skip
class ContextInput:
    scope_prefix: str | None = strawberry.field(default=None, description="Items under it only.")
    session_id: str | None = strawberry.field(
        default=None, description="Its session: its items go in Task context."
    )
    task_id: strawberry.ID | None = strawberry.field(
        default=None, description="Its task: its items go in Task context."
    )
    intent_id: strawberry.ID | None = strawberry.field(
        default=None, description="Its intent: its items go in Task context."
    )
    cue: str | None = strawberry.field(
        default=None, description="Order each section by recall of this cue instead."
    )
    max_bytes: int | None = strawberry.field(
        default=None, description="At most this many UTF-8 bytes (4,096 unless given; 256 to "
        "65,536).",
    )  # fmt: skip
    sort_by_decay: bool | None = strawberry.field(
        default=None, description="Order by decay score instead of newest first."
    )
    track_access: bool | None = strawberry.field(
        default=None, description="Count the items in the block as accessed."
    )
    half_life_ms: float | None = strawberry.field(
        default=None, description="The decay score's half-life (the server's unless given)."
    )
    now: datetime | None = strawberry.field(
        default=None, description="The instant the decay score is taken at (the server's clock)."
    )

    def request(self) -> domain.ContextRequest:
        return domain.ContextRequest(
            self.scope_prefix, self.session_id, self.task_id, self.intent_id, self.cue,
            self.max_bytes, self.sort_by_decay, self.track_access, self.half_life_ms,
            epoch_ms(self.now, "now"),
        )  # fmt: skip


@strawberry.type(description="One section of a context block.")
class ContextSection:
    title: str = strawberry.field(description="Project profile, Summaries, Task context or "
                                  "Discoveries.")  # fmt: skip
    items: list[MemoryItem] = strawberry.field(description="Its items, in the block's order.")


@strawberry.type(description="A context block: deterministic text for an agent to read.")
class ContextBlock:
    text: str = strawberry.field(description="The block, at most maxBytes UTF-8 bytes.")
    bytes: int = strawberry.field(description="Its length in UTF-8 bytes.")
    sections: list[ContextSection] = strawberry.field(
        description="Every section, in order, empty ones too."
    )
    items: list[MemoryItem] = strawberry.field(description="Every item in the block, in order.")
    access_tracked: int = strawberry.field(description="Items counted as accessed.")

    @classmethod
    def of(cls, block: domain.Block) -> ContextBlock:
        return cls(
            text=block.text, bytes=block.bytes,
            sections=[ContextSection(title=s.title, items=MemoryItem.all(s.items))
                      for s in block.sections],
            items=MemoryItem.all(block.items), access_tracked=block.accessed,
        )  # fmt: skip
