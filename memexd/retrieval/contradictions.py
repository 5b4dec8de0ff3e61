"""Contradiction policies of a smart retrieval, as MemEX applies them.

``FILTER`` (:func:`losers`): among the candidates (superseded ones already
gone), each active CONTRADICTS edge between two of them is a pair; pairs are
taken best first (the higher score of the two, then the lower, then the edge
id) and the lower-scoring side of each loses (on a tie the larger id), unless
a side has already lost: then the pair is skipped. A self-contradiction
loses to itself.

The loser of a pair is always the later of the two in score order (ties by
id), so whether an item survives depends only on the candidates before it:
run over the candidates seen so far, the answer for each of them is final.

``SURFACE`` (:func:`opposing`): both sides stay; each lists the candidates on
the other side of its contradictions (never itself), in the order MemEX's
edge map yields them: the order the edges were created.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memexd.retrieval.stream import Row

__all__ = ["losers", "opposing"]


def losers(candidates: Sequence[Row]) -> dict[str, str]:
    """Every candidate that loses a contradiction, mapped to the one it lost to."""
    score = {c.id: c.score for c in candidates}
    pairs: dict[str, tuple[str, str]] = {}
    for c in candidates:
        for edge_id, other, _ in c.contradicts:
            if other in score:
                pairs.setdefault(edge_id, (c.id, other))

    def key(edge: tuple[str, tuple[str, str]]) -> tuple[float, float, str]:
        a, b = edge[1]
        return (-max(score[a], score[b]), -min(score[a], score[b]), edge[0])

    lost: dict[str, str] = {}
    for _, (a, b) in sorted(pairs.items(), key=key):
        if a in lost or b in lost:
            continue
        # the lower score loses; on a tie, the larger id
        higher = a if score[a] > score[b] else b
        loser = max(a, b) if score[a] == score[b] else (b if higher == a else a)
        lost[loser] = a if loser == b else b
    return lost


def opposing(row: Row, is_candidate: Callable[[str], bool]) -> list[str]:
    """The candidates ``row`` contradicts (either way), once each, in edge
    creation order; itself never."""
    seen: dict[str, None] = {}
    for _, other, _ in sorted(row.contradicts, key=lambda c: (c[2], c[0])):
        if other != row.id and other not in seen and is_candidate(other):
            seen[other] = None
    return list(seen)
