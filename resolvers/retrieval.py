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

from memexd.retrieval.service import Scored

__all__ = ["items_by_budget", "scored_items", "smart_retrieve", "smart_retrieve_explained"]

SmartInput = Annotated[SmartRetrievalInput, strawberry.argument(description="The retrieval.")]
TrackAccess = Annotated[
    bool | None,
    strawberry.argument(description="Count one access to each item returned (README, "
                        '"Lifecycle").'),
]  # fmt: skip


async def scored_items(
    info: Info,
    weights: Annotated[ScoreWeights, strawberry.argument(description="How items are scored.")],
    options: Annotated[
        ScoredQueryOptions | None,
        strawberry.argument(description="Filters, threshold, paging and `now`."),
    ] = None,
    track_access: TrackAccess = False,
) -> list[ScoredItem]:
    found = await info.context.memex.retrieval.scored(scored_query(weights, options))
    return ScoredItem.all(await _tracked(info, found, track_access))


async def items_by_budget(
    info: Info,
    input: Annotated[BudgetInput, strawberry.argument(description="The budget and scoring.")],
    track_access: TrackAccess = False,
) -> list[ScoredItem]:
    found = await info.context.memex.retrieval.by_budget(input.draft())
    return ScoredItem.all(await _tracked(info, found, track_access))


async def smart_retrieve(
    info: Info, input: SmartInput, track_access: TrackAccess = False
) -> list[ScoredItem]:
    found = await info.context.memex.retrieval.smart(input.draft())
    return ScoredItem.all(await _tracked(info, found, track_access))


async def smart_retrieve_explained(
    info: Info,
    input: SmartInput,
    why: Annotated[
        list[strawberry.ID] | None,
        strawberry.argument(description="Ids to explain even if never read (at most 1,000)."),
    ] = None,
    track_access: TrackAccess = False,
) -> RetrievalExplanation:
    found = await info.context.memex.retrieval.explain(input.draft(), why or ())
    await _tracked(info, found.items, track_access)
    return RetrievalExplanation.of(found)


async def _tracked(info: Info, found: list[Scored], track: bool | None) -> list[Scored]:
    """The results, their access counted when asked (the results show the
    statistics as they were before, as recall's do)."""
    if track:
        await info.context.memex.usage.track([s.item.id for s in found])
    return found
