"""Retrieval in GraphQL: scored, budgeted and smart queries, and their explanations.

Inputs turn into the drafts of :mod:`memexd.retrieval.spec` (checked there);
``ScoredItem.breakdown`` and ``RetrievalExplanation`` go beyond MemEX: why an
item scored what it did, and why a candidate was left out.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum
from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.filters import DecayConfig, MemoryFilter
from memexd.schema.items import MemoryItem

from memexd.errors import InvalidTimestamp
from memexd.memory import filters as domain
from memexd.retrieval import spec
from memexd.retrieval.explain import Exclusion as ExclusionRecord
from memexd.retrieval.scoring import Breakdown, breakdown
from memexd.retrieval.service import Explanation, Scored
from memexd.retrieval.spec import ScoreSpec

__all__ = [
    "BudgetInput",
    "ContradictionPolicy",
    "CostInput",
    "CostModel",
    "DiversityOptions",
    "Exclusion",
    "ExclusionReason",
    "RetrievalExplanation",
    "ScoreBreakdown",
    "ScoreWeights",
    "ScoredItem",
    "ScoredQueryOptions",
    "SmartRetrievalInput",
    "scored_query",
]


@strawberry.enum(description="What an item costs against a budget.")
class CostModel(Enum):
    UNIT = strawberry.enum_value("UNIT", description="Every item costs 1.")
    CONTENT_CHARS = strawberry.enum_value(
        "CONTENT_CHARS",
        description="The length of the content as JSON.stringify writes it (UTF-16 units).",
    )
    CONTENT_TOKENS = strawberry.enum_value(
        "CONTENT_TOKENS", description="That length / 4, rounded up."
    )
    META_FIELD = strawberry.enum_value(
        "META_FIELD", description="The number at the meta path `metaField` (>= 0)."
    )


@strawberry.enum(description="What smartRetrieve does with contradicting candidates.")
class ContradictionPolicy(Enum):
    FILTER = strawberry.enum_value(
        "FILTER",
        description="Drop superseded items and the lower-scoring side of each contradiction.",
    )
    SURFACE = strawberry.enum_value(
        "SURFACE", description="Drop superseded items; keep both sides, listed in contradictedBy."
    )


@strawberry.enum(description="Why smartRetrieve left a candidate out.")
class ExclusionReason(Enum):
    SUPERSEDED = strawberry.enum_value(
        "SUPERSEDED", description="An active SUPERSEDES edge points at it (`by`)."
    )
    CONTRADICTION = strawberry.enum_value(
        "CONTRADICTION", description="It lost a contradiction (FILTER) to `by`."
    )
    DIVERSITY_PENALTY = strawberry.enum_value(
        "DIVERSITY_PENALTY",
        description="Its diversity penalty moved it behind items that used the budget; "
        "at its place before penalties it would have fit.",
    )
    OVER_BUDGET = strawberry.enum_value(
        "OVER_BUDGET", description="It cost more than the budget left at its turn."
    )
    BELOW_CUTOFF = strawberry.enum_value(
        "BELOW_CUTOFF",
        description="It ranks after the last candidate read, where nothing left could fit.",
    )
    NOT_A_CANDIDATE = strawberry.enum_value(
        "NOT_A_CANDIDATE",
        description="Missing, retracted, unreadable or not matched by the filter.",
    )


# ---------------------------------------------------------------- inputs


@strawberry.input(description="Score = (authority·w + conviction·w + importance·w) · decay.")
class ScoreWeights:
    authority: float | None = strawberry.field(default=None, description="In [0, 1]; absent: 0.")
    conviction: float | None = strawberry.field(default=None, description="In [0, 1]; absent: 0.")
    importance: float | None = strawberry.field(default=None, description="In [0, 1]; absent: 0.")
    decay: DecayConfig | None = strawberry.field(
        default=None, description="Decay by age at `now` (future items do not decay)."
    )

    def draft(self) -> spec.Weights:
        d = self.decay
        decay = None if d is None else domain.DecayConfig(d.rate, d.interval.value, d.type.value)
        return spec.Weights(self.authority, self.conviction, self.importance, decay)


@strawberry.input(
    description="pre-filter → score → minScore → post-filter → offset/limit; best first, "
    "ties by id."
)
class ScoredQueryOptions:
    pre: MemoryFilter | None = strawberry.field(default=None, description="Filter before scoring.")
    post: MemoryFilter | None = strawberry.field(default=None, description="Filter after scoring.")
    min_score: float | None = strawberry.field(default=None, description="Drop scores below it.")
    limit: int | None = strawberry.field(
        default=None, description="At most this many (default and maximum: MEMEXD_MAX_PAGE)."
    )
    offset: int | None = strawberry.field(
        default=None, description="Skip this many (at most MEMEXD_MAX_OFFSET)."
    )
    now: datetime | None = strawberry.field(
        default=None, description="The time decay is computed at (naive: UTC); default: now."
    )


@strawberry.input(description="How items are costed against the budget.")
class CostInput:
    model: CostModel = strawberry.field(description="The cost model.")
    meta_field: str | None = strawberry.field(
        default=None, description="META_FIELD only: the meta dot path holding each item's cost."
    )

    def draft(self) -> spec.Cost:
        return spec.Cost(self.model.value, self.meta_field)


@strawberry.input(description="Per-duplicate penalties (0..1) on scores, in score order.")
class DiversityOptions:
    author_penalty: float | None = strawberry.field(
        default=None, description="Per earlier candidate by the same author."
    )
    parent_penalty: float | None = strawberry.field(
        default=None, description="Per earlier candidate listing the same parent."
    )
    source_penalty: float | None = strawberry.field(
        default=None, description="Per earlier candidate of the same source kind."
    )

    def draft(self) -> spec.Diversity:
        return spec.Diversity(self.author_penalty, self.parent_penalty, self.source_penalty)


_BUDGET = "Total budget (>= 0); an item is taken when its cost fits what is left."
_NOW = "The time decay is computed at (naive: UTC); default: now."
_TRUST = ("Score each candidate with its effective authority (trust along provenance, SPEC "
          "§14) instead of its own: a conclusion from weak support sinks. RESOURCE_EXHAUSTED "
          "when the candidates' provenance passes the traversal limits.")  # fmt: skip


@strawberry.input(description="Greedy packing of the best-scoring candidates into a budget.")
class BudgetInput:
    budget: float = strawberry.field(description=_BUDGET)
    cost: CostInput = strawberry.field(description="What each item costs.")
    weights: ScoreWeights = strawberry.field(description="How candidates are scored.")
    filter: MemoryFilter | None = strawberry.field(default=None, description="The candidates.")
    now: datetime | None = strawberry.field(default=None, description=_NOW)
    trust: bool | None = strawberry.field(default=None, description=_TRUST)

    def draft(self) -> spec.BudgetQuery:
        return spec.BudgetQuery(self.budget, self.cost.draft(), self.weights.draft(),
                                _filter(self.filter), _ms(self.now),
                                trust=bool(self.trust))  # fmt: skip


@strawberry.input(description="filter → score → contradiction policy → diversity → budget packing.")
class SmartRetrievalInput:
    budget: float = strawberry.field(description=_BUDGET)
    cost: CostInput = strawberry.field(description="What each item costs.")
    weights: ScoreWeights = strawberry.field(description="How candidates are scored.")
    filter: MemoryFilter | None = strawberry.field(default=None, description="The candidates.")
    contradictions: ContradictionPolicy | None = strawberry.field(
        default=None, description="Contradiction policy; none: superseded items stay too."
    )
    diversity: DiversityOptions | None = strawberry.field(
        default=None, description="Penalties for repeated authors, parents, source kinds."
    )
    now: datetime | None = strawberry.field(default=None, description=_NOW)
    trust: bool | None = strawberry.field(default=None, description=_TRUST)

    def draft(self) -> spec.BudgetQuery:
        policy = None if self.contradictions is None else self.contradictions.value
        diversity = None if self.diversity is None else self.diversity.draft()
        return spec.BudgetQuery(self.budget, self.cost.draft(), self.weights.draft(),
                                _filter(self.filter), _ms(self.now), smart=True,
                                contradictions=policy, diversity=diversity,
                                trust=bool(self.trust))  # fmt: skip


def scored_query(weights: ScoreWeights, options: ScoredQueryOptions | None) -> spec.ScoredQuery:
    o = options or ScoredQueryOptions()
    return spec.ScoredQuery(weights.draft(), _filter(o.pre), _filter(o.post), o.min_score,
                            o.limit, o.offset, _ms(o.now))  # fmt: skip


def _filter(f: MemoryFilter | None) -> domain.MemoryFilter | None:
    return None if f is None else f.draft()


def _ms(value: datetime | None) -> int | None:
    """Epoch milliseconds; naive datetimes are taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return int(value.timestamp() * 1000)
    except (OverflowError, OSError, ValueError) as exc:
        raise InvalidTimestamp("now: timestamp out of range") from exc


# ---------------------------------------------------------------- results


@strawberry.type(
    description="Why an item scored what it did: score = max(0, (authority + conviction "
    "+ importance) · decay - penalty)."
)
class ScoreBreakdown:
    authority: float = strawberry.field(
        description="Weight · authority (its effective authority when weighed by trust)."
    )
    conviction: float = strawberry.field(description="Weight · conviction (absent: 0).")
    importance: float = strawberry.field(description="Weight · importance (absent: 0).")
    decay: float = strawberry.field(description="The decay multiplier (1 without decay).")
    score: float = strawberry.field(description="The score before diversity penalties.")
    author_penalty: float = strawberry.field(description="Penalty for earlier same-author items.")
    parent_penalty: float = strawberry.field(description="Penalty for earlier shared parents.")
    source_penalty: float = strawberry.field(description="Penalty for earlier same-source items.")
    penalty: float = strawberry.field(description="The total diversity penalty subtracted.")

    @classmethod
    def of(cls, b: Breakdown) -> ScoreBreakdown:
        return cls(authority=b.authority, conviction=b.conviction, importance=b.importance,
                   decay=b.decay, score=b.score, author_penalty=b.author_penalty,
                   parent_penalty=b.parent_penalty, source_penalty=b.source_penalty,
                   penalty=b.penalty)  # fmt: skip


@strawberry.type(description="An item with its retrieval score.")
class ScoredItem:
    item: MemoryItem = strawberry.field(description="The item.")
    score: float = strawberry.field(description="Its score (after diversity penalties).")
    contradicted_by: list[MemoryItem] | None = strawberry.field(
        description="SURFACE: the candidates it contradicts (null when none)."
    )
    parts: strawberry.Private[Breakdown]

    @strawberry.field(description="How the score was made: weighted parts, decay, penalties.")
    def breakdown(self) -> ScoreBreakdown:
        return ScoreBreakdown.of(self.parts)

    @classmethod
    def of(cls, s: Scored) -> ScoredItem:
        others = None if s.contradicted_by is None else MemoryItem.all(s.contradicted_by)
        return cls(item=MemoryItem.of(s.item), score=s.score, contradicted_by=others,
                   parts=s.breakdown)  # fmt: skip

    @classmethod
    def all(cls, found: list[Scored]) -> list[ScoredItem]:
        return [cls.of(s) for s in found]


@strawberry.type(description="A candidate smartRetrieve left out, and why.")
class Exclusion:
    id: strawberry.ID = strawberry.field(description="The item's id.")
    reason: ExclusionReason = strawberry.field(description="The first stage that dropped it.")
    message: str = strawberry.field(description="The reason in words, with the numbers.")
    score: float | None = strawberry.field(description="Its score before penalties.")
    adjusted_score: float | None = strawberry.field(description="Its score after penalties.")
    cost: float | None = strawberry.field(description="Its cost (candidates that got that far).")
    remaining_budget: float | None = strawberry.field(description="The budget left at its turn.")
    record: strawberry.Private[ExclusionRecord]
    spec: strawberry.Private[ScoreSpec]

    @strawberry.field(description="The item (null when the caller cannot read it).")
    async def item(self, info: Info) -> MemoryItem | None:
        found = await info.context.loaders.items.load(self.record.id)
        return None if found is None else MemoryItem.of(found)

    @strawberry.field(description="What superseded it, or what it lost a contradiction to.")
    async def by(self, info: Info) -> list[MemoryItem]:
        return await MemoryItem.listed(info, self.record.by)

    @strawberry.field(description="Its score's parts (null when it was not scored).")
    async def breakdown(self, info: Info) -> ScoreBreakdown | None:
        found = await info.context.loaders.items.load(self.record.id)
        if found is None or self.record.score is None:
            return None
        parts = breakdown(self.spec, found, self.record.score)
        p = self.record.penalty
        return ScoreBreakdown.of(parts if p is None else p.on(parts))

    @classmethod
    def of(cls, x: ExclusionRecord, score_spec: ScoreSpec) -> Exclusion:
        return cls(id=strawberry.ID(x.id), reason=ExclusionReason[x.reason], message=x.message,
                   score=x.score, adjusted_score=x.adjusted, cost=x.cost,
                   remaining_budget=x.remaining, record=x, spec=score_spec)  # fmt: skip


@strawberry.type(description="smartRetrieve's answer, with what it left out and why.")
class RetrievalExplanation:
    items: list[ScoredItem] = strawberry.field(description="What smartRetrieve returns.")
    excluded_count: int = strawberry.field(description="How many candidates read were left out.")
    why: list[Exclusion] = strawberry.field(
        description="For each id asked about that is not in `items`, in the order asked."
    )
    budget: float = strawberry.field(description="The budget.")
    remaining_budget: float = strawberry.field(description="What the items left of it.")
    examined: int = strawberry.field(description="Candidates read from the database.")
    complete: bool = strawberry.field(
        description="Every candidate was read (else the rest could not change the answer)."
    )
    explanation: strawberry.Private[Explanation]

    @strawberry.field(description="Candidates read and left out, best first (before penalties).")
    def excluded(
        self,
        limit: Annotated[
            int | None, strawberry.argument(description="At most this many (default 100).")
        ] = 100,
    ) -> list[Exclusion]:
        count = max(0, 100 if limit is None else limit)
        spec_ = self.explanation.spec
        return [Exclusion.of(x, spec_) for x in self.explanation.excluded[:count]]

    @classmethod
    def of(cls, e: Explanation) -> RetrievalExplanation:
        return cls(items=ScoredItem.all(e.items), excluded_count=len(e.excluded),
                   why=[Exclusion.of(x, e.spec) for x in e.why], budget=e.budget,
                   remaining_budget=e.remaining, examined=e.examined, complete=e.complete,
                   explanation=e)  # fmt: skip
