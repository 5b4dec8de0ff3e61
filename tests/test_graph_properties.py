"""Random graphs (cycles, missing parents, retractions, aliases, contradictions):
every graph query equals the in-memory reference in tests/graph_reference.py."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.ids import new_id
from tests.graph_reference import Model
from tests.support import Api, levelled

CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'
ALIAS = 'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") { events { id } } }'
CONTRA = """mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, author: "u") {
  edge { edgeId } } }"""
READS = """query($id: ID!) {
  supportTree(id: $id) { nodes { item { id } depth } links { child parent } truncated }
  supportSet(id: $id) { id }
  dependents(id: $id, transitive: true) { id }
  direct: dependents(id: $id) { id }
  aliasGroup(id: $id) { id }
  aliases(id: $id) { id }
  item(id: $id) { contradictedBy { id } }
}"""
SLOW = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 10))
    ids = [new_id() for _ in range(n)]
    ghosts = [str(uuid.uuid4()) for _ in range(2)]  # parents that never exist
    targets = st.sampled_from(ids + ghosts)
    return {
        "ids": ids,
        "parents": [draw(st.lists(targets, max_size=3)) for _ in ids],
        "order": draw(st.permutations(range(n))),  # creation order: forward references too
        "retract": draw(st.lists(st.sampled_from(ids), max_size=3, unique=True)),
        "aliases": draw(
            st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=4)
        ),
        "contradictions": draw(
            st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=3)
        ),
    }


async def build(api: Api, g: dict[str, Any]) -> Model:
    model = Model()
    rows = [
        {"id": g["ids"][i], "parents": g["parents"][i], "scope": "p", "kind": "k",
         "content": {}, "author": "a", "sourceKind": "o", "authority": 0.5}
        for i in g["order"]
    ]  # fmt: skip
    half = len(rows) // 2
    for chunk in (rows[:half], rows[half:]):  # two batches: links across batches too
        if chunk:
            await api.ok(CREATE, i=chunk)
    model.parents = {i: list(ps) for i, ps in zip(g["ids"], g["parents"], strict=True)}
    for a, b in g["aliases"]:
        await api.ok(ALIAS, a=a, b=b)
        if a != b:
            model.aliases |= {(a, b), (b, a)}
    for a, b in g["contradictions"]:
        await api.ok(CONTRA, a=a, b=b)
        model.contradictions.add((a, b))
    for i in g["retract"]:
        await api.ok(RETRACT, id=i)
        model.retracted.add(i)
    return model


#: Walks go each engine's own way (deep attempts, or one whole walk), or
#: level by level on every engine. Both must match the reference.
LEVELLED = st.booleans()


@SLOW
@given(g=graphs(), by_levels=LEVELLED)
async def test_queries_match_the_reference(api: Api, g: dict[str, Any], by_levels: bool) -> None:
    model = await build(api, g)
    with levelled(by_levels):
        await check_reads(api, g, model)


async def check_reads(api: Api, g: dict[str, Any], model: Model) -> None:
    for root in g["ids"]:
        got = await api.ok(READS, id=root)
        # dependents of an id need not be live: the items naming it, and theirs
        assert {x["id"] for x in got["dependents"]} == model.dependents(root)
        assert {x["id"] for x in got["direct"]} == set(model.live_children(root))
        if not model.live(root):
            assert got["supportTree"] is None
            assert got["supportSet"] == got["aliasGroup"] == []
            continue
        tree = got["supportTree"]
        assert {n["item"]["id"]: n["depth"] for n in tree["nodes"]} == model.support(root)
        links = {(x["child"], x["parent"]) for x in tree["links"]}
        assert links == model.support_links(root)
        assert tree["truncated"] is False
        support = [x["id"] for x in got["supportSet"]]
        assert support[0] == root
        assert sorted(support) == sorted(model.support(root))
        group = [x["id"] for x in got["aliasGroup"]]
        assert group[0] == root
        assert set(group) == model.alias_group(root)
        assert {x["id"] for x in got["aliases"]} == set(model.alias_neighbours(root)) - {root}
        against = {b for a, b in model.contradictions if a == root}
        against |= {a for a, b in model.contradictions if b == root}
        live_against = {x for x in against if model.live(x)} - {root}
        assert {x["id"] for x in got["item"]["contradictedBy"]} == live_against
    stale = (await api.ok("{ staleItems { item { id } missingParents } }"))["staleItems"]
    mine = {s["item"]["id"]: s["missingParents"] for s in stale if s["item"]["id"] in model.parents}
    assert mine == model.stale()


@SLOW
@given(g=graphs(), pick=st.integers(0, 9), by_levels=LEVELLED)
async def test_cascade_matches_the_reference(
    api: Api, g: dict[str, Any], pick: int, by_levels: bool
) -> None:
    model = await build(api, g)
    root = g["ids"][pick % len(g["ids"])]
    cascade = """mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { retracted } }"""
    if not model.live(root):
        assert await api.codes(cascade, id=root) == ["MEMORY_NOT_FOUND"]
        return
    doomed = {root} | model.dependents(root)
    with levelled(by_levels):
        order = (await api.ok(cascade, id=root))["cascadeRetract"]["retracted"]
    assert sorted(order) == sorted(doomed)
    assert order[-1] == root
    position = {x: i for i, x in enumerate(order)}
    for child in doomed:  # children before parents, wherever no cycle forbids it
        for parent in model.live_parents(child):
            if parent in doomed and not model.reaches(child, parent):
                assert position[child] < position[parent]
    model.retracted |= doomed
    live = {x["id"] for x in (await api.ok("{ items(limit: 10000) { id } }"))["items"]}
    assert {i for i in g["ids"] if model.live(i)} == live & set(g["ids"])


def shapes() -> dict[str, dict[str, list[str]]]:
    """Deterministic shapes past the walk's window (16 levels) and width (64)."""
    chain = [new_id() for _ in range(40)]
    lattice = [[new_id(), new_id()] for _ in range(20)]
    root, fan, below, sink = new_id(), [new_id() for _ in range(80)], [], new_id()
    below = [new_id() for _ in fan]
    deep = [new_id() for _ in range(20)]
    return {
        "chain": {x: chain[i - 1 : i] if i else [] for i, x in enumerate(chain)},
        "lattice": {
            x: (lattice[i - 1] if i else []) for i, level in enumerate(lattice) for x in level
        },
        "fan": {
            root: [],
            **{f: [root] for f in fan},
            **{b: [f] for f, b in zip(fan, below, strict=True)},
            sink: below[::7],
            **{d: [deep[i - 1] if i else sink] for i, d in enumerate(deep)},
        },
    }


async def test_walks_across_windows_and_wide_levels(api: Api) -> None:
    for shape in shapes().values():
        rows = [{"id": i, "parents": ps, "scope": "p", "kind": "k", "content": {},
                 "author": "a", "sourceKind": "o", "authority": 0.5}
                for i, ps in shape.items()]  # fmt: skip
        await api.ok(CREATE, i=rows)
        model = Model(parents=shape)
        ordered = list(shape)
        for root in (ordered[0], ordered[len(ordered) // 2], ordered[-1]):
            got = await api.ok(READS, id=root)
            tree = got["supportTree"]
            assert {n["item"]["id"]: n["depth"] for n in tree["nodes"]} == model.support(root)
            assert {(x["child"], x["parent"]) for x in tree["links"]} == model.support_links(root)
            assert {x["id"] for x in got["dependents"]} == model.dependents(root)
