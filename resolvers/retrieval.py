"""Resolvers for retrieval: scored, budgeted and smart queries, and explanations."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.retrieval import (
    BudgetInput,
    RetrievalExplanation,
    ScoredItem,
    ScoredQueryOptions,
    ScoreWeights,
    SmartRetrievalInput,
    scored_query,
)

__all__ = ["items_by_budget", "scored_items", "smart_retrieve", "smart_retrieve_explained"]

SmartInput = Annotated[SmartRetrievalInput, strawberry.argument(description="The retrieval.")]


async def scored_items(
    info: Info,
    weights: Annotated[ScoreWeights, strawberry.argument(description="How items are scored.")],
    options: Annotated[
        ScoredQueryOptions | None,
        strawberry.argument(description="Filters, threshold, paging and `now`."),
    ] = None,
) -> list[ScoredItem]:
    found = await info.context.memex.retrieval.scored(scored_query(weights, options))
    return ScoredItem.all(found)


async def items_by_budget(
    info: Info,
    input: Annotated[BudgetInput, strawberry.argument(description="The budget and scoring.")],
) -> list[ScoredItem]:
    return ScoredItem.all(await info.context.memex.retrieval.by_budget(input.draft()))


async def smart_retrieve(info: Info, input: SmartInput) -> list[ScoredItem]:
    return ScoredItem.all(await info.context.memex.retrieval.smart(input.draft()))


async def smart_retrieve_explained(
    info: Info,
    input: SmartInput,
    why: Annotated[
        list[strawberry.ID] | None,
        strawberry.argument(description="Ids to explain even if never read (at most 1,000)."),
    ] = None,
) -> RetrievalExplanation:
    found = await info.context.memex.retrieval.explain(input.draft(), why or ())
    return RetrievalExplanation.of(found)
