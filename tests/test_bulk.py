"""Bulk transforms against memex-python: ``apply_many``, ``bulk_adjust_scores``
and ``decay_importance`` on the same items give the same events, in the same
order, and the same items afterwards. Then over GraphQL: the events are logged,
bad input and the batch limit change nothing, grants, concurrent writers.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import memex
import memex._time
import pytest
import strawberry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memex.models import Edge as MemexEdge
from memex.models import MemoryItem as MemexItem
from memexd.resolvers import bulk as bulk_r
from memexd.resolvers import stats as stats_r
from memexd.schema import build
from memexd.schema.events import EventsResult
from memexd.schema.mutation import Mutation
from memexd.schema.query import Query
from memexd.schema.stats import GraphStats

import memexd.server.view as view_module
from memexd.access.grants import Access, parse_grant
from memexd.core import Memex
from memexd.errors import BadUserInput, Forbidden
from memexd.events.vocabulary import Event, Origin
from memexd.ids import uuid7_at
from memexd.memory.bulk import BulkCommands, BulkOptions, ScoreChange, ScoreRanges, Transform
from memexd.memory.filters import MemoryFilter, Range
from memexd.memory.model import NewEdge, NewItem, SortKey
from memexd.memory.records import item_json
from memexd.server.extensions import schema_extensions
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.conftest import ApiFactory
from tests.memex_session import wire

SCORES = ("authority", "conviction", "importance")
LEVELS = [0.0, 0.1, 0.5, 0.9, 1.0]
DAY = 86_400_000
#: Item times: strictly increasing, so id order is insertion order (memexd
#: breaks sort ties by id, memex-python by insertion: the same here).
_TIMES = itertools.count(time.time_ns() // 1_000_000 - 400 * DAY, 7)


# ---------------------------------------------------------------- twins


@dataclass
class Twin:
    """The same items and edges in memexd (``core``) and in memex-python (``state``)."""

    core: Memex
    scope: str = field(default_factory=lambda: f"bulk{uuid.uuid4().hex[:10]}/")
    state: memex.GraphState = field(default_factory=memex.create_graph_state)
    ids: list[str] = field(default_factory=list)

    @property
    def bulk(self) -> BulkCommands:
        return BulkCommands(self.core.graph, self.core.limits)

    async def item(self, ms: int | None = None, **fields: Any) -> str:
        draft = {
            "scope": self.scope + fields.pop("sub", "x"),
            "kind": "k",
            "content": {},
            "author": "agent:a",
            "source_kind": "observed",
            "authority": 0.5,
            **fields,
        }
        ms = next(_TIMES) if ms is None else ms
        created, _ = await self.core.items.create([NewItem(id=uuid7_at(ms), **draft)], Origin())
        record = MemexItem.model_validate(item_json(created[0]))
        self.apply({"type": "memory.create", "item": record})
        self.ids.append(created[0].id)
        return created[0].id

    def apply(self, command: dict[str, Any]) -> None:
        self.state = memex.apply_command(self.state, command).state

    async def edge(self, a: int, b: int, kind: str = "SUPPORTS", active: bool = True) -> str:
        draft = NewEdge(self.ids[a], self.ids[b], kind, "agent:a", "observed", 0.5, active=active)
        edge, events = await self.core.edges.create(draft, Origin())
        record = MemexEdge.model_validate(events[0].payload["edge"])
        self.apply({"type": "edge.create", "edge": record})
        return edge.edge_id

    async def items_now(self) -> dict[str, Any]:
        """The live items, as MemEX JSON, by id (every digit of every score)."""
        found = await self.core.item_reads.find(MemoryFilter(scope_prefix=self.scope))
        return {i.id: item_json(i) for i in found}

    def memex_items(self) -> dict[str, Any]:
        return memex_items(self.state)


def memex_items(state: memex.GraphState) -> dict[str, Any]:
    return {i.id: wire(i) for i in state.items.values()}


def texts(payloads: list[Any]) -> list[str]:
    return [json.dumps(p) for p in payloads]


async def same(core: Memex, events: list[Event], result: Any) -> None:
    """memexd's events are memex-python's, key order and numbers included
    (memory.retracted payloads read from their items, as GraphQL reads them)."""
    completed = await core.events.completed(events)
    assert texts([e.payload for e in completed]) == texts([wire(e) for e in result.events])


@pytest.fixture
def core(store: GraphStore) -> Memex:
    return Memex(store, Settings())


# ---------------------------------------------------------------- applyMany, by hypothesis


def _change(op: str) -> st.SearchStrategy[float]:
    values = {"set": LEVELS, "multiply": [0.0, 0.5, 2.0, -1.0, 1.0], "add": [-0.3, 0.0, 0.2, 1.5]}
    return st.sampled_from(values[op])


@st.composite
def transforms(draw: st.DrawFn) -> Transform:
    if draw(st.integers(0, 9)) == 0:
        return Transform(retract=True)
    changes: dict[str, dict[str, float]] = {"set": {}, "multiply": {}, "add": {}}
    for score in SCORES:
        op = draw(st.sampled_from([None, "set", "multiply", "add"]))
        if op is not None:
            changes[op][score] = draw(_change(op))
    where = None
    if draw(st.booleans()):
        bound = st.none() | st.sampled_from(LEVELS)
        where = ScoreRanges(**{
            s: Range(draw(bound), draw(bound)) for s in draw(st.sets(st.sampled_from(SCORES)))
        })  # fmt: skip
    meta = draw(st.sampled_from([None, None, {}, {"a": 2}, {"z": None, "b": {"c": 1}}]))
    return Transform(
        **{op: ScoreChange(**c) if c else None for op, c in changes.items()},
        meta_set=meta, retract_where=where,
    )  # fmt: skip


def memex_function(t: Transform) -> Callable[[MemexItem], dict[str, Any] | None]:
    """The transform as the function a MemEX caller would pass to ``apply_many``."""

    def within(item: MemexItem) -> bool:
        rngs = [(s, getattr(t.retract_where, s)) for s in SCORES]
        return all(memex.query._matches_range(getattr(item, s), r) for s, r in rngs if r)

    def clamp(v: float) -> float:
        return max(0.0, min(1.0, v))

    def fn(item: MemexItem) -> dict[str, Any] | None:
        if t.retract or (t.retract_where is not None and within(item)):
            return None
        partial: dict[str, Any] = {}
        for op in ("set", "multiply", "add"):
            change = getattr(t, op)
            for score in SCORES:
                value = None if change is None else getattr(change, score)
                current = getattr(item, score)
                if value is None:
                    continue
                if op == "set":
                    partial[score] = value
                elif op == "add":
                    partial[score] = clamp((current or 0) + value)
                elif current is not None:
                    partial[score] = clamp(current * value)
        if t.meta_set is not None:
            partial["meta"] = t.meta_set
        return partial

    return fn


@st.composite
def worlds(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 7))
    items = [
        {
            "kind": draw(st.sampled_from(["k", "j"])),
            "authority": draw(st.sampled_from(LEVELS)),
            "conviction": draw(st.none() | st.sampled_from(LEVELS)),
            "importance": draw(st.none() | st.sampled_from(LEVELS)),
            "meta": draw(st.sampled_from([None, {"a": 1}, {"b": {"c": 2}}])),
            "sub": draw(st.sampled_from(["x", "y"])),
        }
        for _ in range(n)
    ]
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans())
    sort = st.lists(st.tuples(st.sampled_from([*SCORES, "recency"]), st.booleans()), max_size=2)
    return {
        "items": items,
        "edges": draw(st.lists(pair, max_size=6)),
        "transform": draw(transforms()),
        "filter": draw(
            st.sampled_from(
                [{}, {"kind": "k"}, {"or": []}, {"sub": "y"}, {"conviction": {"min": 0.1}}]
            )
        ),
        "sort": draw(sort),
        "limit": draw(st.none() | st.integers(0, 8)),
        "offset": draw(st.none() | st.integers(0, 3)),
    }


def _filters(twin: Twin, flt: dict[str, Any]) -> tuple[MemoryFilter, dict[str, Any]]:
    """The drawn filter in memexd's and in MemEX's form."""
    ours: dict[str, Any] = {"scope_prefix": twin.scope}
    theirs: dict[str, Any] = {"scope_prefix": twin.scope}
    if "kind" in flt:
        ours["kind"] = theirs["kind"] = flt["kind"]
    if "or" in flt:
        ours["or_"], theirs["or"] = [], []
    if "sub" in flt:
        ours["scope"] = theirs["scope"] = twin.scope + flt["sub"]
    if "conviction" in flt:
        ours["conviction"] = Range(min=flt["conviction"]["min"])
        theirs["range"] = {"conviction": flt["conviction"]}
    return MemoryFilter(**ours), theirs


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(world=worlds())
async def test_apply_many_is_memex_apply_many(core: Memex, world: dict[str, Any]) -> None:
    twin = Twin(core)
    for fields in world["items"]:
        await twin.item(**fields)
    for a, b, active in world["edges"]:
        await twin.edge(a, b, active=active)
    ours, theirs = _filters(twin, world["filter"])
    sort = [SortKey(f, desc) for f, desc in world["sort"]]
    options = {"sort": [{"field": f, "order": "desc" if d else "asc"} for f, d in world["sort"]],
               "limit": world["limit"], "offset": world["offset"]}  # fmt: skip
    transform: Transform = world["transform"]
    events = await twin.bulk.apply_many(
        ours, transform, "agent:bulk", "why", BulkOptions(sort, world["limit"], world["offset"]),
        Origin(),
    )  # fmt: skip
    result = memex.apply_many(twin.state, theirs, memex_function(transform), "agent:bulk",
                              "why", options)  # fmt: skip
    await same(twin.core, events, result)
    twin.state = result.state
    assert await twin.items_now() == twin.memex_items()


# ---------------------------------------------------------------- examples


async def test_retracting_takes_the_edges_in_memex_order(core: Memex) -> None:
    """Each retracted item's edges follow its memory.retracted, in insertion
    order, a self-edge once, an edge between two retracted items with the
    first; updated items interleave in the batch's order."""
    twin = Twin(core)
    for level in (0.1, 0.9, 0.2, 0.8):
        await twin.item(authority=level)
    for a, b in ((0, 2), (2, 0), (2, 2), (1, 0), (3, 1), (1, 3)):
        await twin.edge(a, b, active=a != 1)
    transform = Transform(add=ScoreChange(conviction=0.25),
                          retract_where=ScoreRanges(authority=Range(max=0.5)))  # fmt: skip
    flt = MemoryFilter(scope_prefix=twin.scope)
    options = BulkOptions([SortKey("authority", True)])
    events = await twin.bulk.apply_many(flt, transform, "agent:b", None, options, Origin())
    by_authority = {"sort": {"field": "authority", "order": "desc"}}
    theirs = {"scope_prefix": twin.scope}
    result = memex.apply_many(
        twin.state, theirs, memex_function(transform), "agent:b", None, by_authority
    )
    await same(twin.core, events, result)
    # 1 and 3 (authority > 0.5) updated; 2 with its three edges; 0 with the one left
    assert [e.type for e in events] == ["memory.updated", "memory.updated", "memory.retracted",
        "edge.retracted", "edge.retracted", "edge.retracted", "memory.retracted",
        "edge.retracted"]  # fmt: skip
    assert await twin.items_now() == memex_items(result.state)


async def test_bulk_adjust_scores_is_memex(core: Memex) -> None:
    twin = Twin(core)
    await twin.item(authority=0.95, conviction=None, importance=0.1)
    await twin.item(authority=0.05, conviction=0.5)
    await twin.item(kind="other")
    delta = ScoreChange(authority=0.1, conviction=-0.7, importance=0.0)
    flt = MemoryFilter(scope_prefix=twin.scope, kind="k")
    events = await twin.bulk.adjust_scores(flt, delta, "system:decay", None, Origin())
    result = memex.bulk_adjust_scores(twin.state, {"scope_prefix": twin.scope, "kind": "k"},
        {"authority": 0.1, "conviction": -0.7, "importance": 0.0}, "system:decay")  # fmt: skip
    await same(twin.core, events, result)
    assert await twin.items_now() == memex_items(result.state)
    assert await twin.bulk.adjust_scores(flt, ScoreChange(), "u", None, Origin()) == []


async def test_decay_importance_is_memex(core: Memex) -> None:
    """Items older than the threshold (exclusive) with importance above 0."""
    twin = Twin(core)
    now = time.time_ns() // 1_000_000
    for age, importance in ((9, 0.8), (8, None), (7, 0.0), (6, 1.0), (2, 0.6), (0, 0.6)):
        await twin.item(ms=now - age * DAY - 60_000, importance=importance)
    threshold = 5 * DAY
    with mock.patch.object(memex._time, "now_ms", return_value=time.time_ns() // 1_000_000):
        result = memex.decay_importance(twin.state, threshold, 0.5, "system:decay")
        events = await twin.bulk.decay_importance(threshold, 0.5, "system:decay", None, Origin())
    await same(twin.core, events, result)
    assert [e.reason for e in events] == ["time-based importance decay"] * 2
    assert await twin.items_now() == memex_items(result.state)
    subscope = MemoryFilter(scope_prefix=twin.scope + "x")
    again = await twin.bulk.decay_importance(threshold, 3.0, "u", "r", Origin(), subscope)
    assert [e.payload["item"]["importance"] for e in again] == [1.0, 1.0]  # 1.2, 1.5 clamped


async def test_concurrent_bulk_writers_all_count(core: Memex) -> None:
    """Compare-and-set: eight racing adjustments of the same items all land."""
    twin = Twin(core)
    for _ in range(3):
        await twin.item(authority=0.0)
    flt = MemoryFilter(scope_prefix=twin.scope)
    await asyncio.gather(*(
        twin.bulk.adjust_scores(flt, ScoreChange(authority=0.125), "u", None, Origin())
        for _ in range(8)
    ))  # fmt: skip
    assert {i["authority"] for i in (await twin.items_now()).values()} == {1.0}
    log = await core.events.list(None, None, None)
    assert sum(e.type == "memory.updated" for e in log) == 24


async def test_bad_transforms_are_refused_before_anything_is_read(core: Memex) -> None:
    twin = Twin(core)
    await twin.item()
    flt = MemoryFilter(scope_prefix=twin.scope)
    bad: list[tuple[Transform, BulkOptions | None, str]] = [
        (Transform(set=ScoreChange(authority=1.5)), None, "transform.set.authority"),
        (Transform(add=ScoreChange(conviction="x")), None, "transform.add.conviction"),
        (Transform(multiply=ScoreChange(importance=float("inf"))), None, "transform.multiply"),
        (Transform(set=ScoreChange(authority=1.0), add=ScoreChange(authority=0.1)), None,
         "transform.add.authority"),
        (Transform(retract=True, meta_set={"a": 1}), None, "transform.retract"),
        (Transform(retract=True, retract_where=ScoreRanges()), None, "transform.retract"),
        (Transform(retract="yes"), None, "transform.retract"),
        (Transform(meta_set=[1]), None, "transform.metaSet"),
        (Transform(retract_where=ScoreRanges(authority=Range(min="a"))), None,
         "transform.retractWhere.authority.min"),
        (Transform(retract=True), BulkOptions(limit=-1), "options.limit"),
        (Transform(retract=True), BulkOptions(limit=10**9), "options.limit"),
        (Transform(retract=True), BulkOptions(offset=10**9), "options.offset"),
        (Transform(retract=True), BulkOptions(sort=[SortKey("size")]), "sort"),
    ]  # fmt: skip
    with mock.patch.object(core.graph.store, "read", side_effect=AssertionError("a read")):
        for transform, options, where in bad:
            with pytest.raises(BadUserInput, match=where.replace(".", r"\.")):
                await twin.bulk.apply_many(flt, transform, "u", None, options, Origin())
        for older, factor in ((float("nan"), 0.5), (1.0, float("inf")), (None, 0.5)):
            with pytest.raises(BadUserInput):
                await twin.bulk.decay_importance(older, factor, "u", None, Origin())
        with pytest.raises(BadUserInput, match="author"):
            await twin.bulk.apply_many(flt, Transform(retract=True), "", None, None, Origin())
    assert len(await twin.items_now()) == 1


async def test_the_batch_limit_bounds_one_call(store: GraphStore) -> None:
    core = Memex(store, Settings(max_batch=3))
    twin = Twin(core)
    for _ in range(4):
        await twin.item()
    flt = MemoryFilter(scope_prefix=twin.scope)
    with pytest.raises(BadUserInput, match="more than 3 items"):
        await twin.bulk.apply_many(flt, Transform(retract=True), "u", None, None, Origin())
    with pytest.raises(BadUserInput, match=r"options\.limit"):
        await twin.bulk.apply_many(flt, Transform(retract=True), "u", None, BulkOptions(limit=4),
                                   Origin())  # fmt: skip
    assert len(await twin.items_now()) == 4
    done = await twin.bulk.apply_many(flt, Transform(retract=True), "u", None,
                                      BulkOptions(limit=3, offset=1), Origin())  # fmt: skip
    assert [e.subject for e in done] == twin.ids[1:]


async def test_writing_needs_a_grant_on_every_changed_item(core: Memex) -> None:
    """FORBIDDEN for the whole call, as every multi-item command; unreadable
    items are never matched; items left unchanged need no grant."""
    twin = Twin(core)
    mine = await twin.item(sub="a", importance=0.5)
    theirs = await twin.item(sub="b", importance=0.5)
    await twin.item(sub="b", importance=None)
    await twin.edge(0, 1)
    await twin.edge(0, 2)
    flt = MemoryFilter(scope_prefix=twin.scope)
    reader = core.as_caller(Access.of("r", [parse_grant(f"read:{twin.scope}"),
                                            parse_grant(f"write:{twin.scope}a")]))  # fmt: skip
    bulk = BulkCommands(reader.graph, reader.limits)
    before = await twin.items_now()
    with pytest.raises(Forbidden, match=f"{twin.scope}b"):
        await bulk.apply_many(flt, Transform(retract=True), "u", None, None, Origin())
    with pytest.raises(Forbidden):
        await bulk.decay_importance(0, 0.5, "u", None, Origin())
    assert await twin.items_now() == before
    unscored = MemoryFilter(scope_prefix=twin.scope, not_=MemoryFilter(importance=Range(0.0)))
    keep = Transform(multiply=ScoreChange(importance=2.0))  # a missing score stays missing
    assert await bulk.apply_many(unscored, keep, "u", None, None, Origin()) == []
    only_a = core.as_caller(Access.of("a", [parse_grant(f"write:{twin.scope}a")]))
    events = await BulkCommands(only_a.graph, only_a.limits).apply_many(
        None, Transform(retract=True), "u", None, None, Origin())  # fmt: skip
    assert [e.type for e in events] == ["memory.retracted"]  # its edges reach b: not shown
    logged = [e.type for e in await core.events.list(None, None, None)][-3:]
    assert logged == ["memory.retracted", "edge.retracted", "edge.retracted"]
    hidden = core.as_caller(Access.of("h", [parse_grant(f"write:{twin.scope}b")]))
    got = await BulkCommands(hidden.graph, hidden.limits).apply_many(
        flt, Transform(set=ScoreChange(authority=1.0)), "u", None, None, Origin())  # fmt: skip
    assert [e.subject for e in got] == twin.ids[1:]
    left = await twin.items_now()
    assert mine not in left
    assert theirs in left


# ---------------------------------------------------------------- GraphQL


def _schema(settings: Settings | None = None) -> strawberry.Schema:
    """The app's schema; until the root types serve this issue's fields
    (schema/query.py, schema/mutation.py), the same with them added."""
    schema = build.build_schema(settings)
    if "applyMany" in schema._schema.mutation_type.fields:
        return schema

    @strawberry.type(name="Query", description="Query, with stats.")
    class WiredQuery(Query):
        stats: GraphStats = strawberry.field(resolver=stats_r.stats, description="Counts.")

    @strawberry.type(name="Mutation", description="Mutation, with the bulk transforms.")
    class WiredMutation(Mutation):
        apply_many: EventsResult = strawberry.mutation(
            resolver=bulk_r.apply_many, description="applyMany"
        )
        bulk_adjust_scores: EventsResult = strawberry.mutation(
            resolver=bulk_r.bulk_adjust_scores, description="bulkAdjustScores"
        )
        decay_importance: EventsResult = strawberry.mutation(
            resolver=bulk_r.decay_importance, description="decayImportance"
        )

    extensions = schema_extensions(settings or Settings())
    return build._Schema(query=WiredQuery, mutation=WiredMutation, extensions=extensions)


@pytest.fixture
def wired(make_api: ApiFactory, monkeypatch: pytest.MonkeyPatch) -> ApiFactory:
    """``make_api`` whose app serves applyMany, bulkAdjustScores, decayImportance and stats."""
    monkeypatch.setattr(view_module, "build_schema", _schema)
    return make_api


APPLY = """
mutation($f: MemoryFilter, $t: ItemTransformInput!, $o: BulkOptions, $a: String!) {
  applyMany(filter: $f, transform: $t, author: $a, reason: "tidy", options: $o) {
    events { id type author reason payload }
  }
}
"""
ADJUST = """
mutation($f: MemoryFilter, $d: ScoreAdjustment!) {
  bulkAdjustScores(filter: $f, delta: $d, author: "system:x") { events { type payload } }
}
"""
DECAY = """
mutation($age: Float!, $factor: Float!, $f: MemoryFilter) {
  decayImportance(olderThanMs: $age, factor: $factor, author: "system:x", filter: $f) {
    events { type reason payload }
  }
}
"""
LOG = "{ events(limit: 100) { id type payload } }"


async def test_apply_many_over_graphql(wired: ApiFactory) -> None:
    api = await wired()
    low = await api.create(scope="g/a", importance=0.2, meta={"k": {"x": 1}, "j": 1})
    high = await api.create(scope="g/b", importance=0.9)
    await api.create(scope="h")
    transform = {"multiply": {"importance": 0.5}, "metaSet": {"hot": True, "k": 2}}
    options = {"sort": [{"field": "IMPORTANCE", "order": "DESC"}], "limit": 5}
    got = await api.ok(APPLY, f={"scopePrefix": "g/"}, t=transform, o=options, a="agent:t")
    events = got["applyMany"]["events"]
    assert [e["payload"]["item"]["id"] for e in events] == [high["id"], low["id"]]
    assert [e["payload"]["item"]["importance"] for e in events] == [0.45, 0.1]
    assert events[1]["payload"]["item"]["meta"] == {"k": 2, "j": 1, "hot": True}
    assert {(e["author"], e["reason"]) for e in events} == {("agent:t", "tidy")}
    logged = (await api.ok(LOG))["events"][-2:]
    assert [(e["id"], e["payload"]) for e in logged] == [(e["id"], e["payload"]) for e in events]
    found = await api.ok('{ items(filter: {metaHas: ["hot"]}) { id } }')
    assert {i["id"] for i in found["items"]} == {low["id"], high["id"]}
    meta_paths = "query($f: MemoryFilter) { items(filter: $f) { id } }"
    for flt, ids in (({"k": 2, "j": 1}, [low["id"]]), ({"k.x": 1}, []), ({"k": {"x": 1}}, [])):
        assert [i["id"] for i in (await api.ok(meta_paths, f={"meta": flt}))["items"]] == ids
    adjusted = await api.ok(ADJUST, f={"scope": "h"}, d={"conviction": 0.3})
    assert [e["payload"]["item"]["conviction"] for e in adjusted["bulkAdjustScores"]["events"]] \
        == [0.3]  # fmt: skip
    decayed = await api.ok(DECAY, age=0, factor=0.5, f={"scopePrefix": "g/"})
    assert len(decayed["decayImportance"]["events"]) == 2
    retracted = await api.ok(APPLY, t={"retract": True}, f={"scope": "h"}, a="u")
    assert [e["type"] for e in retracted["applyMany"]["events"]] == ["memory.retracted"]


async def test_bad_bulk_input_changes_nothing(wired: ApiFactory) -> None:
    api = await wired(max_batch=2)
    for _ in range(3):
        await api.create(scope="z")
    calls: list[tuple[str, dict[str, Any]]] = [
        (APPLY, {"t": {"set": {"authority": 2}}, "a": "u"}),
        (APPLY, {"t": {"set": {"authority": 1}, "multiply": {"authority": 1}}, "a": "u"}),
        (APPLY, {"t": {"retract": True, "add": {"importance": 0.1}}, "a": "u"}),
        (APPLY, {"t": {"metaSet": "x"}, "a": "u"}),
        (APPLY, {"t": {"retract": True}, "a": ""}),
        (APPLY, {"t": {"retract": True}, "a": "u", "f": {"ids": ["nope"]}}),
        (APPLY, {"t": {"retract": True}, "a": "u"}),  # three items: over the batch of 2
        (APPLY, {"t": {"retract": True}, "a": "u", "o": {"limit": 3}}),
        (APPLY, {"t": {"retract": True}, "a": "u", "o": {"offset": -1}}),
        (ADJUST, {"d": {"authority": 0.1}}),
        (DECAY, {"age": 0, "factor": 0.5, "f": {"or": [{"range": {"authority": {"min": 0}}}]}}),
    ]
    for query, variables in calls:
        await api.create(scope="other", importance=0.5)  # decayImportance: more each time
        before = await api.snapshot()
        query_vars = {"f": {"scope": "z"}, **variables} if query is not DECAY else variables
        assert await api.codes(query, **query_vars) == ["BAD_USER_INPUT"], variables
        assert await api.snapshot() == before


async def test_bulk_over_graphql_needs_write_grants(wired: ApiFactory) -> None:
    api = await wired()
    await api.create(scope="t:a/1", importance=0.5)
    await api.create(scope="t:b/1", importance=0.5)
    before = await api.snapshot()
    reader = api.with_grants("read:t:", "write:t:a/")
    assert await reader.codes(DECAY, age=0, factor=0.1) == ["FORBIDDEN"]
    assert await reader.codes(APPLY, t={"retract": True}, a="u") == ["FORBIDDEN"]
    assert await api.snapshot() == before
    ok = await reader.ok(DECAY, age=0, factor=0.1, f={"scopePrefix": "t:a/"})
    assert len(ok["decayImportance"]["events"]) == 1
