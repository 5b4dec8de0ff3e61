"""Resolvers for recall (schema/recall.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.recall import ItemEmbeddingInput, RecallHit, RecallInput

__all__ = ["recall", "set_item_embeddings"]


async def recall(
    info: Info, input: Annotated[RecallInput, strawberry.argument(description="The cue.")]
) -> list[RecallHit]:
    hits = await info.context.memex.recall.recall(input.request())
    if input.track_access:
        await info.context.memex.usage.track([h.item.id for h in hits])
    return RecallHit.all(hits)


async def set_item_embeddings(
    info: Info,
    input: Annotated[
        list[ItemEmbeddingInput], strawberry.argument(description="Items and their vectors.")
    ],
) -> list[strawberry.ID]:
    pairs = [(entry.id, entry.vector) for entry in input]
    return [strawberry.ID(i) for i in await info.context.memex.own_vectors.store(pairs)]
