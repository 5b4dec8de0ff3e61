"""Index-backed filters: prefix ranges, indexed meta keys and banded top-k
give the same answers as the plain predicates, and the engine plans them as
index scans."""

from __future__ import annotations

from typing import Any

import pytest
from falkordb.asyncio import FalkorDB

from memexd.graph import Graph
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.falkordb_wire import encode_params
from memexd.graph.migrations import migrate
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.indexed import Bands, prefix_below
from memexd.memory.model import SortKey
from memexd.memory.reads import ItemReads
from memexd.memory.validation import Limits
from memexd.recall.model import DIMENSION
from memexd.settings import Settings
from memexd.types import Params, Row
from tests.neo4j_server import explain, seeks
from tests.support import Api, CountingStore

FIND = """query($f: MemoryFilter, $sort: [SortOption!], $limit: Int) {
  items(filter: $f, sort: $sort, limit: $limit) { id scope authority importance } }"""
SCOPES = ["a", "a/b", "a/b/c", "a/bc", "a/c", "a/a", "b", "é/ß", "a/\ud7ff", "a/\ue000x",
          "a/\U0001f600", "a\U0010ffff", "ab", "/a", "/"]  # fmt: skip


def test_prefix_bounds() -> None:
    assert prefix_below("a/b") == "a/c"
    assert prefix_below("") is None
    assert prefix_below("a\ud7fe") == "a\ud7ff"
    assert prefix_below("a\ud7ff") is None  # past it, code points and UTF-16 disagree
    assert prefix_below("a\U0001f600") is None


def lows(bands: Bands, held: list[int]) -> list[tuple[float, bool]]:
    """Each band's bound and narrowness, told the counts ``held``."""
    out = []
    for band, count in zip(bands, held, strict=False):
        out.append((band.low, band.narrow))
        bands.held(count)
    return out


def test_bands_grow_from_what_they_held_and_stay_above_zero() -> None:
    empty = lows(Bands("authority", 0, 10), [0] * 5)
    widths = [1 / 1024, 8 / 1024, 64 / 1024, 512 / 1024]  # x8 after each empty band
    assert empty == [(1 - w, k < 2) for k, w in enumerate(widths)]  # then past 0
    held = [9, 1, 0, 8, 0]
    minutes = [(10**12 - b) / 60_000 for b, _ in lows(Bands("recency", 10**12, 10), held)]
    assert minutes == [1, 2, 2 * 15, 2 * 15 * 8, 2 * 15 * 8 * 2]  # x2 (at least), x15, x8, x2
    assert [n for _, n in lows(Bands("recency", 0, 10), held)] == [True, True, True, False, True]
    assert list(Bands("unknown", 0, 10)) == []


PREFIXES = ["", "a", "a/", "a/b", "a/\ud7ff", "a/\ue000", "é", "é/", "b/", "/", "/a", "a\U0010ffff",
            "a/\U0001f600", "zz"]  # fmt: skip


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_a_prefix_range_matches_starts_with(api: Api, prefix: str) -> None:
    for scope in SCOPES:
        await api.create(scope=scope)
    got = await api.ok(FIND, f={"scopePrefix": prefix}, limit=100)
    assert sorted(i["scope"] for i in got["items"]) == sorted(
        s for s in SCOPES if s.startswith(prefix)
    )
    negated = await api.ok(FIND, f={"not": {"scopePrefix": prefix}}, limit=100)
    assert sorted(i["scope"] for i in negated["items"]) == sorted(
        s for s in SCOPES if not s.startswith(prefix)
    )


async def test_indexed_meta_keys_filter_as_any_other(api: Api) -> None:
    metas: list[dict[str, Any]] = [{"agent_id": "x"}, {"agent_id": 1}, {"agent_id": True},
                                   {"agent_id": {"n": 1}}, {"session_id": "x"}, {}]  # fmt: skip
    made = [(await api.create(meta=m))["id"] for m in metas]
    for value, want in (("x", [made[0]]), (1, [made[1]]), (True, [made[2]]),
                        ({"n": 1}, [made[3]])):  # fmt: skip
        got = await api.ok(FIND, f={"meta": {"agent_id": value}}, limit=100)
        assert [i["id"] for i in got["items"]] == want
    got = await api.ok(FIND, f={"not": {"meta": {"session_id": "x"}}}, limit=100)
    assert {i["id"] for i in got["items"]} == set(made) - {made[4]}


async def test_banded_top_k_equals_the_full_sort(api: Api) -> None:
    """Ties on the band's edge, missing importances and pages larger than the
    band: every page equals the plain sort's."""
    edge = 1 - 1 / 1024
    values = [1.0, edge, edge, 0.9995, 0.99, 0.5, 0.0, None, None, edge]
    for i, v in enumerate(values):
        await api.create(authority=v if v is not None else 0.3, importance=v, content={"i": i})
    everything = await api.ok(FIND, sort=[{"field": "IMPORTANCE", "order": "DESC"}], limit=100)
    assert [i["importance"] for i in everything["items"]][:5] == [1.0, 0.9995, edge, edge, edge]
    for field in ("AUTHORITY", "IMPORTANCE", "RECENCY", "CONVICTION"):
        sort = [{"field": field, "order": "DESC"}]
        whole = [i["id"] for i in (await api.ok(FIND, sort=sort, limit=100))["items"]]
        for limit in range(1, len(values) + 2):
            page = await api.ok(FIND, sort=sort, limit=limit)
            assert [i["id"] for i in page["items"]] == whole[:limit], (field, limit)


CREATE_ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
# What the planner weighs the one match against: items no filter above selects.
DECOYS = [{"content": {"i": i}, "scope": f"tenant:z/{i}", "kind": "note", "author": "user:test",
           "sourceKind": "observed", "authority": 0.5} for i in range(60)]  # fmt: skip


@pytest.mark.parametrize(
    ("flt", "index"),
    [
        (MemoryFilter(scope_prefix="tenant:a/"), "n.scope_root = $f0_root"),
        (MemoryFilter(scope_prefix="tenant:a"), "n.scope_root >= $f0_value"),
        (MemoryFilter(scope_prefix="tenant:a/x"), "n.scope >= $f0_value"),
        (MemoryFilter(meta={"agent_id": "a1"}), "n.`meta.agent_id` = $f0_value"),
        (MemoryFilter(meta={"session_id": "s"}), "n.`meta.session_id` = $f0_value"),
        (MemoryFilter(kind="fact"), "n.kind = $f0_value"),
        (MemoryFilter(lifecycle=["SESSION"]), "n.lifecycle = $f0_value"),
        (MemoryFilter(priority=["P0"]), "n.priority = $f0_value"),
    ],
)
async def test_filters_are_planned_as_index_scans(
    api: Api,
    engine: EmbeddedFalkor,
    request: pytest.FixtureRequest,
    flt: MemoryFilter,
    index: str,
) -> None:
    await api.create(scope="tenant:a/x", kind="fact", meta={"agent_id": "a1", "session_id": "s"},
                     lifecycle="SESSION", priority="P0")  # fmt: skip
    fragment = to_cypher(prepare(flt, Limits.of(Settings()), 0), api.graph)
    query = api.graph.queries.get("item_find")
    text, params = query.bind(
        {"include_retracted": False, "offset": 0, "limit": 10, "readable": [""]},
        {"filter": fragment, "order": "n.id"},
    )
    if not isinstance(api.store.inner, FalkorStore):
        await api.ok(CREATE_ITEMS, i=DECOYS)
    await _assert_index_seek(api, engine, request, text, params)
    assert index in fragment.text  # the indexed property, by its name


async def test_tags_are_planned_as_an_index_scan(
    api: Api, engine: EmbeddedFalkor, request: pytest.FixtureRequest
) -> None:
    """FalkorDB's index on the tag list serves membership alone; Neo4j's
    range indexes hold no list elements (migrations/neo4j/0013), so there
    tags are checked on the candidates of an indexed condition beside them."""
    await api.create(tags=["x", "y"], lifecycle="SESSION")
    flt = MemoryFilter(tags_any=["x", "z"])
    if not isinstance(api.store.inner, FalkorStore):
        await api.ok(CREATE_ITEMS, i=DECOYS)
        flt = MemoryFilter(tags_any=["x", "z"], lifecycle=["SESSION"])
    fragment = to_cypher(prepare(flt, Limits.of(Settings()), 0), api.graph)
    text, params = api.graph.queries.get("item_find").bind(
        {"include_retracted": False, "offset": 0, "limit": 10, "readable": [""]},
        {"filter": fragment, "order": "n.id"},
    )
    await _assert_index_seek(api, engine, request, text, params)


async def _assert_index_seek(
    api: Api, engine: EmbeddedFalkor, request: pytest.FixtureRequest,
    text: str, params: dict[str, Any], seeks: tuple[str, ...] = ("NodeIndexSeek",),
) -> None:  # fmt: skip
    """The statement finds items through an index on Item (on Neo4j, by one
    of ``seeks``), never by a scan."""
    store = api.store.inner
    if isinstance(store, FalkorStore):
        plan = await _falkordb_plan(engine, store, text, params)
        assert "Node By Index Scan | (n:Item)" in plan, plan
        assert "Label Scan" not in plan, plan
    else:
        operators = explain(request.getfixturevalue("neo4j"), text, params)
        assert any(op.startswith(seeks) for op in operators), operators
        assert not {"NodeByLabelScan", "AllNodesScan"} & set(operators), operators


async def _falkordb_plan(
    engine: EmbeddedFalkor, store: FalkorStore, text: str, params: dict[str, Any]
) -> str:
    client = FalkorDB(unix_socket_path=engine.socket)
    try:
        graph = client.select_graph(store.graph_name)
        return str(await graph.explain(encode_params(params) + text))
    finally:
        await client.connection.aclose()


class _Sent(CountingStore):
    """Keeps the text and parameters of every read."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.sent: list[tuple[str, Params]] = []

    async def read(self, text: str, params: Params) -> list[Row]:
        self.sent.append((text, params))
        return await super().read(text, params)


@pytest.mark.engines("neo4j")
@pytest.mark.parametrize(
    ("flt", "on"),
    [
        (MemoryFilter(scope_prefix="tenant:a/"), "scope_root"),
        (MemoryFilter(meta={"crew_id": "c1"}), "`meta.crew_id`"),
    ],
)
@pytest.mark.parametrize(
    ("field", "key"),
    [("recency", "created_at"), ("authority", "authority"), ("conviction", "conviction"),
     ("importance", "importance")],
)  # fmt: skip
async def test_a_big_groups_band_is_one_index_seek_on_neo4j(
    api: Api, request: pytest.FixtureRequest, flt: MemoryFilter, on: str, field: str, key: str
) -> None:
    """A top-k's first band over a tenant or a crew is one seek of
    the index on the group's key and the sort key (migrations/neo4j/0019):
    the engine reads the band, not the group."""
    group = [{**d, "scope": f"tenant:a/{i}", "meta": {"agent_id": "a1", "crew_id": "c1"},
              "authority": i / 240, "conviction": i / 240, "importance": i / 240}
             for i, d in enumerate(DECOYS * 4)]  # fmt: skip
    # a few other groups as big (the planner weighs a root by the items it holds)
    others = [{**d, "scope": f"tenant:o{i % 4}/x"} for i, d in enumerate(DECOYS * 4)]
    await api.ok(CREATE_ITEMS, i=group + others)
    sent = _Sent(api.store.inner)
    await ItemReads(Graph(sent), Limits.of(Settings())).find(flt, [SortKey(field, True)], limit=10)
    text, params = sent.sent[0]  # the first band
    found = seeks(request.getfixturevalue("neo4j"), text, dict(params))
    assert any(f"n:Item({on}, {key})" in seek for seek in found), found


async def test_a_prefix_with_a_selective_equality_is_checked_not_ranged(api: Api) -> None:
    """Same answers whichever way the prefix is compiled."""
    rows = [("a/x", "s1"), ("a/y", "s1"), ("b/x", "s1"), ("a/x", "s2")]
    made = [(await api.create(scope=sc, meta={"session_id": se}))["id"] for sc, se in rows]
    flt = {"scopePrefix": "a/", "meta": {"session_id": "s1"}}
    got = await api.ok(FIND, f=flt, limit=100)
    assert {i["id"] for i in got["items"]} == set(made[:2])
    negated = {"not": {"scopePrefix": "a/"}, "meta": {"session_id": "s1"}}
    got = await api.ok(FIND, f=negated, limit=100)
    assert {i["id"] for i in got["items"]} == {made[2]}
    fragment = to_cypher(prepare(MemoryFilter(scope_prefix="a/", meta={"session_id": "s1"}),
                                 Limits.of(Settings()), 0), api.graph)  # fmt: skip
    assert "n.scope >=" not in fragment.text
    # checked on the candidates (on Neo4j in a form no index answers)
    assert "n.scope STARTS WITH $f0_value" in fragment.text or "left(n.scope" in fragment.text


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_a_sorted_prefix_page_matches_starts_with(api: Api, prefix: str) -> None:
    """A top-k's narrow bands check the prefix on each candidate (on Neo4j in
    a form no index answers): the same items as STARTS WITH, in sort order."""
    for i, scope in enumerate(SCOPES):
        await api.create(scope=scope, authority=1 - i / 4096)
    sort = [{"field": "AUTHORITY", "order": "DESC"}]
    got = await api.ok(FIND, f={"scopePrefix": prefix}, sort=sort, limit=3)
    assert [i["scope"] for i in got["items"]] == [s for s in SCOPES if s.startswith(prefix)][:3]


@pytest.mark.engines("neo4j")
async def test_a_wide_prefixs_band_is_read_from_the_sort_keys_index_on_neo4j(
    api: Api, request: pytest.FixtureRequest
) -> None:
    """A prefix under which nearly every item sits ("org/acme/" of one
    organisation's scopes) must not be the index Neo4j reads for a narrow
    band: the band's sort key index hands over the band only."""
    rows = [{**d, "scope": f"org/acme/{i % 7}", "kind": ("decision", "fact")[i % 2],
             "authority": i / 240} for i, d in enumerate(DECOYS * 4)]  # fmt: skip
    await api.ok(CREATE_ITEMS, i=rows)
    sent = _Sent(api.store.inner)
    flt = MemoryFilter(scope_prefix="org/acme/", kind="decision")
    await ItemReads(Graph(sent), Limits.of(Settings())).find(flt, [SortKey("authority", True)],
                                                             limit=10)  # fmt: skip
    text, params = sent.sent[0]  # the first band
    found = seeks(request.getfixturevalue("neo4j"), text, dict(params))
    assert found
    assert all("n:Item(authority)" in seek for seek in found), found


async def test_the_scope_root_follows_the_scope(api: Api) -> None:
    """An item moved to another scope is found under its new root only."""
    item = await api.create(scope="tenant:a/x")
    moved = "tenant:b/y"
    await api.ok('mutation($id: ID!, $s: String!) { updateItem(id: $id, patch: {scope: $s}, '
                 'author: "u") { item { id } } }', id=item["id"], s=moved)  # fmt: skip
    there = [item["id"]]
    for prefix, found in (("tenant:a/", []), ("tenant:b/", there), ("tenant:b", there),
                          ("tenant:a", [])):  # fmt: skip
        got = await api.ok(FIND, f={"scopePrefix": prefix}, limit=10)
        assert [i["id"] for i in got["items"]] == found, prefix


async def test_items_written_before_migration_0011_take_their_roots(api: Api) -> None:
    made = [(await api.create(scope=s))["id"] for s in ("t1/a", "t1", "t2/a/b")]
    store = api.store.inner
    await store.write("MATCH (n:Item) SET n.scope_root = null", {})
    await store.write("MATCH (m:Migration {version: 11}) DELETE m", {})
    assert await api.ok(FIND, f={"scopePrefix": "t1/"}, limit=10) == {"items": []}
    assert [m.version for m in await migrate(api.graph)] == [11]
    roots = await store.read("MATCH (n:Item) RETURN n.id AS id, n.scope_root AS root", {})
    assert {r["id"]: r["root"] for r in roots} == dict(zip(made, ("t1", "t1", "t2"), strict=True))
    got = await api.ok(FIND, f={"scopePrefix": "t1/"}, limit=10)
    assert [i["id"] for i in got["items"]] == [made[0]]


@pytest.mark.parametrize("name", ["embedding_set", "embedding_own"])
async def test_vectors_are_stored_through_the_id_index(
    api: Api, engine: EmbeddedFalkor, request: pytest.FixtureRequest, name: str
) -> None:
    """A batch of vectors finds its items by id, never by scanning every item
    waiting for one (after a bulk ingest, that is every item, for each row)."""
    made = await api.create(content={"text": "waiting"})
    vector = [1.0] + [0.0] * (DIMENSION - 1)
    params: dict[str, Any] = (
        {"rows": [[made["id"], 1, vector]], "model": "m"} if name == "embedding_set"
        else {"rows": [[made["id"], vector]], "writable": [""]}
    )  # fmt: skip
    text, bound = api.graph.queries.get(name).bind(params, {})
    unique = ("NodeIndexSeek", "NodeUniqueIndexSeek")  # Item's id is unique
    await _assert_index_seek(api, engine, request, text, bound, unique)
