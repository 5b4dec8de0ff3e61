"""Graph statistics: memexd's counts are memex-python's ``get_stats`` on the
same items and edges (keys in the same order), computed in the database over
what the caller can read."""

from __future__ import annotations

from typing import Any

import memex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.access.grants import Access, parse_grant
from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.memory.model import EdgePatch
from memexd.memory.stats import GraphStats, Stats
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.conftest import ApiFactory
from tests.test_bulk import Twin, wired

__all__ = ["wired"]  # the fixture, imported for the GraphQL test

STATS = """
{ stats {
  items { total byKind { key count } bySourceKind { key count } byAuthor { key count }
          byScope { key count } withParents root }
  edges { total active byKind { key count } }
} }
"""


def as_memex(stats: GraphStats) -> dict[str, Any]:
    """memexd's stats in the shape of memex-python's (ordered lists of pairs)."""
    i, e = stats.items, stats.edges
    return {
        "items": [i.total, list(i.by_kind), list(i.by_source_kind), list(i.by_author),
                  list(i.by_scope), i.with_parents, i.root],
        "edges": [e.total, e.active, list(e.by_kind)],
    }  # fmt: skip


def memex_stats(state: memex.GraphState) -> dict[str, Any]:
    got = memex.get_stats(state)
    items = [list(v.items()) if isinstance(v, dict) else v for v in got.items]
    edges = [list(v.items()) if isinstance(v, dict) else v for v in got.edges]
    return {"items": items, "edges": edges}


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(0, 8))
    items = [
        {
            "kind": draw(st.sampled_from(["observation", "fact", "trait"])),
            "source_kind": draw(st.sampled_from(["observed", "user_explicit"])),
            "author": draw(st.sampled_from(["user:a", "agent:b", "agent:c"])),
            "sub": draw(st.sampled_from(["x", "y", "z"])),
            "parents": draw(st.sampled_from(["absent", "empty", "earlier", "ghost"])),
        }
        for _ in range(n)
    ]
    index = st.integers(0, max(n - 1, 0))
    edge = st.tuples(index, index, st.sampled_from(["SUPPORTS", "ABOUT", "CONTRADICTS"]),
                     st.sampled_from(["keep", "deactivate", "retract"]))  # fmt: skip
    return {
        "items": items,
        "edges": draw(st.lists(edge, max_size=8)) if n else [],
        "retract": draw(st.sets(index, max_size=2)) if n else set(),
    }


async def build(twin: Twin, graph: dict[str, Any]) -> None:
    """The drawn graph in both twins: items, edges, then changes."""
    for fields in graph["items"]:
        shape = fields.pop("parents")
        parents = {"absent": None, "empty": [], "earlier": twin.ids[-1:],
                   "ghost": ["01900000-0000-7000-8000-00000000dead"]}[shape]  # fmt: skip
        await twin.item(**fields, **({} if parents is None else {"parents": parents}))
    core, why = twin.core, {"author": "u"}
    for a, b, kind, fate in graph["edges"]:
        edge_id = await twin.edge(a, b, kind)
        if fate == "deactivate":
            await core.edges.update(edge_id, EdgePatch(active=False), "u", None, Origin())
            twin.apply({"type": "edge.update", "edge_id": edge_id, "partial": {"active": False},
                        **why})  # fmt: skip
        elif fate == "retract":
            await core.edges.retract(edge_id, "u", None, Origin())
            twin.apply({"type": "edge.retract", "edge_id": edge_id, **why})
    for i in sorted(graph["retract"]):
        await core.items.retract(twin.ids[i], "u", None, Origin())
        twin.apply({"type": "memory.retract", "item_id": twin.ids[i], **why})


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(graph=graphs())
async def test_stats_are_memex_get_stats(store: GraphStore, graph: dict[str, Any]) -> None:
    """Each example in a scope of its own, read by a caller granted only that."""
    twin = Twin(Memex(store, Settings()))
    await build(twin, graph)
    reader = twin.core.as_caller(Access.of("r", [parse_grant(f"read:{twin.scope}")]))
    assert as_memex(await Stats(reader.graph).read()) == memex_stats(twin.state)


async def test_stats_count_what_the_caller_can_read(store: GraphStore) -> None:
    """Items in its scopes; edges only when it can read both ends."""
    twin = Twin(Memex(store, Settings()))
    await twin.item(sub="a/1", kind="fact")
    await twin.item(sub="a/2", parents=[twin.ids[0]])
    await twin.item(sub="b", kind="fact")
    await twin.edge(0, 1, "SUPPORTS")
    await twin.edge(1, 2, "ABOUT")
    await twin.edge(2, 2, "CONTRADICTS")
    reader = twin.core.as_caller(Access.of("r", [parse_grant(f"read:{twin.scope}a")]))
    got = await Stats(reader.graph).read()
    assert (got.items.total, got.items.with_parents, got.items.root) == (2, 1, 1)
    assert got.items.by_kind == (("fact", 1), ("k", 1))
    assert got.items.by_scope == ((f"{twin.scope}a/1", 1), (f"{twin.scope}a/2", 1))
    assert (got.edges.total, got.edges.active, got.edges.by_kind) == (1, 1, (("SUPPORTS", 1),))
    everything = await Stats(twin.core.graph).read()
    assert as_memex(everything) == memex_stats(twin.state)
    nobody = twin.core.as_caller(Access.of("n", []))
    empty = await Stats(nobody.graph).read()
    assert (empty.items.total, empty.items.by_kind, empty.edges.total) == (0, (), 0)


async def test_stats_over_graphql(wired: ApiFactory) -> None:
    api = await wired()
    first = await api.create(kind="fact", scope="s/1")
    await api.create(kind="trait", scope="s/2", parents=[first["id"]])
    await api.create(kind="fact", scope="s/1", author="agent:x")
    api.store.reads = 0
    got = (await api.ok(STATS))["stats"]
    assert api.store.reads == 2  # one aggregation per statement, whatever the size
    assert got["items"] == {
        "total": 3, "withParents": 1, "root": 2,
        "byKind": [{"key": "fact", "count": 2}, {"key": "trait", "count": 1}],
        "bySourceKind": [{"key": "observed", "count": 3}],
        "byAuthor": [{"key": "user:test", "count": 2}, {"key": "agent:x", "count": 1}],
        "byScope": [{"key": "s/1", "count": 2}, {"key": "s/2", "count": 1}],
    }  # fmt: skip
    assert got["edges"] == {"total": 0, "active": 0, "byKind": []}


async def test_stats_aggregate_only_what_is_asked(wired: ApiFactory) -> None:
    """A client polling the embedding backlog runs one count, not the item
    and edge aggregations (each a scan of the graph)."""
    api = await wired()
    await api.create(kind="fact", scope="s/1")
    for query, reads in [("{ stats { embeddings { waiting } } }", 1),
                         ("{ stats { items { total } } }", 1),
                         ("{ stats { edges { total } } }", 1), (STATS, 2)]:  # fmt: skip
        api.store.reads = 0
        await api.ok(query)
        assert api.store.reads == reads, query
