"""scoredItems, itemsByBudget, smartRetrieve and the explanation: examples for
each rule, then properties against memex-python's own functions on the same
data (``get_scored_items``, ``get_items_by_budget``, ``smart_retrieve``),
with its clock pinned to the query's ``now``.

The reference data is created in id order (MemEX breaks score ties by
insertion order; memexd by id), and edges get the same ids on both sides
(FILTER breaks pair ties by edge id).
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import memex._time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memex.graph import GraphState
from memex.integrity import get_items_by_budget, resolve_contradiction
from memex.models import MemoryItem as MemexItem
from memex.query import get_scored_items
from memex.reducer import apply_command
from memex.retrieval import smart_retrieve

from memexd.core import Memex
from memexd.ids import uuid7_at
from memexd.memory.filters import DecayConfig, MemoryFilter
from memexd.retrieval import spec
from memexd.retrieval.cost import js_length
from memexd.retrieval.service import Retrieval
from memexd.settings import Settings
from tests.conftest import ApiFactory
from tests.support import Api

# ---------------------------------------------------------------- helpers

NOW = 1_750_000_000_000
HOUR, DAY = 3_600_000, 86_400_000
WEIGHTS = {"authority": 1.0}
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
EDGE = """mutation($e: EdgeInput!) { createEdge(input: $e) { edge { edgeId } } }"""
CONTRA = """mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, author: "u") {
  edge { edgeId } } }"""
RESOLVE = """mutation($w: ID!, $l: ID!) { resolveContradiction(winnerId: $w, loserId: $l,
  author: "u") { events { id } } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'
BREAKDOWN = """breakdown { authority conviction importance decay score penalty authorPenalty
  parentPenalty sourcePenalty }"""
SCORED = f"""query($w: ScoreWeights!, $o: ScoredQueryOptions) {{
  scoredItems(weights: $w, options: $o) {{ item {{ id }} score {BREAKDOWN} }}
}}"""
BUDGET = """query($i: BudgetInput!) { itemsByBudget(input: $i) { item { id } score } }"""
SMART = f"""query($i: SmartRetrievalInput!) {{
  smartRetrieve(input: $i) {{ item {{ id }} score contradictedBy {{ id }} {BREAKDOWN} }}
}}"""
EXPLAIN = """query($i: SmartRetrievalInput!, $why: [ID!]) {
  smartRetrieveExplained(input: $i, why: $why) {
    items { item { id } score } excludedCount examined complete budget remainingBudget
    excluded(limit: 1000) { id reason message score adjustedScore cost remainingBudget
      by { id } item { id } breakdown { score penalty } }
    why { id reason message score by { id } item { id } }
  }
}"""


_TICKS = itertools.count()


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def row(scope: str, at: int | None = None, **fields: Any) -> dict[str, Any]:
    """A GraphQL item input created at ``at`` (ms; by default a little later
    than the previous one, so ids ascend in creation order)."""
    at = NOW - DAY + next(_TICKS) if at is None else at
    return {"id": uuid7_at(at), "scope": scope, "kind": "k", "content": {"t": "x"},
            "author": "a", "sourceKind": "s", "authority": 0.5, **fields}  # fmt: skip


async def create(api: Api, *rows: dict[str, Any]) -> list[str]:
    await api.ok(CREATE, i=list(rows))
    return [r["id"] for r in rows]


def scope() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


def ids(found: list[dict[str, Any]]) -> list[str]:
    return [f["item"]["id"] for f in found]


def budget_input(sc: str, budget: float, model: str = "UNIT", **more: Any) -> dict[str, Any]:
    cost: dict[str, Any] = {"model": model}
    if model == "META_FIELD":
        cost["metaField"] = "cost"
    return {"budget": budget, "cost": cost, "weights": WEIGHTS, "filter": {"scope": sc},
            "now": iso(NOW), **more}  # fmt: skip


@contextmanager
def clock(now: int) -> Iterator[None]:
    with mock.patch.object(memex._time, "now_ms", return_value=now):
        yield


# ---------------------------------------------------------------- scoredItems


async def test_scores_rank_in_the_database_with_ties_by_id(api: Api) -> None:
    sc = scope()
    tied = [row(sc, NOW - i * HOUR, authority=0.5) for i in range(1, 4)]
    best = row(sc, authority=0.9, conviction=0.5, kind="other")
    await create(api, *tied, best)
    weights = {"authority": 1.0, "conviction": 0.5}
    got = (await api.ok(SCORED, w=weights, o={"pre": {"scope": sc}}))["scoredItems"]
    assert ids(got) == [best["id"], *sorted(t["id"] for t in tied)]
    assert [g["score"] for g in got] == [0.9 + 0.25, 0.5, 0.5, 0.5]
    top = got[0]["breakdown"]
    assert (top["authority"], top["conviction"], top["importance"]) == (0.9, 0.25, 0.0)
    assert (top["decay"], top["score"], top["penalty"]) == (1.0, got[0]["score"], 0.0)

    async def ranked(**options: Any) -> list[str]:
        found = await api.ok(SCORED, w=weights, o={"pre": {"scope": sc}, **options})
        return ids(found["scoredItems"])

    assert await ranked(minScore=0.6) == [best["id"]]
    assert await ranked(minScore=0.5) == ids(got)  # at least minScore stays
    assert await ranked(post={"kind": "k"}, offset=1, limit=1) == [ids(got)[2]]
    assert await ranked(post={"not": {"kind": "k"}}) == [best["id"]]
    assert await ranked(limit=0) == []


async def test_decay_uses_the_query_now_everywhere(api: Api) -> None:
    """Future items do not decay; a step drops exactly at each boundary; the
    pre-filter's decay is computed at the same ``now``."""
    sc = scope()
    on, before, future, old = await create(
        api, row(sc, NOW - 2 * DAY), row(sc, NOW - 2 * DAY + 1),
        row(sc, NOW + DAY), row(sc, NOW - 30 * DAY),
    )  # fmt: skip

    async def scores(kind: str, rate: float, now: int, **pre: Any) -> dict[str, float]:
        w = {"authority": 1.0, "decay": {"rate": rate, "interval": "DAY", "type": kind}}
        o = {"pre": {"scope": sc, **pre}, "now": iso(now)}
        found = (await api.ok(SCORED, w=w, o=o))["scoredItems"]
        assert all(f["breakdown"]["decay"] * 0.5 == f["score"] for f in found)
        return {f["item"]["id"]: f["score"] for f in found}

    step = await scores("STEP", 0.5, NOW)
    assert (step[on], step[before], step[future]) == (0.125, 0.25, 0.5)
    linear = await scores("LINEAR", 0.1, NOW)
    assert (linear[old], linear[future]) == (0.0, 0.5)
    assert linear[on] == 0.5 * (1 - 0.1 * 2)
    exponential = await scores("EXPONENTIAL", 0.5, NOW)
    assert (exponential[on], exponential[future]) == (0.125, 0.5)
    assert await scores("STEP", 0.5, NOW) == step  # reproducible
    later = await scores("STEP", 0.5, NOW + DAY)
    assert (later[on], later[future]) == (0.0625, 0.5)
    decayed = {"config": {"rate": 0.5, "interval": "DAY", "type": "STEP"}, "min": 0.5}
    assert set(await scores("STEP", 0.5, NOW, decay=decayed)) == {before, future}
    assert set(await scores("STEP", 0.5, NOW + DAY, decay=decayed)) == {future}


# ---------------------------------------------------------------- itemsByBudget


async def test_budget_packs_greedily_and_always_takes_zero_cost_items(api: Api) -> None:
    sc = scope()
    costs = [5, 100, 0, 3, 2.5]
    made = await create(api, *[
        row(sc, authority=1.0 - i / 10, meta={"cost": c}) for i, c in enumerate(costs)
    ])  # fmt: skip

    async def packed(budget: float) -> list[str]:
        found = await api.ok(BUDGET, i=budget_input(sc, budget, "META_FIELD"))
        return ids(found["itemsByBudget"])

    assert await packed(8) == [made[0], made[2], made[3]]  # 100 skipped, 0 taken, 3 fits
    assert await packed(0) == [made[2]]
    assert await packed(10.5) == [made[0], made[2], made[3], made[4]]
    assert await packed(1e300) == made
    found = await api.ok(BUDGET, i=budget_input(sc, 2, "UNIT"))
    assert [f["score"] for f in found["itemsByBudget"]] == [1.0, 0.9]


async def test_content_costs_are_memex_json_lengths(api: Api) -> None:
    """``JSON.stringify`` lengths: integral floats without ``.0``, JavaScript's
    exponents, ``-0`` as ``0``, UTF-16 units (an emoji counts 2)."""
    sc = scope()
    content = {"a": 2.0, "b": "é😀", "c": [1e21, 1e-7, -0.0]}
    assert js_length(content) == len('{"a":2,"b":"é😀","c":[1e+21,1e-7,0]}') + 1 == 36
    (item,) = await create(api, row(sc, content=content))

    async def fits(model: str, budget: float) -> bool:
        found = await api.ok(BUDGET, i=budget_input(sc, budget, model))
        return ids(found["itemsByBudget"]) == [item]

    assert await fits("CONTENT_CHARS", 36)
    assert not await fits("CONTENT_CHARS", 35.9)
    assert await fits("CONTENT_TOKENS", 9)
    assert not await fits("CONTENT_TOKENS", 8.99)


async def test_a_bad_cost_fails_the_request(api: Api) -> None:
    """A negative or non-numeric cost on any candidate is BAD_USER_INPUT, as
    MemEX's RangeError, unless the item is not a candidate."""
    sc = scope()
    await create(api, row(sc, authority=0.9, meta={"cost": 1}))
    for bad in (-1, "3", True, None, {"x": 1}):
        other = scope()
        await create(api, row(other, authority=0.1, meta={"cost": bad}))
        for flt in ({"scopePrefix": other}, {"or": [{"scope": sc}, {"scope": other}]}):
            query = budget_input(sc, 100, "META_FIELD", filter=flt)
            assert await api.codes(BUDGET, i=query) == ["BAD_USER_INPUT"], bad
        fine = await api.ok(BUDGET, i=budget_input(sc, 100, "META_FIELD"))
        assert len(fine["itemsByBudget"]) == 1
    missing = scope()
    await create(api, row(missing, meta={"other": 1}), row(missing))
    query = budget_input(missing, 100, "META_FIELD")
    assert await api.codes(BUDGET, i=query) == ["BAD_USER_INPUT"]


# ---------------------------------------------------------------- smartRetrieve


async def smart(api: Api, sc: str, budget: float = 100, **more: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await api.ok(SMART, i=budget_input(sc, budget, **more)))[
        "smartRetrieve"
    ]
    return found


async def test_filter_keeps_the_better_side_pair_by_pair(api: Api) -> None:
    """Pairs go best first; a pair whose side already lost is skipped; ties:
    the larger id loses; a self-contradiction drops the item."""
    sc = scope()
    a, b, c, d, e, f = await create(api, *[
        row(sc, authority=s) for s in (0.9, 0.8, 0.7, 0.6, 0.6, 0.5)
    ])  # fmt: skip
    for x, y in ((b, c), (a, b), (d, e), (f, f)):
        await api.ok(CONTRA, a=x, b=y)
    assert ids(await smart(api, sc, contradictions="FILTER")) == [a, c, d]
    assert ids(await smart(api, sc, contradictions="SURFACE")) == [a, b, c, d, e, f]
    assert ids(await smart(api, sc)) == [a, b, c, d, e, f]


async def test_resolved_contradictions_leave_the_loser_superseded(api: Api) -> None:
    sc = scope()
    win, lose, keep, old = await create(api, *[row(sc, authority=s) for s in (0.4, 0.9, 0.1, 0.3)])
    (newer,) = await create(api, row(scope()))  # outside the filter: supersedes all the same
    await api.ok(CONTRA, a=win, b=lose)
    await api.ok(RESOLVE, w=win, l=lose)
    edge = {"from": newer, "to": old, "kind": "SUPERSEDES", "author": "u", "sourceKind": "s",
            "authority": 1.0}  # fmt: skip
    await api.ok(EDGE, e=edge)
    for policy in ("FILTER", "SURFACE"):
        found = await smart(api, sc, contradictions=policy)
        assert ids(found) == [win, keep]
        assert all(f["contradictedBy"] is None for f in found)
    # without a policy MemEX keeps superseded items (the loser's authority · 0.1)
    assert ids(await smart(api, sc)) == [win, old, keep, lose]


async def test_surface_lists_only_opposing_candidates(api: Api) -> None:
    sc = scope()
    x, y, z = await create(api, *[row(sc, authority=s) for s in (0.9, 0.5, 0.2)])
    (outside,) = await create(api, row(scope()))
    for a, b in ((x, z), (outside, x), (x, x), (y, x), (z, x)):
        await api.ok(CONTRA, a=a, b=b)
    found = {f["item"]["id"]: f for f in await smart(api, sc, contradictions="SURFACE")}
    assert [o["id"] for o in found[x]["contradictedBy"]] == [z, y]  # edge order, once each
    assert [o["id"] for o in found[y]["contradictedBy"]] == [x]
    assert found[y]["breakdown"]["penalty"] == 0.0


async def test_diversity_penalises_repeats_and_resorts_stably(api: Api) -> None:
    sc = scope()
    p = str(uuid.uuid4())  # a parent that does not exist still counts
    a1, a2, b1, b2 = await create(api,
        row(sc, authority=0.9, author="a", parents=[p]), row(sc, authority=0.8, author="a"),
        row(sc, authority=0.7, author="b", parents=[p, p]), row(sc, authority=0.6, author="b"),
    )  # fmt: skip
    diversity = {"authorPenalty": 0.2, "parentPenalty": 0.1}
    found = await smart(api, sc, diversity=diversity)
    # a2 0.8-0.2; b1 0.7-(0.1+0.2) (its second p sees the first): in floating
    # point 0.3999999999999999, below b2's 0.6-0.2 = 0.39999999999999997
    assert ids(found) == [a1, a2, b2, b1]
    assert [f["score"] for f in found] == [0.9, 0.8 - 0.2, 0.6 - 0.2, 0.7 - (0.1 + 0.2)]
    assert found[3]["breakdown"] | {"authority": 0} == {
        "authority": 0, "conviction": 0.0, "importance": 0.0, "decay": 1.0, "score": 0.7,
        "penalty": 0.1 + 0.2, "authorPenalty": 0.0, "parentPenalty": 0.1 + 0.2,
        "sourcePenalty": 0.0,
    }  # fmt: skip
    heavy = await smart(api, sc, diversity={"authorPenalty": 1.0})
    assert ids(heavy) == [a1, b1, a2, b2]  # both floored at 0: the earlier first
    assert [f["score"] for f in heavy] == [0.9, 0.7, 0.0, 0.0]
    assert ids(await smart(api, sc, 2, diversity={"authorPenalty": 1.0})) == [a1, b1]


# ---------------------------------------------------------------- explanations


async def test_explanations_say_why_each_candidate_was_left_out(api: Api) -> None:
    sc = scope()
    a, b, c, d, e, f, g = await create(api,
        row(sc, authority=0.9, author="a"), row(sc, authority=0.85, author="a"),
        row(sc, authority=0.8, author="c"), row(sc, authority=0.7, author="d"),
        row(sc, authority=0.2, author="e"), row(sc, authority=0.6, author="f"),
        row(sc, authority=0.65, author="g"),
    )  # fmt: skip
    (outside,) = await create(api, row(scope()))
    await api.ok(CONTRA, a=c, b=a)
    await api.ok(CONTRA, a=g, b=g)
    edge = {"from": e, "to": d, "kind": "SUPERSEDES", "author": "u", "sourceKind": "s",
            "authority": 1.0}  # fmt: skip
    await api.ok(EDGE, e=edge)
    query = budget_input(sc, 2, contradictions="FILTER", diversity={"authorPenalty": 0.5})
    missing = uuid7_at(NOW)
    found = (await api.ok(EXPLAIN, i=query, why=[a, outside, missing, d, b]))[
        "smartRetrieveExplained"
    ]
    assert [x["item"]["id"] for x in found["items"]] == [a, f]
    assert (found["budget"], found["remainingBudget"]) == (2.0, 0.0)
    assert (found["examined"], found["complete"], found["excludedCount"]) == (7, True, 5)
    why = {x["id"]: x for x in found["excluded"]}
    assert [x["id"] for x in found["excluded"]] == [b, c, d, g, e]  # score order
    assert (why[c]["reason"], [o["id"] for o in why[c]["by"]]) == ("CONTRADICTION", [a])
    assert (why[g]["reason"], [o["id"] for o in why[g]["by"]]) == ("CONTRADICTION", [g])
    assert (why[d]["reason"], [o["id"] for o in why[d]["by"]]) == ("SUPERSEDED", [e])
    assert why[b]["reason"] == "DIVERSITY_PENALTY"  # at 0.85 it came before f
    assert (why[b]["score"], why[b]["adjustedScore"], why[b]["cost"]) == (0.85, 0.85 - 0.5, 1)
    assert why[b]["breakdown"] == {"score": 0.85, "penalty": 0.5}
    assert (why[e]["reason"], why[e]["remainingBudget"]) == ("OVER_BUDGET", 0.0)
    assert why[e]["item"]["id"] == e
    assert why[c]["adjustedScore"] is None
    asked = [(x["id"], x["reason"]) for x in found["why"]]
    assert asked == [(outside, "NOT_A_CANDIDATE"), (missing, "NOT_A_CANDIDATE"),
                     (d, "SUPERSEDED"), (b, "DIVERSITY_PENALTY")]  # fmt: skip
    assert found["why"][0]["item"] is not None
    assert found["why"][1]["item"] is None


async def test_streams_stop_once_the_budget_is_full(api: Api) -> None:
    """Candidates come from the database best first, a page at a time, items
    included: a small budget reads one page, however many items match."""
    sc = scope()
    made = await create(api, *[row(sc, authority=(i % 97) / 100) for i in range(300)])

    async def reads(query: str, **variables: Any) -> int:
        before = api.store.reads
        await api.ok(query, **variables)
        return api.store.reads - before

    assert await reads(BUDGET, i=budget_input(sc, 3)) == 1
    smart_query = budget_input(sc, 3, contradictions="FILTER", diversity={"authorPenalty": 0.1})
    assert await reads(SMART, i=smart_query) <= 3  # a page, the tail, a second page
    explained = budget_input(sc, 2, contradictions="SURFACE")
    found = (await api.ok(EXPLAIN, i=explained, why=[made[96], made[0]]))["smartRetrieveExplained"]
    assert found["complete"] is False
    assert found["examined"] < 100  # one page
    assert [x["item"]["id"] for x in found["items"]] == [made[96], made[193]]
    assert [x["reason"] for x in found["why"]] == ["BELOW_CUTOFF"]
    assert found["why"][0]["score"] == 0.0


# ---------------------------------------------------------------- refusals


async def test_bad_input_gets_a_clear_code_and_changes_nothing(api: Api) -> None:
    sc = scope()
    await create(api, row(sc, meta={"cost": 1}), row(sc, meta={"cost": "x"}))
    before = await api.snapshot()
    decay = {"rate": 0.1, "interval": "DAY", "type": "STEP"}
    for weights in ({"authority": 1.5}, {"conviction": -0.1},
                    {"authority": 1, "decay": {**decay, "rate": 1.2}},
                    {"decay": {**decay, "rate": -0.5}}):  # fmt: skip
        assert await api.codes(SCORED, w=weights) == ["BAD_USER_INPUT"], weights
        query = {**budget_input(sc, 1), "weights": weights}
        assert await api.codes(SMART, i=query) == ["BAD_USER_INPUT"], weights
    for options in ({"limit": -1}, {"limit": 10_000_000}, {"offset": -2},
                    {"offset": 10_000_000}, {"pre": {"scope": "a\nb"}},
                    {"post": {"ids": ["nope"]}}):  # fmt: skip
        assert await api.codes(SCORED, w=WEIGHTS, o=options) == ["BAD_USER_INPUT"], options
    bad_budgets = [
        budget_input(sc, -1), budget_input(sc, -0.001, "CONTENT_CHARS"),
        {**budget_input(sc, 5), "cost": {"model": "META_FIELD"}},  # which field?
        {**budget_input(sc, 5), "cost": {"model": "UNIT", "metaField": "cost"}},
        {**budget_input(sc, 5), "cost": {"model": "META_FIELD", "metaField": "a b"}},
        {**budget_input(sc, 5), "cost": {"model": "META_FIELD", "metaField": "x..y"}},
        budget_input(sc, 5, "META_FIELD"),  # one cost is "x": not a number
        budget_input(sc, 5, diversity={"authorPenalty": 1.5}),
        budget_input(sc, 5, diversity={"sourcePenalty": -0.2}),
    ]  # fmt: skip
    for query in bad_budgets:
        assert await api.codes(SMART, i=query) == ["BAD_USER_INPUT"], query
    for query in bad_budgets[:7]:
        plain = {k: v for k, v in query.items() if k != "diversity"}
        assert await api.codes(BUDGET, i=plain) == ["BAD_USER_INPUT"], query
    assert await api.codes(EXPLAIN, i=budget_input(sc, 1), why=["nope"]) == ["BAD_USER_INPUT"]
    late = {"now": "10000-01-01T00:00:00Z"}
    assert await api.codes(SCORED, w=WEIGHTS, o=late) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
    await api.alive()


async def test_limits_bound_what_a_retrieval_may_take_and_read(make_api: ApiFactory) -> None:
    api = await make_api(max_page=3, max_offset=5)
    sc = scope()
    await create(api, *[row(sc, authority=1 - i / 20, meta={"cost": 10 - i}) for i in range(10)])
    assert await api.codes(BUDGET, i=budget_input(sc, 4)) == ["RESOURCE_EXHAUSTED"]
    assert len((await api.ok(BUDGET, i=budget_input(sc, 3)))["itemsByBudget"]) == 3
    assert await api.codes(SCORED, w=WEIGHTS, o={"limit": 4}) == ["BAD_USER_INPUT"]
    # the items that fit rank last: more than 5 candidates before the answer settles
    tight = budget_input(sc, 2, "META_FIELD", contradictions="FILTER")
    assert await api.codes(SMART, i=tight) == ["RESOURCE_EXHAUSTED"]
    assert len((await api.ok(BUDGET, i=budget_input(sc, 2, "META_FIELD")))["itemsByBudget"]) == 1


# ---------------------------------------------------------------- grants


async def test_retrieval_sees_only_what_the_caller_may_read(api: Api) -> None:
    a1, a2 = await create(api, row("tenant:a/x", authority=0.9), row("tenant:a/x", authority=0.5))
    (b1,) = await create(api, row("tenant:b/y", authority=0.8))
    edge = {"from": b1, "to": a1, "kind": "SUPERSEDES", "author": "u", "sourceKind": "s",
            "authority": 1.0}  # fmt: skip
    await api.ok(EDGE, e=edge)
    await api.ok(CONTRA, a=b1, b=a2)
    reader = api.with_grants("read:tenant:a/")
    admin = api.with_grants("read:", name="all")  # a key exists now: no more open access
    query = {**budget_input("-", 10), "filter": {"scopePrefix": "tenant:"}}
    for policy in ("FILTER", "SURFACE"):
        mine = (await reader.ok(SMART, i={**query, "contradictions": policy}))["smartRetrieve"]
        assert ids(mine) == [a1, a2]  # unseen: b1, its supersession and its contradiction
        assert all(m["contradictedBy"] is None for m in mine)
    everything = await admin.ok(SMART, i={**query, "contradictions": "FILTER"})
    assert ids(everything["smartRetrieve"]) == [b1]
    found = await reader.ok(SCORED, w=WEIGHTS, o={"pre": {"scopePrefix": "tenant:"}})
    assert ids(found["scoredItems"]) == [a1, a2]
    assert ids((await reader.ok(BUDGET, i=query))["itemsByBudget"]) == [a1, a2]
    explained = await reader.ok(EXPLAIN, i={**query, "contradictions": "FILTER"}, why=[b1])
    assert [x["reason"] for x in explained["smartRetrieveExplained"]["why"]] == ["NOT_A_CANDIDATE"]
    assert explained["smartRetrieveExplained"]["why"][0]["item"] is None


# ---------------------------------------------------------------- properties

PROPERTIES = settings(max_examples=60, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
SCORES = [0.0, 0.25, 0.5, 1.0]
#: creation times around NOW: step boundaries, just before them, now, the future
AGES = [-3 * DAY, -2 * DAY, -2 * DAY + 1, -DAY - 1, -HOUR, -1, 0, 1, DAY]
GHOST = "01900000-0000-7000-8000-00000000dead"
_WORLDS = itertools.count(1)


def uid(ms: int, i: int, world: int) -> str:
    """A UUIDv7 at ``ms`` that sorts by (ms, i) within a world."""
    h = f"{ms:012x}7{i:03x}8{world:015x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


scores = st.one_of(st.sampled_from(SCORES), st.integers(0, 1000).map(lambda k: k / 1000))
optional = st.one_of(st.none(), st.sampled_from(SCORES), st.floats(0, 1))


@st.composite
def worlds(draw: st.DrawFn) -> dict[str, Any]:
    n, world = draw(st.integers(1, 12)), next(_WORLDS)
    sc = f"w{world}:{uuid.uuid4().hex[:8]}"
    rows: list[dict[str, Any]] = []
    for i in range(n):
        earlier = [r["id"] for r in rows] + [GHOST]
        parents = draw(st.one_of(st.none(), st.lists(st.sampled_from(earlier), max_size=3)))
        content = {"t": "x" * draw(st.integers(0, 9)), "f": draw(st.sampled_from([2.0, 1.5, "é"]))}
        rows.append({
            "id": uid(NOW + draw(st.sampled_from(AGES)), i, world), "scope": sc, "kind": "k",
            "content": content, "author": draw(st.sampled_from("abc")),
            "sourceKind": draw(st.sampled_from("st")), "authority": draw(scores),
            "conviction": draw(optional), "importance": draw(optional),
            "meta": {"cost": draw(st.sampled_from([0, 1, 2, 2.5, 7]))},
            **({} if parents is None else {"parents": parents}),
        })  # fmt: skip
    pick = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(st.sampled_from(["CONTRADICTS", "SUPERSEDES"]), pick, pick,
                                    st.booleans()), max_size=8))  # fmt: skip
    resolves = draw(st.lists(st.tuples(pick, pick).filter(lambda t: t[0] != t[1]), max_size=2))
    retract = draw(st.lists(pick, max_size=1))
    return {"scope": sc, "world": world, "rows": sorted(rows, key=lambda r: r["id"]),
            "edges": edges, "resolves": resolves, "retract": retract}  # fmt: skip


def memex_item(r: dict[str, Any]) -> MemexItem:
    snake = {"sourceKind": "source_kind"}
    fields = {snake.get(k, k): v for k, v in r.items() if v is not None}
    return MemexItem.model_validate({**fields, "created_at": int(r["id"][:8] + r["id"][9:13], 16)})


async def build(api: Api, w: dict[str, Any]) -> GraphState:
    """The same world in memexd (over GraphQL) and in memex-python."""
    rows, state = w["rows"], GraphState(items={}, edges={})
    await api.ok(CREATE, i=rows)
    for r in rows:
        state = apply_command(state, {"type": "memory.create", "item": memex_item(r)}).state
    for j, (kind, a, b, active) in enumerate(w["edges"]):
        edge = {"edgeId": f"{w['world']:08x}-0000-4000-8000-{j:012x}", "from": rows[a]["id"],
                "to": rows[b]["id"], "kind": kind, "author": "u", "sourceKind": "s",
                "authority": 1.0, "active": active}  # fmt: skip
        await api.ok(EDGE, e=edge)
        snake = {"edge_id": edge["edgeId"], "source_kind": "s"}
        plain = {k: v for k, v in edge.items() if k not in ("edgeId", "sourceKind")}
        state = apply_command(state, {"type": "edge.create", "edge": {**plain, **snake}}).state
    for a, b in w["resolves"]:
        await api.ok(RESOLVE, w=rows[a]["id"], l=rows[b]["id"])
        state = resolve_contradiction(state, rows[a]["id"], rows[b]["id"], "u").state
    for a in w["retract"]:
        await api.ok(RETRACT, id=rows[a]["id"])
        state = apply_command(state, {"type": "memory.retract", "item_id": rows[a]["id"],
                                      "author": "u"}).state  # fmt: skip
    return state


weights = st.fixed_dictionaries(
    {k: st.sampled_from([None, 0.0, 0.3, 0.5, 1.0]) for k in ("authority", "conviction",
                                                             "importance")},
    optional={"decay": st.fixed_dictionaries({
        "rate": st.sampled_from([0.0, 0.05, 0.5, 1.0]),
        "interval": st.sampled_from(["HOUR", "DAY", "WEEK"]),
        "type": st.sampled_from(["EXPONENTIAL", "LINEAR", "STEP"]),
    })},
)  # fmt: skip
penalty = st.sampled_from([None, 0.0, 0.1, 0.5, 1.0])
diversities = st.one_of(st.none(), st.fixed_dictionaries(
    {"authorPenalty": penalty, "parentPenalty": penalty, "sourcePenalty": penalty}))  # fmt: skip


def to_memex(value: Any) -> Any:
    """GraphQL names and enum values as memex-python's."""
    names = {"sourceKind": "source_kind", "scopePrefix": "scope_prefix", "minScore": "min_score",
             "authorPenalty": "author_penalty", "parentPenalty": "parent_penalty",
             "sourcePenalty": "source_penalty"}  # fmt: skip
    if isinstance(value, dict):
        return {names.get(k, k): to_memex(v) for k, v in value.items() if v is not None}
    return value.lower() if value in ("HOUR", "DAY", "WEEK", "EXPONENTIAL", "LINEAR",
                                      "STEP") else value  # fmt: skip


def cost_fn(model: str) -> Any:
    return {
        "UNIT": lambda i: 1,
        "CONTENT_CHARS": lambda i: js_length(i.content),
        "CONTENT_TOKENS": lambda i: math.ceil(js_length(i.content) / 4),
        "META_FIELD": lambda i: i.meta["cost"],
    }[model]


def same(got: list[Any], want: list[Any]) -> None:
    """memexd's answer (service records) is memex-python's: ids, scores, contradictions."""
    mine = [(s.item.id, s.score, [c.id for c in s.contradicted_by or ()]) for s in got]
    theirs = [(s.item.id, s.score, [c.id for c in s.contradicted_by or ()]) for s in want]
    assert mine == theirs


@PROPERTIES
@given(w=worlds(), weights=weights, data=st.data())
async def test_scored_items_match_memex(
    api: Api, w: dict[str, Any], weights: dict[str, Any], data: st.DataObject
) -> None:
    state = await build(api, w)
    options = data.draw(st.fixed_dictionaries({}, optional={
        "minScore": st.sampled_from([0.0, 0.2, 0.5]),
        "post": st.sampled_from([{"author": "a"}, {"not": {"sourceKind": "s"}}]),
        "limit": st.integers(0, 4), "offset": st.integers(0, 3),
    }))  # fmt: skip
    options["pre"] = {"scopePrefix": w["scope"]}
    found = await api.ok(SCORED, w=weights, o={**options, "now": iso(NOW)})
    with clock(NOW):
        want = get_scored_items(state, to_memex(weights), to_memex(options))
    got = [(f["item"]["id"], f["score"]) for f in found["scoredItems"]]
    assert got == [(s.item.id, s.score) for s in want]


@PROPERTIES
@given(w=worlds(), weights=weights, data=st.data())
async def test_budget_and_smart_retrieval_match_memex(
    api: Api, w: dict[str, Any], weights: dict[str, Any], data: st.DataObject
) -> None:
    await match_memex(api, w, weights, data, trust=False)


@PROPERTIES
@given(w=worlds(), weights=weights, data=st.data())
async def test_retrieval_weighed_by_trust_is_memex_over_effective_authorities(
    api: Api, w: dict[str, Any], weights: dict[str, Any], data: st.DataObject
) -> None:
    """With ``trust``, the answer is MemEX's over the same items with their
    effective authorities (SPEC §14) as their authorities."""
    await match_memex(api, w, weights, data, trust=True)


async def match_memex(
    api: Api, w: dict[str, Any], weights: dict[str, Any], data: st.DataObject, *, trust: bool
) -> None:
    state = await build(api, w)
    budget = data.draw(st.sampled_from([0, 1, 2.5, 3, 7, 50, 1000]))
    model = data.draw(st.sampled_from(["UNIT", "CONTENT_CHARS", "CONTENT_TOKENS", "META_FIELD"]))
    policy = data.draw(st.sampled_from([None, "FILTER", "SURFACE"]))
    diversity = data.draw(diversities)
    first_page = data.draw(st.sampled_from([1, 2, 5, None]))
    memexd = Memex(api.store, Settings())
    service = Retrieval(memexd.graph, memexd.limits, memexd.item_reads, memexd.trust.of,
                        first_page=first_page)  # fmt: skip
    draft = spec.BudgetQuery(
        budget, spec.Cost(model, "cost" if model == "META_FIELD" else None),
        spec.Weights(weights["authority"], weights["conviction"], weights["importance"],
                     _decay(weights.get("decay"))),
        _scope(w["scope"]), NOW, contradictions=policy,
        diversity=None if diversity is None else spec.Diversity(
            diversity["authorPenalty"], diversity["parentPenalty"], diversity["sourcePenalty"]),
        trust=trust,
    )  # fmt: skip
    if trust:
        state = await effective(memexd, state)
    common = {"budget": budget, "cost_fn": cost_fn(model), "weights": to_memex(weights),
              "filter": {"scope_prefix": w["scope"]}}  # fmt: skip
    with clock(NOW):
        same(await service.by_budget(draft), get_items_by_budget(state, **common))
        want = smart_retrieve(state, **common, contradictions=policy and policy.lower(),
                              diversity=to_memex(diversity))  # fmt: skip
    same(await service.smart(draft), want)
    explained = await service.explain(draft)
    same(explained.items, want)
    assert len(explained.items) + len(explained.excluded) == explained.examined


async def effective(memexd: Memex, state: GraphState) -> GraphState:
    """The state with each live item's authority its effective one."""
    trusted = await memexd.trust.of(list(state.items))
    items = {i: item.model_copy(update={"authority": trusted[i].value}) if i in trusted else item
             for i, item in state.items.items()}  # fmt: skip
    return GraphState(items=items, edges=state.edges)


def _decay(d: dict[str, Any] | None) -> DecayConfig | None:
    return None if d is None else DecayConfig(d["rate"], d["interval"], d["type"])


def _scope(sc: str) -> MemoryFilter:
    return MemoryFilter(scope_prefix=sc)


# ---------------------------------------------------------------- access


async def test_track_access_counts_what_each_query_returns(api: Api) -> None:
    sc = scope()
    made = await create(api, *(row(sc) for _ in range(3)))
    count = "query($ids: [ID!]!) { items(filter: {ids: $ids}) { id access { count } } }"

    async def counts() -> dict[str, int]:
        found = (await api.ok(count, ids=made))["items"]
        return {i["id"]: i["access"]["count"] for i in found}

    tracked = {
        "scoredItems": ("query($w: ScoreWeights!, $o: ScoredQueryOptions) { scoredItems("
                        "weights: $w, options: $o, trackAccess: true) { item { id } } }",
                        {"w": WEIGHTS, "o": {"pre": {"scope": sc}, "limit": 2}}),
        "itemsByBudget": ("query($i: BudgetInput!) { itemsByBudget(input: $i, trackAccess: "
                          "true) { item { id } } }", {"i": budget_input(sc, 1)}),
        "smartRetrieve": ("query($i: SmartRetrievalInput!) { smartRetrieve(input: $i, "
                          "trackAccess: true) { item { id } } }", {"i": budget_input(sc, 2)}),
        "smartRetrieveExplained": ("query($i: SmartRetrievalInput!) { smartRetrieveExplained("
                                   "input: $i, trackAccess: true) { items { item { id } } } }",
                                   {"i": budget_input(sc, 3)}),
    }  # fmt: skip
    expected = dict.fromkeys(made, 0)
    for name, (query, variables) in tracked.items():
        found = (await api.ok(query, **variables))[name]
        returned = ids(found["items"] if name == "smartRetrieveExplained" else found)
        assert returned, name
        for item_id in returned:
            expected[item_id] += 1
        assert await counts() == expected, name
    untracked = "query($i: BudgetInput!) { itemsByBudget(input: $i) { item { id } } }"
    await api.ok(untracked, i=budget_input(sc, 3))
    assert await counts() == expected
