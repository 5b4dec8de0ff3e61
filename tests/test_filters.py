"""MemoryFilter and sorting: examples per field, then properties against MemEX.

The reference is memex-python's own ``matches_filter``, run on the same items
(docs/filters.md lists the rules and the deliberate differences). Its clock is
pinned to the time the test sends each filter, so decay agrees too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import memex._time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memex.models import MemoryFilter as MemexFilter
from memex.models import MemoryItem as MemexItem
from memex.query import matches_filter

from memexd.ids import uuid7_at
from tests.reference import sort_key
from tests.support import ITEM_FIELDS, Api

FIND = f"""
query($f: MemoryFilter, $sort: [SortOption!], $limit: Int, $offset: Int) {{
  items(filter: $f, sort: $sort, limit: $limit, offset: $offset) {{ {ITEM_FIELDS} }}
}}
"""
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"

SCOPES = ["user:a/general", "user:a/work", "project:x", "project:x/sub"]
PREFIXES = ["user:", "user:a/", "project:x", "proj", "none", ""]
KINDS = ["observation", "assertion", "hypothesis"]
AUTHORS = ["user:a", "agent:r", "agent:s"]
SOURCES = ["observed", "agent_inferred"]
SCORES = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
INTENTS = ["01900000-0000-7000-8000-00000000aa01", "01900000-0000-7000-8000-00000000aa02"]
MISSING = "01900000-0000-7000-8000-00000000ffff"
#: No path holds both a boolean and a number: Python's ``True == 1`` is an
#: artefact of the port that memexd does not copy (see the example test).
META_VALUES: dict[str, list[Any]] = {
    "agent_id": ["agent:r", "agent:s", "agent:t"],
    "tags.env": ["prod", "dev"],
    "n": [1, 2, 2.5, 2.0],
    "flag": [True, False],
    "list": [[1, 2], [2, 1], []],
    "obj": [{"a": 1}, {"a": 2}, {}],
    "nullv": [None],
    "tags": [{"env": "prod"}, {"env": "dev", "x": 1}],
}
CAMEL = {
    "scopePrefix": "scope_prefix", "sourceKind": "source_kind", "intentId": "intent_id",
    "intentIds": "intent_ids", "taskId": "task_id", "taskIds": "task_ids",
    "hasParent": "has_parent", "isRoot": "is_root", "metaHas": "meta_has",
    "includesAny": "includes_any", "includesAll": "includes_all",
}  # fmt: skip

HOUR = 3_600_000


def dataset(seed: int = 7) -> list[dict[str, Any]]:
    """GraphQL inputs; about one in five has no ``parents`` list at all."""
    rng = random.Random(seed)
    now = time.time_ns() // 1_000_000
    rows: list[dict[str, Any]] = []
    for i in range(40):
        ms = now + 24 * HOUR if i == 39 else now - rng.randint(0, 24 * 40) * HOUR - i
        earlier = [r["id"] for r in rows]
        parents = rng.sample(earlier, k=min(len(earlier), rng.choice([0, 0, 1, 2])))
        if rng.random() < 0.15:
            parents.append(MISSING)
        meta: dict[str, Any] = {}
        if rng.random() < 0.6:
            meta["agent_id"] = rng.choice(META_VALUES["agent_id"])
        if rng.random() < 0.5:
            meta["tags"] = {"env": rng.choice(["prod", "dev"])}
        for key in ("n", "flag", "list", "obj", "nullv"):
            if rng.random() < 0.3:
                meta[key] = rng.choice(META_VALUES[key])
        row = {
            "id": uuid7_at(ms),
            "scope": rng.choice(SCOPES),
            "kind": rng.choice(KINDS),
            "content": {"i": i},
            "author": rng.choice(AUTHORS),
            "sourceKind": rng.choice(SOURCES),
            "authority": rng.choice(SCORES),
            "conviction": rng.choice([*SCORES, None]),
            "importance": rng.choice([*SCORES, None]),
            "intentId": rng.choice([*INTENTS, None]),
            "taskId": rng.choice([*INTENTS, None]),
            "parents": parents,
            "meta": meta or None,
        }  # fmt: skip
        if not parents and rng.random() < 0.5:
            del row["parents"]
        rows.append(row)
    return rows


def memex_item(row: dict[str, Any]) -> MemexItem:
    """The same item in memex-python."""
    fields = {CAMEL.get(k, k): v for k, v in row.items() if v is not None}
    fields["created_at"] = int(row["id"][:8] + row["id"][9:13], 16)
    return MemexItem.model_validate(fields)


async def seeded(api: Api) -> list[dict[str, Any]]:
    """Create the dataset once per test; return items as GraphQL returns them,
    each with ``_ms`` (its time) and ``_memex`` (the same item in memex-python)."""
    if not hasattr(api, "_items"):
        rows = dataset()
        await api.ok(CREATE, i=rows)
        items = (await api.ok(FIND))["items"]
        by_id = {row["id"]: memex_item(row) for row in rows}
        for item in items:
            item["_ms"] = int(item["id"][:8] + item["id"][9:13], 16)
            item["_memex"] = by_id[item["id"]]
        api._items = items  # type: ignore[attr-defined]
    items: list[dict[str, Any]] = api._items  # type: ignore[attr-defined]
    return items


@contextmanager
def clock(now: int) -> Iterator[None]:
    with mock.patch.object(memex._time, "now_ms", return_value=now):
        yield


async def check(api: Api, flt: dict[str, Any], items: list[dict[str, Any]]) -> None:
    """memexd answers what memex-python's ``matches_filter`` says."""
    now = time.time_ns() // 1_000_000
    got = [i["id"] for i in (await api.ok(FIND, f=_wire(flt)))["items"]]
    reference = MemexFilter.model_validate(to_memex(flt))
    with clock(now):
        want = sorted(i["id"] for i in items if matches_filter(i["_memex"], reference))
    assert got == want, flt


def to_memex(flt: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL filter as MemEX's snake_case filter (times in ms)."""
    out: dict[str, Any] = {}
    for key, value in flt.items():
        if key == "not":
            out["not"] = to_memex(value)
        elif key == "or":
            out["or"] = [to_memex(o) for o in value]
        elif key == "created":
            out["created"] = {b: value[f"_{b}_ms"] for b in ("before", "after") if b in value}
        elif key == "decay":
            config = value["config"]
            out["decay"] = {"min": value["min"], "config": {
                "rate": config["rate"], "interval": config["interval"].lower(),
                "type": config["type"].lower()}}  # fmt: skip
        elif key == "parents":
            out["parents"] = {CAMEL.get(k, k): v for k, v in value.items()}
        else:
            out[CAMEL.get(key, key)] = value
    return out


def _wire(flt: Any) -> Any:
    """Drop the test's private keys before sending a filter."""
    if isinstance(flt, dict):
        return {k: _wire(v) for k, v in flt.items() if not k.startswith("_")}
    if isinstance(flt, list):
        return [_wire(v) for v in flt]
    return flt


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()


async def test_every_filter_field(api: Api) -> None:
    items = await seeded(api)
    some = [items[3]["id"], items[17]["id"], MISSING]
    mid = sorted(i["_ms"] for i in items)[20]
    examples: list[dict[str, Any]] = [
        {}, {"ids": some}, {"ids": []}, {"scope": "project:x"}, {"scopePrefix": "user:a/"},
        {"scopePrefix": ""}, {"scope": ""}, {"author": ""},
        {"author": "agent:r"}, {"kind": "hypothesis"}, {"sourceKind": "observed"},
        {"intentId": INTENTS[0]}, {"intentIds": INTENTS}, {"intentIds": []},
        {"taskId": INTENTS[1]}, {"taskIds": [INTENTS[1]]},
        {"range": {"authority": {"min": 0.25, "max": 0.75}}},
        {"range": {"conviction": {"min": 0.5}, "importance": {"max": 0.1}}},
        {"range": {"conviction": {}}}, {"not": {"range": {"importance": {"max": 0.5}}}},
        {"hasParent": items[0]["id"]}, {"isRoot": True}, {"isRoot": False},
        {"not": {"isRoot": True}}, {"parents": {"includes": MISSING}},
        {"parents": {"includesAny": [items[0]["id"], items[1]["id"]]}},
        {"parents": {"includesAll": [items[0]["id"], items[1]["id"]]}},
        {"parents": {"includesAll": []}}, {"parents": {"includesAny": []}},
        {"parents": {"count": {"min": 2}}}, {"parents": {"count": {"max": 0}}},
        {"not": {"parents": {"count": {"max": 0}}}},
        {"decay": {"config": {"rate": 0.1, "interval": "DAY", "type": "EXPONENTIAL"}, "min": 0.3}},
        {"decay": {"config": {"rate": 0.05, "interval": "DAY", "type": "LINEAR"}, "min": 0.5}},
        {"decay": {"config": {"rate": 0.5, "interval": "WEEK", "type": "STEP"}, "min": 0.2}},
        {"decay": {"config": {"rate": 1.0, "interval": "HOUR", "type": "STEP"}, "min": 1.0}},
        {"created": {"before": iso(mid), "_before_ms": mid}},
        {"created": {"after": iso(mid), "_after_ms": mid}},
        {"created": {"after": iso(mid), "_after_ms": mid, "before": iso(mid), "_before_ms": mid}},
        {"meta": {"agent_id": "agent:r"}}, {"meta": {"tags.env": "prod"}},
        {"meta": {"tags": {"env": "prod"}}}, {"meta": {"n": 2}}, {"meta": {"n": 2.0}},
        {"meta": {"flag": True}}, {"meta": {"list": [1, 2]}}, {"meta": {"obj": {}}},
        {"meta": {"obj": {"a": 1}}}, {"meta": {"nullv": None}}, {"meta": {}},
        {"metaHas": ["agent_id"]}, {"metaHas": ["tags.env", "nullv"]}, {"metaHas": []},
        {"not": {"meta": {"agent_id": "agent:r"}}},
        {"metaHas": ["agent_id"], "not": {"meta": {"agent_id": "agent:r"}}},
        {"or": [{"kind": "observation"}, {"kind": "assertion"}]},
        {"not": {"or": [{"kind": "hypothesis"}, {"scopePrefix": "project:"}]}},
        {"or": []}, {"not": {"or": []}}, {"kind": "assertion", "or": []}, {"not": {}},
        {"or": [{"or": []}, {"kind": "nothing"}]},
    ]  # fmt: skip
    for flt in examples:
        await check(api, flt, items)


async def test_the_three_rules_memexd_once_got_wrong(api: Api) -> None:
    """A missing score is outside every range (not 0); ``created.after`` is
    inclusive; ``or: []`` matches everything. Each side of each boundary."""
    bare = await api.create(kind="rules")
    zero = await api.create(kind="rules", conviction=0.0, importance=0.0)
    both = sorted([bare["id"], zero["id"]])

    async def ids(flt: dict[str, Any]) -> list[str]:
        found = await api.ok(FIND, f={"kind": "rules", **flt})
        return [i["id"] for i in found["items"]]

    assert await ids({"range": {"conviction": {"max": 0.5}}}) == [zero["id"]]
    assert await ids({"range": {"importance": {"min": 0.0}}}) == [zero["id"]]
    assert await ids({"not": {"range": {"conviction": {"max": 0.5}}}}) == [bare["id"]]
    at = int(zero["id"][:8] + zero["id"][9:13], 16)
    assert zero["id"] in await ids({"created": {"after": iso(at)}})
    assert zero["id"] not in await ids({"created": {"after": iso(at + 1)}})
    assert zero["id"] not in await ids({"created": {"before": iso(at)}})
    assert zero["id"] in await ids({"created": {"before": iso(at + 1)}})
    assert await ids({"or": []}) == both
    assert await ids({"not": {"or": []}}) == []


async def test_an_item_without_a_parents_list_is_a_root(api: Api) -> None:
    """MemEX reads absent ``parents`` as none (``item.parents or []``)."""
    absent = await api.create(kind="roots")
    empty = await api.create(kind="roots", parents=[])
    child = await api.create(kind="roots", parents=[absent["id"]])

    async def ids(flt: dict[str, Any]) -> set[str]:
        found = await api.ok(FIND, f={"kind": "roots", **flt})
        return {i["id"] for i in found["items"]}

    roots = {absent["id"], empty["id"]}
    assert await ids({"isRoot": True}) == roots
    assert await ids({"parents": {"count": {"max": 0}}}) == roots
    assert await ids({"not": {"isRoot": True}}) == {child["id"]}
    assert await ids({"isRoot": False}) == {child["id"]}


async def test_meta_values_compare_as_json_not_as_python(api: Api) -> None:
    """A deliberate difference: memex-python's ``True == 1`` lets ``{flag: 1}``
    match ``flag: true``; memexd compares JSON values (``1`` and ``1.0`` are
    equal, ``true`` and ``1`` are not), as the TypeScript MemEX does."""
    yes = await api.create(kind="json", meta={"flag": True})
    one = await api.create(kind="json", meta={"flag": 1.0})

    async def ids(value: Any) -> list[str]:
        found = await api.ok(FIND, f={"kind": "json", "meta": {"flag": value}})
        return [i["id"] for i in found["items"]]

    assert await ids(True) == [yes["id"]]
    assert await ids(1) == [one["id"]]
    assert await ids([True]) == []


def _leaf(items: list[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    ids = [i["id"] for i in items] + [MISSING]
    times = sorted(i["_ms"] for i in items)
    score = st.sampled_from([None, *SCORES])
    rng = st.fixed_dictionaries({}, optional={"min": score, "max": score}).map(
        lambda r: {k: v for k, v in r.items() if v is not None}
    )
    meta_pair = st.sampled_from(sorted(META_VALUES)).flatmap(
        lambda p: st.sampled_from(META_VALUES[p]).map(lambda v: {"meta": {p: v}})
    )
    created = st.sampled_from(times).flatmap(
        lambda ms: st.sampled_from([
            {"created": {"before": iso(ms), "_before_ms": ms}},
            {"created": {"after": iso(ms), "_after_ms": ms}},
        ])
    )  # fmt: skip
    decay = st.fixed_dictionaries({
        "config": st.fixed_dictionaries({
            "rate": st.sampled_from([0.0, 0.05, 0.3, 1.0]),
            "interval": st.sampled_from(["HOUR", "DAY", "WEEK"]),
            "type": st.sampled_from(["EXPONENTIAL", "LINEAR", "STEP"]),
        }),
        "min": st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]),
    }).map(lambda d: {"decay": d})  # fmt: skip
    return st.one_of(
        st.sampled_from(SCOPES).map(lambda v: {"scope": v}),
        st.sampled_from(PREFIXES).map(lambda v: {"scopePrefix": v}),
        st.sampled_from(AUTHORS).map(lambda v: {"author": v}),
        st.sampled_from(KINDS).map(lambda v: {"kind": v}),
        st.sampled_from(SOURCES).map(lambda v: {"sourceKind": v}),
        st.lists(st.sampled_from(ids), max_size=4).map(lambda v: {"ids": v}),
        st.sampled_from(INTENTS).map(lambda v: {"intentId": v}),
        st.lists(st.sampled_from(INTENTS), max_size=2).map(lambda v: {"taskIds": v}),
        st.fixed_dictionaries(
            {}, optional={"authority": rng, "conviction": rng, "importance": rng}
        ).map(lambda r: {"range": r}),
        st.sampled_from(ids).map(lambda v: {"hasParent": v}),
        st.booleans().map(lambda v: {"isRoot": v}),
        st.lists(st.sampled_from(ids), max_size=3).flatmap(
            lambda v: st.sampled_from(
                [{"parents": {"includesAny": v}}, {"parents": {"includesAll": v}}]
            )
        ),
        st.fixed_dictionaries(
            {}, optional={"min": st.integers(0, 3), "max": st.integers(0, 3)}
        ).map(lambda r: {"parents": {"count": r}}),
        decay,
        created,
        meta_pair,
        st.lists(
            st.sampled_from(["agent_id", "tags.env", "tags", "nullv", "obj.a", "zz"]), max_size=2
        ).map(lambda v: {"metaHas": v}),
    )


def _filters(items: list[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    def merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in parts:
            out.update(part)
        return out

    base = st.lists(_leaf(items), min_size=1, max_size=3).map(merged)
    return st.recursive(
        base,
        lambda inner: st.one_of(
            st.tuples(base, inner).map(lambda t: {**t[0], "not": t[1]}),
            st.lists(inner, max_size=3).map(lambda subs: {"or": subs}),
            st.tuples(base, st.lists(inner, max_size=2)).map(lambda t: {**t[0], "or": t[1]}),
        ),
        max_leaves=8,
    )


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
async def test_random_filters_match_memex(api: Api, data: st.DataObject) -> None:
    items = await seeded(api)
    await check(api, data.draw(_filters(items)), items)


SORT_OPTION = st.fixed_dictionaries({
    "field": st.sampled_from(["AUTHORITY", "CONVICTION", "IMPORTANCE", "RECENCY"]),
    "order": st.sampled_from(["ASC", "DESC"]),
})  # fmt: skip


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(sort=st.lists(SORT_OPTION, max_size=3), limit=st.integers(0, 45), offset=st.integers(0, 45))
async def test_sort_and_paging_match_the_reference(
    api: Api, sort: list[dict[str, str]], limit: int, offset: int
) -> None:
    items = await seeded(api)
    got = await api.ok(FIND, sort=sort, limit=limit, offset=offset)
    want = [i["id"] for i in sorted(items, key=sort_key(sort))][offset : offset + limit]
    assert [i["id"] for i in got["items"]] == want


async def test_filter_values_that_cannot_be_used_are_rejected(api: Api) -> None:
    before = await api.snapshot()
    decay = {"rate": 0.1, "interval": "DAY", "type": "LINEAR"}
    bad: list[dict[str, Any]] = [
        {"meta": {"a b": 1}}, {"meta": {"a..b": 1}}, {"metaHas": ["x`y"]},
        {"metaHas": ["." * 3]}, {"meta": [1, 2]}, {"ids": ["nope"]},
        {"hasParent": "nope"}, {"parents": {"includesAll": ["x"]}},
        {"decay": {"config": {**decay, "rate": 2}, "min": 0.5}},
        {"decay": {"config": decay, "min": 1.5}}, {"decay": {"config": decay, "min": -0.1}},
        {"or": [{"not": {"intentIds": ["bad"]}}]}, {"scope": "a\nb"},
    ]  # fmt: skip
    for flt in bad:
        assert await api.codes(FIND, f=flt) == ["BAD_USER_INPUT"], flt
    assert await api.codes(FIND, limit=-1) == ["BAD_USER_INPUT"]
    assert await api.codes(FIND, limit=10_000_000) == ["BAD_USER_INPUT"]
    assert await api.codes(FIND, sort=[{"field": "SIZE", "order": "ASC"}]) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
