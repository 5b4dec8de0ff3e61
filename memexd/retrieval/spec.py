"""What a retrieval asks for: drafts as callers give them, checked into specs.

Every field is checked here, before any query runs, so a bad request gets
``BAD_USER_INPUT`` (``INVALID_TIMESTAMP`` for an impossible ``now``) and
nothing else happens. Ranges follow the seed: weights, decay rate and
diversity penalties in [0, 1], a budget of at least 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.graph.cypher import Fragment
from memexd.memory.filters import (
    DECAY_TYPES,
    INTERVAL_MS,
    DecayConfig,
    MemoryFilter,
    conjoin,
    prepare,
    to_cypher,
)
from memexd.memory.meta import path_keys
from memexd.memory.validation import Limits, check_finite, check_limit, check_meta_path

__all__ = [
    "COST_MODELS",
    "POLICIES",
    "BudgetQuery",
    "Cost",
    "CostSpec",
    "Diversity",
    "Penalties",
    "Plan",
    "ScoreSpec",
    "ScoredQuery",
    "Weights",
    "check_plan",
    "check_scored",
    "check_weights",
    "filter_fragment",
    "now_of",
]

COST_MODELS = frozenset({"UNIT", "CONTENT_CHARS", "CONTENT_TOKENS", "META_FIELD"})
POLICIES = frozenset({"FILTER", "SURFACE"})


# ---------------------------------------------------------------- drafts


@dataclass(frozen=True, slots=True)
class Weights:
    """Score weights as a caller gave them (unchecked); absent weights are 0."""

    authority: Any = None
    conviction: Any = None
    importance: Any = None
    decay: DecayConfig | None = None


@dataclass(frozen=True, slots=True)
class Cost:
    """A cost model (UNIT, CONTENT_CHARS, CONTENT_TOKENS, META_FIELD) and,
    for META_FIELD, the meta dot path holding each item's cost."""

    model: Any
    meta_field: Any = None


@dataclass(frozen=True, slots=True)
class Diversity:
    author_penalty: Any = None
    parent_penalty: Any = None
    source_penalty: Any = None


@dataclass(frozen=True, slots=True)
class ScoredQuery:
    weights: Weights
    pre: MemoryFilter | None = None
    post: MemoryFilter | None = None
    min_score: Any = None
    limit: Any = None
    offset: Any = None
    #: epoch ms; ``None``: the clock
    now_ms: Any = None


@dataclass(frozen=True, slots=True)
class BudgetQuery:
    """``itemsByBudget`` (``smart`` false) or ``smartRetrieve``."""

    budget: Any
    cost: Cost
    weights: Weights
    filter: MemoryFilter | None = None
    now_ms: Any = None
    smart: bool = False
    contradictions: Any = None  # None | FILTER | SURFACE
    diversity: Diversity | None = None
    #: weigh candidates by their effective authority (SPEC §14)
    trust: Any = False


# ---------------------------------------------------------------- specs


@dataclass(frozen=True, slots=True)
class ScoreSpec:
    """Checked weights and decay, with the query's ``now``."""

    authority: float
    conviction: float
    importance: float
    decay: str | None
    rate: float
    interval_ms: int
    now_ms: int

    def params(self) -> dict[str, Any]:
        """The parameters of the score fragments (``fragments/score_*``)."""
        weights = {"wa": self.authority, "wc": self.conviction, "wi": self.importance}
        return {**weights, "now": self.now_ms, "rate": self.rate,
                "interval": float(self.interval_ms)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class CostSpec:
    model: str
    #: the meta dot path (META_FIELD only)
    path: str | None = None

    def params(self) -> dict[str, Any]:
        """The parameter of ``fragments/score_cost_meta`` (the flattened meta key)."""
        return {"cost_key": "" if self.path is None else path_keys(self.path)[0]}

    @property
    def floor(self) -> float | None:
        """The least cost any item can have, if it is not 0: UNIT 1, content
        lengths 2 (``{}``, tokens 1); a meta field may be 0."""
        return {"UNIT": 1.0, "CONTENT_CHARS": 2.0, "CONTENT_TOKENS": 1.0}.get(self.model)


@dataclass(frozen=True, slots=True)
class Penalties:
    """Diversity penalties; 0 turns one off (MemEX: a falsy penalty)."""

    author: float
    parent: float
    source: float

    @property
    def active(self) -> bool:
        return bool(self.author or self.parent or self.source)


@dataclass(frozen=True, slots=True)
class Plan:
    """A checked budget or smart retrieval."""

    budget: float
    cost: CostSpec
    score: ScoreSpec
    filter: Fragment
    #: FILTER or SURFACE (smartRetrieve only); ``None``: no policy
    policy: str | None
    penalties: Penalties | None
    #: scored with effective authorities (:mod:`memexd.retrieval.trusted`)
    trust: bool = False


# ---------------------------------------------------------------- checks


def now_of(value: Any) -> int:
    if value is None:
        return time.time_ns() // 1_000_000
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadUserInput("must be a time", field="now")
    return value


def check_weights(w: Weights, now_ms: int) -> ScoreSpec:
    if not isinstance(w, Weights):
        raise BadUserInput("must be score weights", field="weights")
    authority = _unit(w.authority, "weights.authority")
    conviction = _unit(w.conviction, "weights.conviction")
    importance = _unit(w.importance, "weights.importance")
    decay, rate, interval = None, 0.0, INTERVAL_MS["DAY"]
    if w.decay is not None:
        rate = _unit(w.decay.rate, "weights.decay.rate", required=True)
        if w.decay.interval not in INTERVAL_MS:
            raise BadUserInput(f"unknown interval {w.decay.interval!r}", field="weights.decay")
        if w.decay.type not in DECAY_TYPES:
            raise BadUserInput(f"unknown decay type {w.decay.type!r}", field="weights.decay")
        decay, interval = w.decay.type, INTERVAL_MS[w.decay.interval]
    return ScoreSpec(authority, conviction, importance, decay, rate, interval, now_ms)


def check_scored(q: ScoredQuery, limits: Limits) -> tuple[ScoreSpec, Any, int, int]:
    """``(score, min_score, offset, limit)``; the filter comes from :func:`filter_fragment`."""
    score = check_weights(q.weights, now_of(q.now_ms))
    min_score = check_finite(q.min_score, "options.minScore")
    limit = limits.max_page if q.limit is None else check_limit(
        q.limit, "options.limit", maximum=limits.max_page)  # fmt: skip
    offset = 0 if q.offset is None else check_limit(
        q.offset, "options.offset", maximum=limits.max_offset)  # fmt: skip
    return score, min_score, offset, limit


def check_plan(q: BudgetQuery, limits: Limits, graph: Graph) -> Plan:
    score = check_weights(q.weights, now_of(q.now_ms))
    budget = check_finite(q.budget, "budget")
    if budget is None or budget < 0:
        raise BadUserInput("must be a finite number of at least 0", field="budget")
    cost = _cost(q.cost)
    policy = None
    if q.smart and q.contradictions is not None:
        if q.contradictions not in POLICIES:
            raise BadUserInput(f"unknown policy {q.contradictions!r}", field="contradictions")
        policy = q.contradictions
    penalties = _penalties(q.diversity) if q.smart and q.diversity is not None else None
    if not isinstance(q.trust, bool):
        raise BadUserInput("must be true or false", field="trust")
    flt = filter_fragment(graph, limits, score.now_ms, q.filter, None)
    return Plan(budget, cost, score, flt, policy,
                penalties if penalties is not None and penalties.active else None,
                q.trust)  # fmt: skip


def filter_fragment(
    graph: Graph, limits: Limits, now_ms: int, pre: MemoryFilter | None, post: MemoryFilter | None
) -> Fragment:
    """One Cypher predicate for both filters: each is checked on its own (its
    limits, its errors), then they are AND-ed (both are conditions on the
    item, so the order of MemEX's stages does not matter to them)."""
    return to_cypher(conjoin(prepare(pre, limits, now_ms), prepare(post, limits, now_ms)), graph)


def _unit(value: Any, field: str, *, required: bool = False) -> float:
    number = check_finite(value, field)
    if number is None:
        if required:
            raise BadUserInput("is required", field=field)
        return 0.0
    if not 0.0 <= number <= 1.0:
        raise BadUserInput(f"must be within [0, 1], got {number}", field=field)
    return number


def _cost(c: Cost) -> CostSpec:
    if not isinstance(c, Cost) or c.model not in COST_MODELS:
        model = getattr(c, "model", c)
        raise BadUserInput(f"unknown cost model {model!r}", field="cost.model")
    if c.model != "META_FIELD":
        if c.meta_field is not None:
            raise BadUserInput("only for the META_FIELD cost model", field="cost.metaField")
        return CostSpec(c.model)
    if c.meta_field is None:
        raise BadUserInput("META_FIELD needs the meta path of the cost", field="cost.metaField")
    return CostSpec(c.model, check_meta_path(c.meta_field, "cost.metaField"))


def _penalties(d: Diversity) -> Penalties:
    if not isinstance(d, Diversity):
        raise BadUserInput("must be diversity options", field="diversity")
    return Penalties(_unit(d.author_penalty, "diversity.authorPenalty"),
                     _unit(d.parent_penalty, "diversity.parentPenalty"),
                     _unit(d.source_penalty, "diversity.sourcePenalty"))  # fmt: skip
