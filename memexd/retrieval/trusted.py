"""Retrieval weighed by trust (``trust: true``): candidates scored with
their effective authority (SPEC §14) instead of their own, in exact order.

The database orders candidates by the score with their own authority. An
effective authority is never above the item's own and the weights are never
negative, so that score bounds the trusted one from above: the candidates
past the database's cursor can score no more than the last one it sent.
:class:`TrustedStream` reads the database's pages, works out the trust of
each page's candidates in one walk, keeps them back, and lets a candidate go
to the pipeline once nothing unseen can come before it (its trusted score at
least the database's bound, ties by id), so the pipeline sees the trusted
order as it sees the plain one: exactly, best first, a page at a time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from memexd.errors import MemexError
from memexd.integrity.trust import Trusted
from memexd.memory.model import Item
from memexd.memory.records import item_from_row
from memexd.retrieval.cost import cost_of
from memexd.retrieval.scoring import breakdown
from memexd.retrieval.spec import Plan
from memexd.retrieval.stream import Row, Stream, Tail

__all__ = ["TrustOf", "TrustedStream", "trusted_score", "weighed_authority"]

#: The trust of some items by id (:meth:`memexd.integrity.trust.Trust.of`).
TrustOf = Callable[[Sequence[str]], Awaitable[dict[str, Trusted]]]


def weighed_authority(item: Item, trust: Trusted | None) -> float | None:
    """The authority ``item`` is scored with when weighed by ``trust``: its
    effective one when lower than its own, else ``None`` (its own)."""
    return None if trust is None or trust.value >= item.authority else trust.value


def trusted_score(plan: Plan, item: Item, score: float, trust: Trusted | None) -> float:
    """``score`` (the database's, for ``item``) with the item's effective
    authority in place of its own; the database's own number when that
    changes nothing (not the same number computed a second way)."""
    authority = weighed_authority(item, trust)
    if authority is None or plan.score.authority == 0:
        return score
    parts = breakdown(plan.score, item, score, authority=authority)
    return min(score, (parts.authority + parts.conviction + parts.importance) * parts.decay)


class TrustedStream:
    """A :class:`Stream` in trusted-score order (:class:`Candidates` to the pipeline)."""

    def __init__(self, inner: Stream, plan: Plan, trust: TrustOf, *, max_rows: int) -> None:
        self.inner, self.plan, self.trust = inner, plan, trust
        self.max_rows = max_rows
        self.push_down = inner.push_down
        #: read, not let go yet: each scores below the database's bound
        self.held: list[Row] = []
        self.sent = 0
        self.after: tuple[float, str] | None = None

    @property
    def read(self) -> int:
        return self.inner.read

    @property
    def exhausted(self) -> bool:
        return self.inner.exhausted and not self.held

    @property
    def last_score(self) -> float:
        """The trusted score of the last row let go: every row not let go
        scores at most this."""
        return float("inf") if self.after is None else self.after[0]

    async def next(self, remaining: float) -> list[Row]:
        """The rows no unseen candidate can precede, best first (empty once
        exhausted, or when reading on would pass ``max_rows``: the pipeline
        then stops the request)."""
        while not self.inner.exhausted and self.inner.read < self.max_rows:
            rows = await self.inner.next(remaining)
            trusted = await self.trust([r.id for r in rows]) if rows else {}
            self.held += [self._rescored(r, trusted.get(r.id)) for r in rows]
            going = self._going()
            if going:
                return going
        return self._going()

    async def tail(self, remaining: float) -> Tail:
        """Past what was let go: the database's tail and the rows held back
        (a group's best score stays an upper bound)."""
        tail = await self.inner.tail(remaining)
        best: dict[tuple[str, str], float] = {(a, s): score for a, s, score in tail.groups}
        for row in self.held:
            key = (row.author, row.source_kind)
            best[key] = max(best.get(key, row.score), row.score)
        groups = sorted(((a, s, v) for (a, s), v in best.items()), key=lambda g: -g[2])
        fitting = sum(1 for row in self.held if self._may_fit(row, remaining))
        return Tail(tail.total + len(self.held), tail.fitting + fitting, groups, tail.truncated)

    def _going(self) -> list[Row]:
        bound = self.inner.after
        if self.inner.exhausted or bound is None:
            going, self.held = self.held, []
        else:
            score, last = bound  # an unseen candidate at the bound's score has a larger id
            going = [r for r in self.held if r.score > score or (r.score == score and r.id <= last)]
            gone = {r.id for r in going}
            self.held = [r for r in self.held if r.id not in gone]
        going.sort(key=lambda r: (-r.score, r.id))
        ranked = [replace(r, rank=self.sent + i) for i, r in enumerate(going)]
        self.sent += len(ranked)
        if ranked:
            self.after = (ranked[-1].score, ranked[-1].id)
        return ranked

    def _rescored(self, row: Row, trust: Trusted | None) -> Row:
        score = trusted_score(self.plan, item_from_row(row.item), row.score, trust)
        return replace(row, score=score, trust=trust)

    def _may_fit(self, row: Row, remaining: float) -> bool:
        try:
            return cost_of(self.plan.cost, row.id, row.item) <= remaining
        except MemexError:
            return True  # a bad cost fails the request once the row is let go
