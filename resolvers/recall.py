"""Resolvers for recall (schema/recall.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.recall import RecallHit, RecallInput

__all__ = ["recall"]


async def recall(
    info: Info, input: Annotated[RecallInput, strawberry.argument(description="The cue.")]
) -> list[RecallHit]:
    return RecallHit.all(await info.context.memex.recall.recall(input.request()))
