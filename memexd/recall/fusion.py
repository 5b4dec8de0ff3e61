"""How recall ranks: reciprocal-rank fusion, then the item's own standing.

``relevance`` is the weighted reciprocal-rank fusion of the two sides (a
side weighs ``SIDE_WEIGHTS[side] / (RRF_K + rank)``), scaled so an item
first on every side used scores 1. Similarities and text scores are on
different scales (cosine; BM25 or TF-IDF, per engine), and ranks are not,
which is why ranks are fused. Meaning leads and words refine, 4 to 1, with
a small rank constant so the first places count most: a turn that repeats a
cue's common words must not push out one that answers it, yet an exact rare
word still lifts its item. Chosen on bench/recall_quality.py's rankings
(each side's first 50, fused offline over a grid of k and weights): on every
third LongMemEval-S question, evidence recall@5/@10 went from 0.908/0.941
(k = 60, 3 to 1) to 0.946/0.979, meaning alone 0.948/0.980; on the
turn-by-turn subset, recall@5 from 0.574 to 0.752 (meaning alone 0.736).

The score is ``relevance * (1 - AUTHORITY_WEIGHT + AUTHORITY_WEIGHT *
authority) * (1 - DECAY_WEIGHT + DECAY_WEIGHT * min(1, decay))``, times
``CONTRADICTED`` when a readable live item contradicts it (with ``trust``,
the authority is the effective one, trust along provenance, SPEC §14) and ``SUPERSEDED``
when one supersedes it: disputed and replaced memories sink but stay
findable, and so, at most halved, do old and unused ones (the decay score,
SPEC §11; capped at 1 so that priority and use keep an item from sinking
without lifting it over better matches). Ties go to the smaller id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memexd.integrity.trust import Trusted
from memexd.memory.model import Item
from memexd.memory.records import item_from_row
from memexd.types import JSONObject, Row

__all__ = [
    "AUTHORITY_WEIGHT",
    "CONTRADICTED",
    "DECAY_WEIGHT",
    "RRF_K",
    "SIDE_WEIGHTS",
    "SUPERSEDED",
    "Candidate",
    "Hit",
    "fuse",
]

RRF_K = 10
SIDE_WEIGHTS = {"vector": 0.8, "text": 0.2}
AUTHORITY_WEIGHT = 0.5
DECAY_WEIGHT = 0.5
CONTRADICTED = 0.5
SUPERSEDED = 0.25


@dataclass(frozen=True, slots=True)
class Candidate:
    id: str
    #: cosine similarity (vector side) or the engine's text score
    value: float
    rank: int


@dataclass(frozen=True, slots=True)
class Hit:
    item: Item
    score: float
    vector_score: float | None
    text_score: float | None
    why: JSONObject


def fuse(
    rows: Iterable[Row],
    by_vector: Sequence[Candidate],
    by_text: Sequence[Candidate],
    sides: Iterable[str],
    trusted: Mapping[str, Trusted] | None = None,
) -> list[Hit]:
    """The candidates still readable and live, as hits, best first; with
    ``trusted``, weighed by their effective authority."""
    vectors = {c.id: c for c in by_vector}
    texts = {c.id: c for c in by_text}
    used = sorted(sides)
    best = sum(SIDE_WEIGHTS[side] for side in used) / (RRF_K + 1)
    hits = [_hit(row, vectors, texts, used, best, trusted) for row in rows]
    return sorted(hits, key=lambda h: (-h.score, h.item.id))


def _hit(
    row: Row, vectors: dict[str, Candidate], texts: dict[str, Candidate], used: list[str],
    best: float, trusted: Mapping[str, Trusted] | None,
) -> Hit:  # fmt: skip
    item = item_from_row(row["item"])
    vector, text = vectors.get(item.id), texts.get(item.id)
    parts = {"vector": vector, "text": text}
    relevance = (
        sum(SIDE_WEIGHTS[side] / (RRF_K + c.rank) for side, c in parts.items() if c is not None)
        / best
    )
    trust = None if trusted is None else trusted.get(item.id)
    authority = item.authority if trust is None else trust.value
    standing = 1.0 - AUTHORITY_WEIGHT + AUTHORITY_WEIGHT * authority
    decay = float(row["decay"])
    freshness = 1.0 - DECAY_WEIGHT + DECAY_WEIGHT * min(1.0, decay)
    contradicted = [i for i in row["contradicted_by"] if i is not None]
    superseded = [i for i in row["superseded_by"] if i is not None]
    score = relevance * standing * freshness
    score *= CONTRADICTED if contradicted else 1.0
    score *= SUPERSEDED if superseded else 1.0
    why: JSONObject = {
        "fusion": {
            "method": "weighted reciprocal rank",
            "k": RRF_K,
            "sides": {side: SIDE_WEIGHTS[side] for side in used},
        },
        **{side: _side(parts[side], side) for side in used},
        "relevance": relevance,
        "authority": {
            "value": authority,
            "weight": AUTHORITY_WEIGHT,
            "factor": standing,
            **({} if trust is None else {"own": item.authority, "trustPath": list(trust.path)}),
        },
        "decay": {"value": decay, "weight": DECAY_WEIGHT, "factor": freshness},
        "contradicted": {
            "by": sorted(set(contradicted)),
            "factor": CONTRADICTED if contradicted else 1.0,
        },
        "superseded": {"by": sorted(set(superseded)), "factor": SUPERSEDED if superseded else 1.0},
        "score": score,
    }
    return Hit(item, score, None if vector is None else vector.value,
               None if text is None else text.value, why)  # fmt: skip


def _side(candidate: Candidate | None, side: str) -> dict[str, Any]:
    measure = "similarity" if side == "vector" else "score"
    if candidate is None:
        return {"rank": None, measure: None, "weight": 0.0}
    return {"rank": candidate.rank, measure: candidate.value,
            "weight": SIDE_WEIGHTS[side] / (RRF_K + candidate.rank)}  # fmt: skip
