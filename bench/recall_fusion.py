"""How recall's two sides are best fused, measured offline on rankings.

Run: ``.venv/bin/python bench/recall_fusion.py DUMP [DUMP…]`` where each
DUMP is written by ``bench/recall_quality.py --dump``. From each question's
``VECTOR`` and ``TEXT`` hits (their cosine similarities and BM25 scores),
it fuses the two lists several ways and prints evidence recall@5/10/20 for
each, best at @10 first, beside what the server's own ``HYBRID`` found in
the same run. Then, for the fusion :mod:`memexd.recall.fusion` uses, how
often a no-evidence cue gets no hit and how much evidence recall@10 is
lost, at a range of floors (a cue whose best hit is below the floor gets
none, as the server's default floor does). Tune on one benchmark's dump, then run the
chosen fusion on another's: a figure that holds only where it was tuned is
not a result.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.recall.fusion import relevance

KS = (5, 10, 20)
Side = dict[str, float]
Fusion = Callable[[Side, Side], dict[str, float]]


def _side(answer: dict[str, Any] | None, field: str) -> Side:
    if answer is None:
        return {}
    return {h["key"]: float(h[field]) for h in answer["hits"] if h.get(field) is not None}


def rrf(k: float, vector_weight: float) -> Fusion:
    def fuse(vector: Side, text: Side) -> dict[str, float]:
        scores: dict[str, float] = {}
        for weight, side in ((vector_weight, vector), (1 - vector_weight, text)):
            ranked = sorted(side, key=lambda key: -side[key])
            for rank, key in enumerate(ranked, 1):
                scores[key] = scores.get(key, 0.0) + weight / (k + rank)
        return scores

    return fuse


def _minmax(side: Side) -> Side:
    if not side:
        return {}
    low, high = min(side.values()), max(side.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in side.items()}


def convex(vector_weight: float) -> Fusion:
    """Each side's scores scaled to [0, 1] within the cue's hits, then a
    weighted sum (an item missing from a side scores 0 there)."""

    def fuse(vector: Side, text: Side) -> dict[str, float]:
        v, t = _minmax(vector), _minmax(text)
        return {k: vector_weight * v.get(k, 0.0) + (1 - vector_weight) * t.get(k, 0.0)
                for k in set(v) | set(t)}  # fmt: skip

    return fuse


def noisy_or(low: float, high: float) -> Fusion:
    """As served, with other cosine bounds: 1 - (1 - meaning)(1 - words)."""

    def fuse(vector: Side, text: Side) -> dict[str, float]:
        def scale(s: float) -> float:
            return min(1.0, max(0.0, (s - low) / (high - low)))

        return {
            k: 1 - (1 - (scale(vector[k]) if k in vector else 0.0)) * (1 - text.get(k, 0.0))
            for k in set(vector) | set(text)
        }

    return fuse


def served(vector: Side, text: Side) -> dict[str, float]:
    """The fusion memexd.recall.fusion uses (its relevance)."""
    sides = ("vector", "text")
    return {
        key: relevance(vector.get(key), text.get(key), sides) for key in set(vector) | set(text)
    }


def calibrated(low: float, high: float, vector_weight: float) -> Fusion:
    """As served, with other cosine bounds and weights."""

    def fuse(vector: Side, text: Side) -> dict[str, float]:
        def scale(s: float) -> float:
            return min(1.0, max(0.0, (s - low) / (high - low)))

        return {k: vector_weight * scale(vector[k]) if k in vector else 0.0 for k in vector} | {
            k: (vector_weight * scale(vector[k]) if k in vector else 0.0)
            + (1 - vector_weight) * text[k]
            for k in text
        }

    return fuse


def _recall(ranked: list[str], evidence: set[str], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def evaluate(doc: dict[str, Any], fusion: Fusion, floor: float = 0.0) -> dict[int, float]:
    vectors, texts = doc["rankings"]["VECTOR"], doc["rankings"]["TEXT"]
    totals = dict.fromkeys(KS, 0.0)
    for n, question in enumerate(doc["questions"]):
        fused = fusion(_side(vectors["evidence_cues"][n], "vectorScore"),
                       _side(texts["evidence_cues"][n], "textScore"))  # fmt: skip
        # the server's floor judges the cue by its best hit: all or nothing
        best = max(fused.values(), default=0.0)
        ranked = sorted(fused, key=lambda key: (-fused[key], key)) if best >= floor else []
        for k in KS:
            totals[k] += _recall(ranked, set(question["evidence"]), k)
    return {k: v / len(doc["questions"]) for k, v in totals.items()}


def emptied(doc: dict[str, Any], fusion: Fusion, floor: float) -> float | None:
    """The share of no-evidence cues with no hit at or above ``floor``."""
    vectors, texts = doc["rankings"]["VECTOR"], doc["rankings"]["TEXT"]
    cues = [(v, t) for v, t in zip(vectors["no_evidence_cues"], texts["no_evidence_cues"],
                                   strict=True) if v is not None]  # fmt: skip
    if not cues:
        return None
    empty = 0
    for v, t in cues:
        fused = fusion(_side(v, "vectorScore"), _side(t, "textScore"))
        empty += not any(score >= floor for score in fused.values())
    return empty / len(cues)


def _observed(doc: dict[str, Any], name: str) -> dict[int, float]:
    run = doc["rankings"][name]["evidence_cues"]
    totals = dict.fromkeys(KS, 0.0)
    for answer, question in zip(run, doc["questions"], strict=True):
        ranked = [h["key"] for h in answer["hits"]]
        for k in KS:
            totals[k] += _recall(ranked, set(question["evidence"]), k)
    return {k: v / len(doc["questions"]) for k, v in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--top", type=int, default=12, help="fusions printed per dump")
    args = parser.parse_args()
    fusions: dict[str, Fusion] = {"served": served}
    for k in (1, 5, 10, 20, 60):
        for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            fusions[f"rrf k={k} v={w}"] = rrf(k, w)
    for w in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        fusions[f"minmax v={w}"] = convex(w)
        for low in (0.7, 0.75, 0.8):
            for high in (0.9, 0.95):
                fusions[f"cal {low}-{high} v={w}"] = calibrated(low, high, w)
    for low in (0.7, 0.75, 0.8):
        for high in (0.9, 0.95, 1.0):
            fusions[f"or {low}-{high}"] = noisy_or(low, high)
    for path in args.dumps:
        doc = json.loads(path.read_text())
        print(f"\n{doc['dataset']} ({doc['engine']}, {len(doc['questions'])} questions)")
        for name in ("BM25", "TEXT", "VECTOR", "HYBRID"):
            row = _observed(doc, name)
            print(f"  {name:<22}" + "".join(f"  {row[k]:.3f}" for k in KS))
        table = {name: evaluate(doc, fusion) for name, fusion in fusions.items()}
        best = sorted(table, key=lambda name: -table[name][10])
        for name in [*best[: args.top], "served"]:
            print(f"  {name:<22}" + "".join(f"  {table[name][k]:.3f}" for k in KS))
        print("  floor    no-evidence cues emptied    evidence R@10")
        for floor in (0.0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
            share = emptied(doc, served, floor)
            kept = evaluate(doc, served, floor)[10]
            shown = "n/a" if share is None else f"{share:.1%}"
            print(f"  {floor:<8} {shown:>26}    {kept:.3f}")


if __name__ == "__main__":
    main()
