"""Long walks: on FalkorDB deep attempts (64 levels a round trip) on chains
and levelled windows where paths multiply; on Neo4j one pruning
breadth-first search a walk; every way agreeing on depths, links and where
a walk stops."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.graph.cypher import Queries
from memexd.ids import new_id
from memexd.integrity import traversal
from memexd.integrity.traversal import Reach, Walk, walk
from tests.neo4j_server import explain
from tests.support import Api, levelled

CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
TREE = """query($id: ID!, $d: Int) { supportTree(id: $id, maxDepth: $d) {
  nodes { item { id } depth } links { child parent } truncated } }"""
SET = "query($id: ID!) { supportSet(id: $id) { id } }"
DEPS = "query($id: ID!) { dependents(id: $id, transitive: true) { id } }"
CASCADE = """mutation($id: ID!) { cascadeRetract(id: $id, author: "u") {
  retracted events { type } } }"""


def row(item_id: str, parents: list[str]) -> dict[str, Any]:
    return {"id": item_id, "parents": parents, "scope": "w", "kind": "k", "content": {},
            "author": "a", "sourceKind": "o", "authority": 0.5}  # fmt: skip


async def load(api: Api, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), 500):
        await api.ok(CREATE, i=rows[start : start + 500])


async def make_chain(api: Api, n: int) -> list[str]:
    """ids[i]'s parent is ids[i - 1]."""
    ids = [new_id() for _ in range(n)]
    await load(api, [row(x, ids[i - 1 : i]) for i, x in enumerate(ids)])
    return ids


def tree_of(data: dict[str, Any]) -> tuple[dict[str, int], set[tuple[str, str]], bool]:
    tree = data["supportTree"]
    depths = {n["item"]["id"]: n["depth"] for n in tree["nodes"]}
    return depths, {(x["child"], x["parent"]) for x in tree["links"]}, tree["truncated"]


async def test_a_long_chain_is_walked_in_few_round_trips(api: Api) -> None:
    ids = await make_chain(api, 300)
    api.store.reads = 0
    got = await api.ok(SET, id=ids[-1])
    assert [x["id"] for x in got["supportSet"]] == ids[::-1]  # BFS order
    # 300 levels: FalkorDB, 5 deep attempts and the item fetch (levelled: 19
    # windows); Neo4j, one whole walk and the item fetch
    assert api.store.reads <= (2 if api.graph.walks_whole else 7)
    depths, links, truncated = tree_of(await api.ok(TREE, id=ids[-1], d=None))
    assert depths == {x: 299 - i for i, x in enumerate(ids)}
    assert links == {(ids[i], ids[i - 1]) for i in range(1, 300)}
    assert not truncated
    depths, links, truncated = tree_of(await api.ok(TREE, id=ids[-1], d=100))
    assert depths == {x: 299 - i for i, x in enumerate(ids) if 299 - i <= 100}
    assert truncated
    got = await api.ok(DEPS, id=ids[0])
    assert [x["id"] for x in got["dependents"]] == ids[1:]


async def test_a_loop_back_to_the_start_keeps_the_links_right(api: Api) -> None:
    """A path that returns to its start is listed backwards by FalkorDB: the
    attempt that meets one is dropped and the levels are walked instead."""
    ids = [new_id() for _ in range(10)]
    await load(api, [row(x, [ids[i - 1]]) for i, x in enumerate(ids)])  # ids[0] <- ids[9]
    depths, links, _ = tree_of(await api.ok(TREE, id=ids[9], d=None))
    assert depths == {x: 9 - i for i, x in enumerate(ids)}
    assert links == {(ids[i], ids[i - 1]) for i in range(10)}
    got = (await api.ok(CASCADE, id=ids[0]))["cascadeRetract"]["retracted"]
    assert got == [*ids[1:][::-1], ids[0]]


def test_a_last_step_must_lead_to_its_path_end() -> None:
    ends = [["c", 2, "b", "c"], [None, None, None, None]]
    assert traversal._last_steps(ends, along=True) == [("b", "c")]
    assert traversal._last_steps(ends, along=False) is None  # (c, b) leads to b


async def test_a_cascade_down_a_long_chain_retracts_children_first(api: Api) -> None:
    ids = await make_chain(api, 200)
    got = (await api.ok(CASCADE, id=ids[0]))["cascadeRetract"]
    assert got["retracted"] == ids[::-1]
    assert [e["type"] for e in got["events"]] == ["memory.retracted"] * 200
    assert (await api.ok(SET, id=ids[-1]))["supportSet"] == []


async def test_a_retracted_link_stops_a_deep_walk(api: Api) -> None:
    ids = await make_chain(api, 150)
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=ids[70])  # fmt: skip
    got = await api.ok(SET, id=ids[-1])
    assert [x["id"] for x in got["supportSet"]] == ids[71:][::-1]
    got = await api.ok(DEPS, id=ids[0])
    assert [x["id"] for x in got["dependents"]] == ids[1:70]


async def test_an_unreadable_link_stops_a_deep_walk(api: Api) -> None:
    ids = [new_id() for _ in range(150)]
    rows = [row(x, ids[i - 1 : i]) for i, x in enumerate(ids)]
    rows[70]["scope"] = "hidden"
    await load(api, rows)
    reader = api.with_grants("read:w")
    got = await reader.ok(SET, id=ids[-1])
    assert [x["id"] for x in got["supportSet"]] == ids[71:][::-1]


@pytest.mark.parametrize("by_levels", [False, True])
async def test_a_lattice_stays_linear_and_exact(api: Api, by_levels: bool) -> None:
    """2^40 paths: deep attempts run out of budget and levelled windows take
    over, or one pruning search reaches each item once (levelled: windows
    only), with the same answer."""
    with levelled(by_levels):
        await _lattice(api)


async def _lattice(api: Api) -> None:
    grid = [[new_id(), new_id()] for _ in range(40)]
    await load(api, [row(x, grid[i - 1] if i else []) for i, lv in enumerate(grid) for x in lv])
    depths, links, truncated = tree_of(await api.ok(TREE, id=grid[-1][0], d=None))
    assert depths == {x: (39 - i if i < 39 else 0) for i, lv in enumerate(grid) for x in lv
                      if i < 39 or x == grid[-1][0]}  # fmt: skip
    assert len(links) == 2 + 38 * 4
    assert not truncated
    got = await api.ok(DEPS, id=grid[0][0])
    assert len(got["dependents"]) == 78


@pytest.mark.parametrize("by_levels", [False, True])
async def test_a_wide_level_keeps_the_depths_right(api: Api, by_levels: bool) -> None:
    """A level wider than WIDE ends a levelled window early: the next window
    goes on from that level's depth, not 16 levels further."""
    with levelled(by_levels):
        await _wide_level(api)


async def _wide_level(api: Api) -> None:
    wide = [new_id() for _ in range(traversal.WIDE + 6)]
    deep = [new_id() for _ in range(5)]
    root = new_id()
    rows = [row(deep[0], []), *(row(d, [deep[i]]) for i, d in enumerate(deep[1:]))]
    rows += [row(w, [deep[-1]]) for w in wide]
    rows.append(row(root, wide))
    await load(api, rows)
    depths, _, truncated = tree_of(await api.ok(TREE, id=root, d=4))
    assert depths == {root: 0, **{w: 1 for w in wide}, deep[-1]: 2, deep[-2]: 3, deep[-3]: 4}
    assert truncated
    kids = [x["id"] for x in (await api.ok(DEPS, id=deep[0]))["dependents"]]
    assert kids[:4] == deep[1:]
    assert set(kids[4:-1]) == set(wide)
    assert kids[-1] == root


@pytest.mark.engines("neo4j")
@pytest.mark.parametrize("how", list(Walk))
async def test_a_whole_walk_is_one_pruning_search_on_neo4j(
    api: Api, request: pytest.FixtureRequest, how: Walk
) -> None:
    """Neo4j plans the whole walk as a pruning breadth-first search (each
    item once, at its least depth), never as an enumeration of paths."""
    query = Queries("neo4j").get("traverse_reach")
    text, params = query.bind(
        {"ids": [new_id()], "cap": 10, "readable": [""]},
        {"path": how.path(16), "rels": how.path_rels, "pattern": how.pattern, "rel": how.rel},
    )
    operators = explain(request.getfixturevalue("neo4j"), text, params)
    expands = [op for op in operators if "Expand" in op or "Shortest" in op]
    assert expands.count("VarLengthExpand(Pruning,BFS,All)") == 1, operators
    assert set(expands) <= {"VarLengthExpand(Pruning,BFS,All)", "Expand(All)"}, operators


@st.composite
def tangles(draw: st.DrawFn) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Items with parents among each other (cycles too), and starts."""
    ids = [new_id() for _ in range(draw(st.integers(2, 14)))]
    parents = {x: draw(st.lists(st.sampled_from(ids), max_size=3, unique=True)) for x in ids}
    starts = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3, unique=True))
    return ids, parents, starts


def _seen(reach: Reach) -> tuple[list[tuple[str, int]], list[tuple[str, str]], bool]:
    """What a walk found, in its order."""
    return list(reach.depth.items()), reach.links(), reach.truncated


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(tangle=tangles(), max_depth=st.integers(1, 6), max_nodes=st.integers(1, 12))
async def test_every_way_of_walking_stops_at_the_same_place(
    api: Api, tangle: tuple[list[str], dict[str, list[str]], list[str]],
    max_depth: int, max_nodes: int,
) -> None:  # fmt: skip
    """Past the depth or item limit, from one start or several: each
    engine's own walk reaches, links and stops as the levelled walk does."""
    ids, parents, starts = tangle
    await load(api, [row(x, parents[x]) for x in ids])
    for how in (Walk.PARENTS, Walk.CHILDREN):
        limits = {"max_depth": max_depth, "max_nodes": max_nodes}
        own = await walk(api.graph, starts, how, **limits)
        with levelled():
            by_levels = await walk(api.graph, starts, how, **limits)
        assert _seen(own) == _seen(by_levels), (how, limits)
