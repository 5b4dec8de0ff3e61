"""Diversity penalties, as MemEX applies them, and the bound that lets a
stream stop early.

Candidates are walked in score order (ties by id); each loses ``count ·
penalty`` for every earlier candidate with its author, each of its parents
(every entry of its parent list) and its source kind, summed in MemEX's
order (author, parents in list order, source), floored at 0; then the list
is re-sorted by the new score, keeping the earlier order among equals. A
penalty of 0 is off.

A candidate's penalty depends only on the candidates before it, so it is
final once seen. What a stream has not read yet scores at most the last
score read; :meth:`Diversifier.bound` tightens that with the best unseen
score of each (author, source kind) group, less what the counts so far
already take from it. A seen candidate whose new score is at least the
bound is placed for good: nothing unseen can come before it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memexd.retrieval.scoring import Breakdown
from memexd.retrieval.spec import Penalties
from memexd.retrieval.stream import Row

__all__ = ["Diversifier", "Penalty"]


@dataclass(frozen=True, slots=True)
class Penalty:
    author: float
    parent: float
    source: float
    #: the total subtracted, summed as MemEX sums it
    total: float

    def on(self, parts: Breakdown) -> Breakdown:
        """A score's breakdown with this penalty in it."""
        return replace(parts, author_penalty=self.author, parent_penalty=self.parent,
                       source_penalty=self.source, penalty=self.total)  # fmt: skip


class Diversifier:
    def __init__(self, penalties: Penalties) -> None:
        self.p = penalties
        self.authors: Counter[str] = Counter()
        self.parents: Counter[str] = Counter()
        self.sources: Counter[str] = Counter()

    def apply(self, row: Row) -> Penalty:
        """The penalty of the next candidate in score order (and count it)."""
        total = author = parent = source = 0.0
        if self.p.author:
            author = self.authors[row.author] * self.p.author
            total += author
            self.authors[row.author] += 1
        if self.p.parent and row.parents:
            for pid in row.parents:
                step = self.parents[pid] * self.p.parent
                total += step
                parent += step
                self.parents[pid] += 1
        if self.p.source:
            source = self.sources[row.source_kind] * self.p.source
            total += source
            self.sources[row.source_kind] += 1
        return Penalty(author, parent, source, total)

    def bound(self, groups: Sequence[tuple[str, str, float]], truncated: bool) -> float:
        """At least the new score of any unseen candidate, from the best unseen
        score per (author, source kind): its penalty is at least the author
        and source counts so far (parents only add; float sums of
        non-negative terms never shrink, so this holds exactly)."""
        best = 0.0
        for author, source, top in groups:
            least = 0.0
            if self.p.author:
                least += self.authors[author] * self.p.author
            if self.p.source:
                least += self.sources[source] * self.p.source
            best = max(best, top - least)
        if truncated and groups:
            best = max(best, groups[-1][2])
        return best
