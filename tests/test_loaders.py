"""Nested fields batch through per-request DataLoaders: O(1) round trips per level."""

from __future__ import annotations

import itertools

from tests.support import Api

NESTED = """
query($limit: Int) {
  items(limit: $limit, sort: [{field: RECENCY, order: ASC}]) {
    id
    parentItems { id children { id } }
    edges { edgeId fromItem { id } }
  }
}
"""


async def _graph(api: Api, n: int) -> None:
    """n items in a chain, every one also the child of the first."""
    rows: list[dict[str, object]] = []
    ids: list[str] = []
    for i in range(n):
        parents = ([ids[-1]] if ids else []) + ([ids[0]] if len(ids) > 1 else [])
        data = await api.ok(
            "mutation($i: MemoryItemInput!) { createItem(input: $i) { item { id } } }",
            i={"scope": "s", "kind": "k", "content": {"i": i}, "author": "a",
               "sourceKind": "o", "authority": 0.5, "parents": parents},
        )  # fmt: skip
        ids.append(data["createItem"]["item"]["id"])
        rows.append({"id": ids[-1]})
    edge = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
      author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
    for a, b in itertools.pairwise(ids):
        await api.ok(edge, a=a, b=b)


async def test_round_trips_do_not_grow_with_the_number_of_items(api: Api) -> None:
    await _graph(api, 100)
    costs = {}
    for limit in (10, 100):
        api.store.reads = 0
        data = await api.ok(NESTED, limit=limit)
        assert len(data["items"]) == limit
        costs[limit] = api.store.reads
    # items, parentItems, their children, edges, edge endpoints: one batch each
    # at most (parentItems and fromItem may share the item loader's batch)
    assert costs[10] <= 5, costs
    assert costs[100] <= 5, costs
    last = data["items"][-1]
    assert [p["id"] for p in last["parentItems"]] == [
        data["items"][-2]["id"],
        data["items"][0]["id"],
    ]
    assert {"id": last["id"]} in last["parentItems"][0]["children"]


async def test_hundred_items_with_parents_and_their_children_cost_three_reads(api: Api) -> None:
    await _graph(api, 100)
    api.store.reads = 0
    data = await api.ok("{ items(limit: 100) { id parentItems { children { id } } } }")
    assert len(data["items"]) == 100
    assert sum(len(i["parentItems"]) for i in data["items"]) == 99 + 98
    assert api.store.reads == 3  # items, one batch of parents, one batch of children
