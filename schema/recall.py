"""Recall in GraphQL: ``recall(input)`` and its hits (memexd.recall)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from memexd.schema.filters import MemoryFilter, epoch_ms
from memexd.schema.items import MemoryItem
from strawberry.scalars import JSON

from memexd.recall import service
from memexd.recall.fusion import Hit

__all__ = ["ItemEmbeddingInput", "RecallHit", "RecallInput", "RecallMode"]


@strawberry.enum(description="Which sides of recall to use.")
class RecallMode(Enum):
    HYBRID = strawberry.enum_value("HYBRID", description="Meaning and words, fused (the default).")
    VECTOR = strawberry.enum_value("VECTOR", description="Meaning only: the vector index.")
    TEXT = strawberry.enum_value("TEXT", description="Words only: the full-text index.")


@strawberry.input(description="What to recall, and among which items.")
class RecallInput:
    cue: str = strawberry.field(description="Free text: a question, a topic, a sentence "
                                "(at most 2,000 characters).")  # fmt: skip
    filter: MemoryFilter | None = strawberry.field(default=None, description="Which items.")
    limit: int | None = strawberry.field(default=None, description="Hits, 10 unless given, "
                                         "at most 100.")  # fmt: skip
    mode: RecallMode | None = strawberry.field(default=None, description="HYBRID unless given.")
    track_access: bool | None = strawberry.field(
        default=None, description="Count the hits as accessed (their `access`)."
    )
    now: datetime | None = strawberry.field(
        default=None, description="The instant the decay score is taken at (the server's clock)."
    )
    vector: list[float] | None = strawberry.field(
        default=None, description="The cue's embedding, if the caller has its own: 384 "
        "finite numbers (the server's dimension); the cue's words still feed the text side.",
    )  # fmt: skip
    trust: bool | None = strawberry.field(
        default=None, description="Weigh each hit by its effective authority (trust along "
        "provenance, SPEC §14) instead of its own: a conclusion from weak support sinks. "
        "RESOURCE_EXHAUSTED when the hits' provenance passes the traversal limits.",
    )  # fmt: skip

    min_score: float | None = strawberry.field(
        default=None, description="Leave out hits whose `relevance` is below this (0 to 1; "
        "0 keeps every candidate). Unless given and meaning is used (HYBRID, VECTOR), the "
        "server's floor judges the cue by its best hit: below it, nothing held is about "
        "the cue and there is no hit; words alone answer every item holding the words.",
    )  # fmt: skip

    def request(self) -> service.RecallRequest:
        mode = service.RecallMode((self.mode or RecallMode.HYBRID).value)
        flt = None if self.filter is None else self.filter.draft()
        return service.RecallRequest(self.cue, flt, self.limit, mode, self.vector,
                                     epoch_ms(self.now, "now"), bool(self.trust),
                                     self.min_score)  # fmt: skip


@strawberry.type(description="One recalled item and why it ranks where it does.")
class RecallHit:
    item: MemoryItem = strawberry.field(description="The item.")
    score: float = strawberry.field(
        description="The fused score the hits are sorted by: `relevance` weighed by the "
        "item's authority and decay, sunk when disputed or superseded."
    )
    relevance: float = strawberry.field(
        description="How well the item matches the cue, 0 to 1, the same scale for every "
        "cue and scope (meaning and words fused, see `why`); `minScore` compares with it."
    )
    vector_score: float | None = strawberry.field(
        description="Cosine similarity of the cue and the item (null: not among the "
        "vector side's candidates)."
    )
    text_score: float | None = strawberry.field(
        description="The share of the cue's word weight the item holds, 0 to 1: its BM25 "
        "score over the highest the cue could reach (null: not among the text side's "
        "candidates)."
    )
    why: JSON = strawberry.field(description="Every component and weight behind score.")

    @classmethod
    def all(cls, hits: list[Hit]) -> list[RecallHit]:
        return [cls(item=MemoryItem.of(h.item), score=h.score, relevance=h.relevance,
                    vector_score=h.vector_score,
                    text_score=h.text_score, why=JSON(h.why)) for h in hits]  # fmt: skip


@strawberry.input(description="A caller's own vector for one item.")
class ItemEmbeddingInput:
    id: strawberry.ID = strawberry.field(description="A live item the caller may write.")
    vector: list[float] = strawberry.field(
        description="384 finite numbers, not all zero (stored at unit length)."
    )
