"""The candidate stream: a retrieval's candidates from the database, best
first, one page at a time, so packing stops once its answer is settled
instead of fetching every candidate first.

Pages follow an exact cursor (the last row's score and id: ties by id), and
grow fourfold from one to the next, so a long stream costs few round trips.
Each page is one read (FalkorDB has no snapshot across statements): an item
written between two pages may be seen at its new place, or missed; a row
seen twice is dropped by the pipeline.

With ``push_down``, the database leaves out candidates whose cost floor
exceeds the budget left (only right when nothing else depends on them: no
contradiction policy, no diversity, no explanation). :meth:`Stream.tail`
sums up what lies past the cursor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from memexd.graph import Graph
from memexd.graph.numbers import exact
from memexd.integrity.trust import Trusted
from memexd.retrieval.scoring import slots
from memexd.retrieval.spec import Plan
from memexd.types import Row as DbRow

__all__ = ["FIRST_PAGE", "Candidates", "Row", "Stream", "Tail"]

FIRST_PAGE = 64
GROWTH = 4
#: (author, source kind) groups a tail reports: past it the bound is coarser
MAX_GROUPS = 1_000


@dataclass(frozen=True, slots=True)
class Row:
    """One candidate as the database sent it."""

    id: str
    #: the score before penalties (exact)
    score: float
    #: its place in the stream (0 first): the order before diversity
    rank: int
    author: str
    source_kind: str
    parents: tuple[str, ...] | None
    #: the item as stored (``@item``): the answer, when it is taken
    item: DbRow
    superseded_by: tuple[str, ...]
    #: active CONTRADICTS edges: (edge id, the other item, the edge's log position)
    contradicts: tuple[tuple[str, str, int], ...]
    #: its trust, when the retrieval weighs by it (``score`` is then the trusted one)
    trust: Trusted | None = None


@dataclass(frozen=True, slots=True)
class Tail:
    """What lies past the cursor."""

    total: int
    #: how many might still fit the budget left (or cost something not a number)
    fitting: int
    #: (author, source kind, best score), best first
    groups: list[tuple[str, str, float]]
    #: whether more groups exist than ``groups`` lists
    truncated: bool


class Candidates(Protocol):
    """What the pipeline reads: candidates best first, a page at a time."""

    push_down: bool

    @property
    def read(self) -> int: ...

    @property
    def exhausted(self) -> bool: ...

    @property
    def last_score(self) -> float: ...

    async def next(self, remaining: float) -> list[Row]: ...

    async def tail(self, remaining: float) -> Tail: ...


class Stream:
    def __init__(self, graph: Graph, plan: Plan, *, push_down: bool, first: int, page_max: int
                 ) -> None:  # fmt: skip
        self.graph = graph
        self.plan = plan
        self.push_down = push_down
        self.page = first
        self.page_max = page_max
        self.read = 0
        self.exhausted = False
        self.after: tuple[float, str] | None = None
        # supersession and contradictions matter only to a contradiction policy
        self._page_slots = slots(graph, plan.score, plan.cost, marks=plan.policy is not None)
        self._tail_slots = slots(graph, plan.score, plan.cost)

    @property
    def last_score(self) -> float:
        """The score of the last row read (every unseen candidate scores at most this)."""
        return float("inf") if self.after is None else self.after[0]

    def _params(self, cap: float | None) -> dict[str, Any]:
        score, id_ = self.after if self.after is not None else (None, None)
        return {**self.plan.score.params(), **self.plan.cost.params(),
                "after_score": score, "after_id": id_, "cap": cap}  # fmt: skip

    async def next(self, remaining: float) -> list[Row]:
        """The next page (empty once exhausted)."""
        if self.exhausted:
            return []
        limit = min(self.page, self.page_max)
        # a UNIT cost always fits a stream that goes on (the pipeline stops below 1)
        cap = remaining if self.push_down and self.plan.cost.model != "UNIT" else None
        params = {**self._params(cap), "limit": limit}
        found = await self.graph.read(
            "retrieval_stream", params, filter=self.plan.filter, **self._page_slots
        )
        rows = [self._row(r, self.read + i) for i, r in enumerate(found)]
        self.exhausted = len(rows) < limit
        self.page *= GROWTH
        self.read += len(rows)
        if rows:
            self.after = (rows[-1].score, rows[-1].id)
        return rows

    async def tail(self, remaining: float) -> Tail:
        """Past the cursor: how many candidates, how many might fit ``remaining``,
        and the best score of each (author, source kind)."""
        if self.after is None:
            raise ValueError("tail before the first page")  # a programming error
        params = {**self._params(remaining), "groups": MAX_GROUPS}
        found = await self.graph.read(
            "retrieval_tail", params, filter=self.plan.filter, **self._tail_slots
        )
        if not found:
            return Tail(0, 0, [], truncated=False)
        row = found[0]
        groups = [(g[0], g[1], exact(g[2])) for g in row["groups"] or ()]
        return Tail(int(row["total"] or 0), int(row["fitting"] or 0), groups,
                    truncated=len(groups) >= MAX_GROUPS)  # fmt: skip

    @staticmethod
    def _row(r: DbRow, rank: int) -> Row:
        item = r["item"]
        parents = item.get("parents")
        return Row(
            id=item["id"],
            score=exact(r["exact"]),
            rank=rank,
            author=item["author"],
            source_kind=item["source_kind"],
            parents=None if parents is None else tuple(parents),
            item=item,
            superseded_by=tuple(r.get("superseded_by") or ()),
            contradicts=tuple((c[0], c[1], int(c[2] or 0)) for c in r.get("contradicts") or ()),
        )
