"""The retrieval service: ``scoredItems``, ``itemsByBudget``, ``smartRetrieve``
and its explanation, over one graph and one caller (every statement carries
the caller's read grants).

``scored`` is one statement: filter, score, ``minScore``, order and page in
the database. The budget and smart retrievals stream their candidates, items included
(:mod:`memexd.retrieval.stream`), through the pipeline
(:mod:`memexd.retrieval.pipeline`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memexd.graph import Graph
from memexd.graph.numbers import exact
from memexd.memory.model import Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import item_from_row
from memexd.memory.validation import Limits, check_ids
from memexd.retrieval import explain
from memexd.retrieval.budget import Entry
from memexd.retrieval.contradictions import opposing
from memexd.retrieval.explain import Exclusion
from memexd.retrieval.pipeline import Outcome, Pipeline
from memexd.retrieval.scoring import Breakdown, breakdown, slots
from memexd.retrieval.spec import (
    BudgetQuery,
    Plan,
    ScoredQuery,
    ScoreSpec,
    check_plan,
    check_scored,
    filter_fragment,
)
from memexd.retrieval.stream import FIRST_PAGE, Candidates, Stream
from memexd.retrieval.trusted import TrustedStream, TrustOf, trusted_score, weighed_authority

__all__ = ["Explanation", "Retrieval", "Scored"]


@dataclass(frozen=True, slots=True)
class Scored:
    item: Item
    #: the final score (after diversity penalties, in a smart retrieval)
    score: float
    breakdown: Breakdown
    #: SURFACE: the candidates it contradicts (``None``: none, or another policy)
    contradicted_by: list[Item] | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    items: list[Scored]
    #: every candidate read and left out, in score order
    excluded: list[Exclusion]
    #: one per id asked about that is not among ``items``, in the order asked
    why: list[Exclusion]
    budget: float
    remaining: float
    #: candidates read from the database
    examined: int
    #: whether every candidate was read
    complete: bool
    #: the weights, decay and ``now`` used (for breakdowns of excluded items)
    spec: ScoreSpec


class Retrieval:
    def __init__(
        self, graph: Graph, limits: Limits, reads: ItemReads, trust: TrustOf, *,
        first_page: int | None = None,
    ) -> None:  # fmt: skip
        self.graph = graph
        self.limits = limits
        self.reads = reads
        self.trust = trust
        #: rows in a stream's first page (``None``: sized from the request)
        self.first_page = first_page

    async def scored(self, query: ScoredQuery) -> list[Scored]:
        """MemEX's ``getScoredItems``: pre-filter → score → minScore →
        post-filter → offset/limit, best first, ties by id."""
        spec, min_score, offset, limit = check_scored(query, self.limits)
        flt = filter_fragment(self.graph, self.limits, spec.now_ms, query.pre, query.post)
        params = {**spec.params(), "min_score": min_score, "offset": offset, "limit": limit}
        rows = await self.graph.read(
            "retrieval_scored", params, filter=flt, **slots(self.graph, spec)
        )
        out = []
        for row in rows:
            item, score = item_from_row(row["item"]), exact(row["exact"])
            out.append(Scored(item, score, breakdown(spec, item, score)))
        return out

    async def by_budget(self, query: BudgetQuery) -> list[Scored]:
        """MemEX's ``getItemsByBudget``."""
        plan = check_plan(replace(query, smart=False), self.limits, self.graph)
        return await self._results(plan, await self._run(plan, explained=False))

    async def smart(self, query: BudgetQuery) -> list[Scored]:
        """MemEX's ``smartRetrieve``."""
        plan = check_plan(replace(query, smart=True), self.limits, self.graph)
        return await self._results(plan, await self._run(plan, explained=False))

    async def explain(self, query: BudgetQuery, why: Sequence[str] = ()) -> Explanation:
        """``smartRetrieve``, with what it left out and why."""
        plan = check_plan(replace(query, smart=True), self.limits, self.graph)
        asked = check_ids(list(why), "why", max_len=self.limits.max_list)
        outcome = await self._run(plan, explained=True)
        excluded = explain.exclusions(outcome)
        verdicts = await self._verdicts(plan, outcome, excluded, asked)
        return Explanation(await self._results(plan, outcome), excluded, verdicts, plan.budget,
                           outcome.remaining, len(outcome.entries), outcome.complete,
                           plan.score)  # fmt: skip

    async def _run(self, plan: Plan, *, explained: bool) -> Outcome:
        # the database may leave out what cannot fit only when nothing else
        # depends on it (and nobody asks about it)
        push_down = not explained and plan.policy is None and plan.penalties is None
        first = self.first_page or _first_page(plan, push_down, self.limits.max_page)
        stream = Stream(self.graph, plan, push_down=push_down, first=first,
                        page_max=self.limits.max_page)  # fmt: skip
        candidates: Candidates = stream
        if plan.trust:
            candidates = TrustedStream(stream, plan, self.trust, max_rows=self.limits.max_offset)
        pipeline = Pipeline(plan, candidates, max_items=self.limits.max_page,
                            max_rows=self.limits.max_offset)  # fmt: skip
        return await pipeline.run()

    async def _results(self, plan: Plan, outcome: Outcome) -> list[Scored]:
        """The items taken (as the stream read them), with their breakdowns
        and, for SURFACE, what they contradict (read in one round trip)."""
        against = await self._opposing(plan, outcome) if plan.policy == "SURFACE" else {}
        others = await self.reads.fetch(list(dict.fromkeys(o for v in against.values() for o in v)))
        out = []
        for e in outcome.taken:
            item = item_from_row(e.row.item)
            opposed = [others[o] for o in against.get(e.id, ()) if o in others]
            out.append(Scored(item, e.adjusted, _explained(plan.score, item, e), opposed or None))
        return out

    async def _opposing(self, plan: Plan, outcome: Outcome) -> dict[str, list[str]]:
        read = {e.id: e for e in outcome.entries}
        unread = {o for e in outcome.taken for _, o, _ in e.row.contradicts if o not in read}
        outside = {k for k, (_, by) in (await self._candidates(plan, unread)).items() if not by}

        def is_candidate(item_id: str) -> bool:
            e = read.get(item_id)
            return item_id in outside if e is None else not e.row.superseded_by

        return {e.id: opposing(e.row, is_candidate) for e in outcome.taken}

    async def _candidates(
        self, plan: Plan, ids: Iterable[str]
    ) -> dict[str, tuple[float, tuple[str, ...]]]:
        """Which of ``ids`` are candidates: their score and who supersedes them."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        rows = await self.graph.read(
            "retrieval_candidates", {"ids": wanted, **plan.score.params()},
            filter=plan.filter, **slots(self.graph, plan.score),
        )  # fmt: skip
        found = {r["id"]: (exact(r["exact"]), tuple(r["superseded_by"] or ())) for r in rows}
        return await self._trusted(plan, found) if plan.trust and found else found

    async def _trusted(
        self, plan: Plan, found: dict[str, tuple[float, tuple[str, ...]]]
    ) -> dict[str, tuple[float, tuple[str, ...]]]:
        """Candidates' scores weighed by trust, as the stream weighs them."""
        trusted, items = await self.trust(list(found)), await self.reads.fetch(list(found))
        return {i: (s if i not in items else trusted_score(plan, items[i], s, trusted.get(i)), by)
                for i, (s, by) in found.items()}  # fmt: skip

    async def _verdicts(
        self, plan: Plan, outcome: Outcome, excluded: list[Exclusion], asked: list[str]
    ) -> list[Exclusion]:
        taken = {e.id for e in outcome.taken}
        known = {x.id: x for x in excluded}
        unread = [i for i in asked if i not in taken and i not in known]
        found = await self._candidates(plan, unread)
        out = []
        for item_id in dict.fromkeys(asked):
            if item_id in taken:
                continue
            if item_id in known:
                out.append(known[item_id])
            elif item_id not in found:
                out.append(explain.not_a_candidate(item_id))
            elif found[item_id][1] and plan.policy is not None:
                out.append(explain.superseded(item_id, found[item_id][0], found[item_id][1]))
            else:
                out.append(explain.below_cutoff(item_id, found[item_id][0], outcome.remaining))
        return out


def _first_page(plan: Plan, push_down: bool, page_max: int) -> int:
    """UNIT costs: ``budget`` rows fill the budget when the database leaves
    out nothing but what fits; a quarter more (and some) leave room for
    contradiction losers and superseded items (diversity settles through
    the tail's bound). Other costs: a default page. A short first page costs
    a second scan; a long one, rows nobody needed."""
    if plan.cost.model != "UNIT":
        return FIRST_PAGE
    budget = math.ceil(plan.budget)
    wanted = budget if push_down else budget + budget // 4 + 16
    return max(1, min(page_max, wanted))


def _explained(spec: ScoreSpec, item: Item, e: Entry) -> Breakdown:
    parts = breakdown(spec, item, e.row.score, authority=weighed_authority(item, e.row.trust))
    return parts if e.penalty is None else e.penalty.on(parts)
