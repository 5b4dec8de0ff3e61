"""The budget and smart retrieval pipeline, run over a stream of candidates.

MemEX's order of stages: candidates (the filter) scored with decay → the
contradiction policy (which first drops superseded items; without a policy
they stay, as in MemEX) → diversity → greedy packing. MemEX runs each stage
over every candidate; here each page of the stream goes through them as far
as its answer is final:

- supersession, contradiction losses and diversity penalties of a candidate
  depend only on the candidates before it in score order, so they are final
  once it is seen;
- a survivor is *placed* (its place in the final order fixed, and offered to
  the packer) once no unseen candidate can come before it: its new score is
  at least the bound on unseen ones (the last score read, or tighter, the
  diversity bound from :meth:`Stream.tail`); without diversity that is at once.

The stream stops once nothing more can be taken: every unplaced survivor is
too big for the budget left, and no unseen candidate can fit it (the cost
model's floor says so, or the database's count of those that might fit is 0)
or have a bad cost (which fails the request, as MemEX's RangeError does).
"""

from __future__ import annotations

from dataclasses import dataclass

from memexd.errors import ResourceExhausted
from memexd.retrieval.budget import Entry, Packer
from memexd.retrieval.contradictions import losers
from memexd.retrieval.cost import cost_of
from memexd.retrieval.diversity import Diversifier
from memexd.retrieval.spec import Plan
from memexd.retrieval.stream import Candidates, Row

__all__ = ["Outcome", "Pipeline"]


@dataclass(frozen=True, slots=True)
class Outcome:
    #: every candidate read, in score order (ties by id)
    entries: list[Entry]
    #: the placed survivors, in their final order (taken or not)
    placed: list[Entry]
    #: survivors never placed: each too big for what was left
    unplaced: list[Entry]
    taken: list[Entry]
    remaining: float
    #: whether every candidate was read
    complete: bool


class Pipeline:
    def __init__(self, plan: Plan, stream: Candidates, *, max_items: int, max_rows: int) -> None:
        self.plan = plan
        self.stream = stream
        self.max_rows = max_rows
        self.entries: list[Entry] = []
        self.seen: set[str] = set()
        self.candidates: list[Row] = []
        self.pending: list[Entry] = []
        self.placed: list[Entry] = []
        self.packer = Packer(plan.budget, max_items)
        self.diversity = None if plan.penalties is None else Diversifier(plan.penalties)

    async def run(self) -> Outcome:
        while not await self._step():
            if self.stream.read >= self.max_rows:
                raise ResourceExhausted(
                    f"more than {self.max_rows} candidates examined (MEMEXD_MAX_OFFSET) "
                    "before the answer settled: narrow the filter"
                )
        return Outcome(self.entries, self.placed, self.pending, self.packer.taken,
                       self.packer.remaining, self.stream.exhausted)  # fmt: skip

    async def _step(self) -> bool:
        """Read one page and take what it settles; whether the answer is final."""
        self._absorb(await self.stream.next(self.packer.remaining))
        if self.stream.exhausted:
            self._place(None)
            return True
        self._place(self.stream.last_score)
        if not self._may_take_more():
            return True
        if self.stream.push_down or not (self.packer.refused or self._pending_fits()):
            return False  # the next page tells (push-down), or the budget is not tight yet
        tail = await self.stream.tail(self.packer.remaining)
        if tail.total == 0:
            self._place(None)
            return True
        if self.diversity is not None:
            bound = self.diversity.bound(tail.groups, tail.truncated)
            self._place(min(self.stream.last_score, bound))
        # ``fitting`` was counted before that placing: with the budget left
        # then, at least what fits now
        return not self._may_take_more() or (tail.fitting == 0 and not self._pending_fits())

    def _absorb(self, rows: list[Row]) -> None:
        fresh = [Entry(r) for r in rows if r.id not in self.seen]
        self.seen.update(e.id for e in fresh)
        self.entries += fresh
        survivors = fresh
        if self.plan.policy is not None:  # MemEX drops superseded items in either policy
            survivors = [e for e in fresh if not e.row.superseded_by]
            self.candidates += [e.row for e in survivors]
            if self.plan.policy == "FILTER":
                lost = losers(self.candidates)
                for e in survivors:
                    e.lost_to = lost.get(e.id)
                survivors = [e for e in survivors if e.lost_to is None]
        for e in survivors:
            e.cost = cost_of(self.plan.cost, e.id, e.row.item)
            e.adjusted = e.row.score
            if self.diversity is not None:
                e.penalty = self.diversity.apply(e.row)
                e.adjusted = max(0.0, e.row.score - e.penalty.total)
        self.pending += survivors

    def _place(self, bound: float | None) -> None:
        """Place the pending survivors no unseen candidate can precede."""
        if bound is None:
            ready, self.pending = self.pending, []
        else:
            ready = [e for e in self.pending if e.adjusted >= bound]
            self.pending = [e for e in self.pending if e.adjusted < bound]
        ready.sort(key=lambda e: (-e.adjusted, e.row.rank))
        for e in ready:
            self.placed.append(e)
            self.packer.offer(e)

    def _pending_fits(self) -> bool:
        return any(self.packer.fits(e) for e in self.pending)

    def _may_take_more(self) -> bool:
        floor = self.plan.cost.floor
        unseen_may_fit = floor is None or self.packer.remaining >= floor
        return unseen_may_fit or self._pending_fits()
