"""How recall ranks: meaning and words, each on a scale of its own, fused.

Each side gives a value on a fixed scale, the same for every cue and
scope: meaning, the cosine similarity of cue and item mapped linearly from
``[COSINE_LOW, COSINE_HIGH]`` onto [0, 1] (the model's similarities sit in a
narrow band: unrelated texts score 0.65 to 0.75, a paraphrase 0.80 to 0.85);
words, the share of the cue's BM25 weight the item holds
(:mod:`memexd.recall.words`). ``relevance`` joins them as a probabilistic
or, ``1 - (1 - meaning) * (1 - words)``: either side alone counts in full
(a paraphrase with no word in common is as relevant as its meaning says),
and an item both sides find ranks above one either finds as well. It says
how well an item matches in absolute terms, so a floor (``FLOOR``, or the
caller's ``minScore``) can tell a hit from the nearest noise. The scale and
the floor were chosen on LongMemEval-S and confirmed on LoCoMo, held out
(bench/recall_fusion.py; figures in docs/recall.md).

The score is ``relevance * (1 - AUTHORITY_WEIGHT + AUTHORITY_WEIGHT *
authority) * (1 - DECAY_WEIGHT + DECAY_WEIGHT * min(1, decay))``, times
``CONTRADICTED`` when a readable live item contradicts it (with ``trust``,
the authority is the effective one, trust along provenance) and ``SUPERSEDED``
when one supersedes it: disputed and replaced memories sink but stay
findable, and so, at most halved, do old and unused ones (the decay score,
capped at 1 so that priority and use keep an item from sinking without
lifting it over better matches). Ties go to the smaller id.
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
    "COSINE_HIGH",
    "COSINE_LOW",
    "DECAY_WEIGHT",
    "FLOOR",
    "SUPERSEDED",
    "Candidate",
    "Hit",
    "fuse",
    "meaning",
    "relevance",
]

COSINE_LOW = 0.70
COSINE_HIGH = 0.95
#: The relevance a cue's best hit must reach unless the caller says otherwise:
#: a paraphrase (cosine 0.80) or 40% of the cue's word weight, or the two in part.
FLOOR = 0.4
AUTHORITY_WEIGHT = 0.5
DECAY_WEIGHT = 0.5
CONTRADICTED = 0.5
SUPERSEDED = 0.25


@dataclass(frozen=True, slots=True)
class Candidate:
    id: str
    #: cosine similarity (vector side) or the share of the cue's word weight held
    value: float
    rank: int


@dataclass(frozen=True, slots=True)
class Hit:
    item: Item
    score: float
    relevance: float
    vector_score: float | None
    text_score: float | None
    why: JSONObject


def meaning(similarity: float) -> float:
    """A cosine similarity on recall's scale: 0 at COSINE_LOW, 1 at COSINE_HIGH."""
    return min(1.0, max(0.0, (similarity - COSINE_LOW) / (COSINE_HIGH - COSINE_LOW)))


def relevance(vector: float | None, text: float | None, sides: Iterable[str]) -> float:
    """How well an item matches: its sides' values (a cosine similarity, a
    share of word weight; None when not among a side's candidates) joined
    by a probabilistic or."""
    parts = {"vector": 0.0 if vector is None else meaning(vector),
             "text": 0.0 if text is None else min(1.0, max(0.0, text))}  # fmt: skip
    missing = 1.0
    for side in sides:
        missing *= 1.0 - parts[side]
    return 1.0 - missing


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
    hits = [_hit(row, vectors, texts, used, trusted) for row in rows]
    return sorted(hits, key=lambda h: (-h.score, h.item.id))


def _hit(
    row: Row, vectors: dict[str, Candidate], texts: dict[str, Candidate], used: list[str],
    trusted: Mapping[str, Trusted] | None,
) -> Hit:  # fmt: skip
    item = item_from_row(row["item"])
    vector, text = vectors.get(item.id), texts.get(item.id)
    parts = {"vector": vector, "text": text}
    fused = relevance(None if vector is None else vector.value,
                      None if text is None else text.value, used)  # fmt: skip
    trust = None if trusted is None else trusted.get(item.id)
    authority = item.authority if trust is None else trust.value
    standing = 1.0 - AUTHORITY_WEIGHT + AUTHORITY_WEIGHT * authority
    decay = float(row["decay"])
    freshness = 1.0 - DECAY_WEIGHT + DECAY_WEIGHT * min(1.0, decay)
    contradicted = [i for i in row["contradicted_by"] if i is not None]
    superseded = [i for i in row["superseded_by"] if i is not None]
    score = fused * standing * freshness
    score *= CONTRADICTED if contradicted else 1.0
    score *= SUPERSEDED if superseded else 1.0
    why: JSONObject = {
        "fusion": {
            "method": "probabilistic or: 1 - product of (1 - scaled side)",
            "sides": used,
            "cosine": [COSINE_LOW, COSINE_HIGH],
        },
        **{side: _side(parts[side], side) for side in used},
        "relevance": fused,
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
    return Hit(item, score, fused, None if vector is None else vector.value,
               None if text is None else text.value, why)  # fmt: skip


def _side(candidate: Candidate | None, side: str) -> dict[str, Any]:
    if candidate is None:
        return {"rank": None, "value": None, "scaled": 0.0}
    scaled = meaning(candidate.value) if side == "vector" else candidate.value
    measure = "similarity" if side == "vector" else "share"
    return {"rank": candidate.rank, measure: candidate.value, "scaled": scaled}
