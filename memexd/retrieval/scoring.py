"""Scores: MemEX's formula, computed in the database, explained in the service.

The database scores every candidate (``fragments/score_*``: the weighted
sum of the trust scores, times the decay multiplier at the query's ``now``)
and orders by it, so the service never loads the candidates to rank them.
FalkorDB prints doubles with 15 significant digits, which would break ties
and equalities that MemEX sees, so the score travels exactly
(``shapes/exact``) and :func:`memexd.graph.numbers.exact` rebuilds it.

A score's breakdown (each weighted part and the decay multiplier) is worked
out here from the item as read, with the same arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memexd.graph import Graph
from memexd.memory.model import Item
from memexd.retrieval.spec import CostSpec, ScoreSpec

__all__ = ["Breakdown", "breakdown", "decay_multiplier", "slots"]


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Why an item scored what it did."""

    #: weight · authority (and likewise below; an absent score counts 0)
    authority: float
    conviction: float
    importance: float
    #: the decay multiplier (1 without decay, and for items from the future)
    decay: float
    #: (authority + conviction + importance) · decay: the score before
    #: diversity penalties, exactly as the database computed it
    score: float
    #: diversity penalties (smartRetrieve): each kind, and their total as
    #: MemEX sums them; the final score is max(0, score - penalty)
    author_penalty: float = 0.0
    parent_penalty: float = 0.0
    source_penalty: float = 0.0
    penalty: float = 0.0


def decay_multiplier(spec: ScoreSpec, created_at: int) -> float:
    """MemEX's ``compute_decay_multiplier`` at the query's ``now``."""
    if spec.decay is None or created_at >= spec.now_ms:
        return 1.0
    intervals = (spec.now_ms - created_at) / spec.interval_ms
    if spec.decay == "EXPONENTIAL":
        return float((1.0 - spec.rate) ** intervals)
    if spec.decay == "LINEAR":
        return max(0.0, 1.0 - spec.rate * intervals)
    return float((1.0 - spec.rate) ** math.floor(intervals))


def breakdown(
    spec: ScoreSpec, item: Item, score: float, *, authority: float | None = None
) -> Breakdown:
    """The parts of ``score`` for ``item``; ``authority``: the one it was
    scored with, when not its own (its effective authority, weighed by trust)."""
    return Breakdown(
        authority=spec.authority * (item.authority if authority is None else authority),
        conviction=spec.conviction * (item.conviction or 0.0),
        importance=spec.importance * (item.importance or 0.0),
        decay=decay_multiplier(spec, item.created_at),
        score=score,
    )


def slots(
    graph: Graph, score: ScoreSpec, cost: CostSpec | None = None, *, marks: bool = False
) -> dict[str, str]:
    """The slots of a retrieval statement: trusted fragment texts, picked by
    the specs (whose parameters they use). The score fragment is chosen per
    decay type, and the cost floor per model (UNIT: the statement's ``1``):
    a CASE on either would be evaluated for every candidate."""

    def text(name: str, slot: str = "value") -> str:
        return graph.queries.get(f"fragments/{name}").slot(slot)

    out = {"score": text(f"score_{(score.decay or 'plain').lower()}")}
    if cost is not None and cost.model != "UNIT":
        out["cost"] = text(_COSTS[cost.model])
    if marks:
        out["marks"] = text("score_marks", "clauses")
    return out


_COSTS = {"CONTENT_CHARS": "score_cost_chars", "CONTENT_TOKENS": "score_cost_tokens",
          "META_FIELD": "score_cost_meta"}  # fmt: skip
