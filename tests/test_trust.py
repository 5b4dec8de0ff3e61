"""Trust along provenance (SPEC §14): effectiveAuthority and trustPath, and
reversible aliases (unmarkAlias)."""

from __future__ import annotations

from typing import Any

import pytest

from memexd.ids import new_id
from tests.conftest import ApiFactory
from tests.support import Api

CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
TRUST = """query($id: ID!) { item(id: $id) { effectiveAuthority trustPath { id } } }"""
CONTRADICT = """mutation($a: ID!, $b: ID!) {
  markContradiction(a: $a, b: $b, author: "u") { edge { edgeId } } }"""
RESOLVE = """mutation($w: ID!, $l: ID!) {
  resolveContradiction(winnerId: $w, loserId: $l, author: "u") { events { type } } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { type } } }'
ALIAS = 'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") { events { type } } }'
UNMARK = """mutation($a: ID!, $b: ID!) {
  unmarkAlias(a: $a, b: $b, author: "u", reason: "not the same") { events { type payload } } }"""
GROUP = "query($id: ID!) { aliasGroup(id: $id) { id } }"


def row(item_id: str, authority: float, parents: list[str], scope: str = "t") -> dict[str, Any]:
    return {"id": item_id, "parents": parents, "scope": scope, "kind": "k", "content": {},
            "author": "a", "sourceKind": "o", "authority": authority}  # fmt: skip


async def load(api: Api, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), 500):
        await api.ok(CREATE, i=rows[start : start + 500])


async def trust(api: Api, item_id: str) -> tuple[float, list[str]]:
    found = (await api.ok(TRUST, id=item_id))["item"]
    return found["effectiveAuthority"], [i["id"] for i in found["trustPath"]]


async def test_the_weakest_link_of_the_best_path(api: Api) -> None:
    root, weak, strong, mid, leaf = (new_id() for _ in range(5))
    await load(api, [row(root, 0.9, []), row(weak, 0.2, [root]), row(strong, 0.7, [root]),
                     row(mid, 0.6, [weak, strong]), row(leaf, 0.8, [mid])])  # fmt: skip
    assert await trust(api, root) == (0.9, [root])
    assert await trust(api, weak) == (0.2, [root, weak])
    assert await trust(api, mid) == (0.6, [root, strong, mid])  # min(own 0.6, best 0.7)
    assert await trust(api, leaf) == (0.6, [root, strong, mid, leaf])
    await api.ok(RETRACT, id=strong)  # only live parents count
    assert await trust(api, leaf) == (0.2, [root, weak, mid, leaf])
    await api.ok(RETRACT, id=weak)
    assert await trust(api, mid) == (0.6, [mid])  # no live parent: its own authority


async def test_a_stronger_contradiction_halves_it_and_children_see_it(api: Api) -> None:
    x, strong, weak, child = (new_id() for _ in range(4))
    await load(api, [row(x, 0.6, []), row(strong, 0.9, []), row(weak, 0.3, []),
                     row(child, 0.8, [x])])  # fmt: skip
    await api.ok(CONTRADICT, a=weak, b=x)  # less authoritative: no effect
    assert (await trust(api, x))[0] == 0.6
    await api.ok(CONTRADICT, a=strong, b=x)
    assert (await trust(api, x))[0] == 0.3
    assert (await trust(api, child))[0] == 0.3
    assert (await trust(api, strong))[0] == 0.9  # x is weaker: strong keeps its own
    await api.ok(RESOLVE, w=x, l=strong)  # x wins: strong's authority drops to 0.09
    assert (await trust(api, x))[0] == 0.6
    assert (await trust(api, strong))[0] == pytest.approx(0.09)  # resolved: no contradiction
    assert (await trust(api, weak))[0] == 0.15  # x contradicts it still, and is higher


async def test_a_lattice_of_2_to_the_40_paths_is_one_walk(api: Api) -> None:
    grid = [[new_id(), new_id()] for _ in range(40)]
    auth = [[0.9, 0.8] for _ in range(40)]
    auth[20] = [0.4, 0.5]  # the weakest level: the best path goes through its 0.5
    await load(api, [row(x, auth[i][j], grid[i - 1] if i else [])
                     for i, lv in enumerate(grid) for j, x in enumerate(lv)])  # fmt: skip
    api.store.reads = 0
    value, path = await trust(api, grid[-1][0])
    assert value == 0.5
    assert len(path) == 40
    assert path[20] == grid[20][1]
    assert path[0] == grid[0][0]  # 0.9 beats 0.8 above the weak level: the first listed on ties
    assert api.store.reads <= 12


async def test_a_long_chain_and_a_page_of_items_take_one_walk(api: Api) -> None:
    ids = [new_id() for _ in range(2_000)]
    await load(api, [row(x, 1.0 - i / 10_000, ids[i - 1 : i]) for i, x in enumerate(ids)])
    value, path = await trust(api, ids[-1])
    assert value == pytest.approx(1.0 - 1_999 / 10_000)
    assert path == ids
    api.store.reads = 0
    page = await api.ok("{ items(limit: 200) { effectiveAuthority trustPath { id } } }")
    assert len(page["items"]) == 200
    assert api.store.reads <= 40  # the page, one walk for all of it, the paths' items


async def test_trust_is_computed_under_the_callers_grants(api: Api) -> None:
    hidden, seen = new_id(), new_id()
    await load(api, [row(hidden, 0.9, [], scope="hidden"), row(seen, 0.6, [hidden])])
    admin = api.with_grants("admin:")
    assert await trust(admin, seen) == (0.6, [hidden, seen])
    reader = api.with_grants("read:t")
    assert await trust(reader, seen) == (0.6, [seen])  # the hidden parent is no link


# ---------------------------------------------------------------- unmarkAlias


async def test_unmarking_splits_the_group_with_events(api: Api) -> None:
    a, b, c = [await api.create() for _ in range(3)]
    await api.ok(ALIAS, a=a["id"], b=b["id"])
    await api.ok(ALIAS, a=b["id"], b=c["id"])
    assert len((await api.ok(GROUP, id=a["id"]))["aliasGroup"]) == 3
    events = (await api.ok(UNMARK, a=b["id"], b=a["id"]))["unmarkAlias"]["events"]
    assert [e["type"] for e in events] == ["edge.retracted", "edge.retracted"]
    assert {(e["payload"]["edge"]["from"], e["payload"]["edge"]["to"]) for e in events} == {
        (a["id"], b["id"]), (b["id"], a["id"])}  # fmt: skip
    assert {e["payload"]["cause_type"] for e in events} == {"alias.unmark"}
    assert [x["id"] for x in (await api.ok(GROUP, id=a["id"]))["aliasGroup"]] == [a["id"]]
    assert {x["id"] for x in (await api.ok(GROUP, id=b["id"]))["aliasGroup"]} == {
        b["id"], c["id"]}  # fmt: skip
    log = await api.ok('{ events(filter: {types: ["edge.retracted"]}) { type } }')
    assert len(log["events"]) == 2


async def test_unmarking_what_is_not_an_alias_is_refused_and_writes_nothing(api: Api) -> None:
    a, b = await api.create(), await api.create()
    other = await api.create(scope="elsewhere")
    await api.ok(ALIAS, a=a["id"], b=other["id"])
    before = await api.snapshot()
    assert await api.codes(UNMARK, a=a["id"], b=b["id"]) == ["BAD_USER_INPUT"]  # not aliases
    assert await api.codes(UNMARK, a=a["id"], b=a["id"]) == ["BAD_USER_INPUT"]  # itself
    assert await api.codes(UNMARK, a=a["id"], b="nope") == ["BAD_USER_INPUT"]
    assert await api.codes(UNMARK, a=a["id"], b=new_id()) == ["MEMORY_NOT_FOUND"]
    writer = api.with_grants("write:test")  # cannot see the other: as if missing
    assert await writer.codes(UNMARK, a=a["id"], b=other["id"]) == ["MEMORY_NOT_FOUND"]
    reader = api.with_grants("write:test", "read:elsewhere")
    assert await reader.codes(UNMARK, a=a["id"], b=other["id"]) == ["FORBIDDEN"]
    assert await api.snapshot() == before
    admin = api.with_grants("admin:")  # keys exist now: nobody is anonymous
    await admin.ok(UNMARK, a=a["id"], b=other["id"])
    assert await admin.codes(UNMARK, a=a["id"], b=other["id"]) == ["BAD_USER_INPUT"]  # done


async def test_an_alias_changed_since_it_was_read_is_not_retracted(api: Api) -> None:
    a, b = await api.create(), await api.create()
    await api.ok(ALIAS, a=a["id"], b=b["id"])
    rows = await api.graph.read("alias_between", {"a": a["id"], "b": b["id"]})
    stale = [{"edge_id": r["edge"]["edge_id"], "version": int(r["edge"]["version"]) + 1,
              "event": {}} for r in rows]  # fmt: skip
    before = await api.snapshot()
    assert await api.graph.write("alias_unmark", {"a": a["id"], "b": b["id"], "edges": stale}) == []
    assert await api.snapshot() == before


async def test_recall_can_weigh_hits_by_trust(searching: Api) -> None:
    api = searching
    base, weakly, alone = new_id(), new_id(), new_id()
    said = {"text": "the ferry leaves at nine"}
    await load(api, [row(base, 0.1, []), {**row(weakly, 0.9, [base]), "content": said},
                     {**row(alone, 0.6, []), "content": said}])  # fmt: skip
    query = "query($i: RecallInput!) { recall(input: $i) { item { id } why } }"
    cue = {"cue": "ferry leaves at nine", "mode": "TEXT"}
    own = (await api.ok(query, i=cue))["recall"]
    assert [h["item"]["id"] for h in own] == [weakly, alone]  # 0.9 on its own
    weighed = (await api.ok(query, i={**cue, "trust": True}))["recall"]
    assert [h["item"]["id"] for h in weighed] == [alone, weakly]  # 0.9 resting on 0.1
    weights = {"value": 0.1, "own": 0.9, "trustPath": [base, weakly], "weight": 0.5}
    assert weighed[1]["why"]["authority"] == {**weights, "factor": pytest.approx(0.55)}


SMART = """query($i: SmartRetrievalInput!) {
  smartRetrieve(input: $i) { item { id } score breakdown { authority } } }"""


async def test_retrieval_can_weigh_candidates_by_trust(api: Api) -> None:
    base, weakly, alone = new_id(), new_id(), new_id()
    scope = f"t:{new_id()}"
    await load(api, [row(base, 0.1, [], scope=f"{scope}:base"), row(weakly, 0.9, [base], scope),
                     row(alone, 0.6, [], scope)])  # fmt: skip
    asked = {"budget": 10, "cost": {"model": "UNIT"}, "weights": {"authority": 1.0},
             "filter": {"scope": scope}}  # fmt: skip
    own = (await api.ok(SMART, i=asked))["smartRetrieve"]
    assert [(h["item"]["id"], h["score"]) for h in own] == [(weakly, 0.9), (alone, 0.6)]
    weighed = (await api.ok(SMART, i={**asked, "trust": True}))["smartRetrieve"]
    assert [(h["item"]["id"], h["score"]) for h in weighed] == [(alone, 0.6), (weakly, 0.1)]
    assert weighed[1]["breakdown"]["authority"] == 0.1  # 0.9 resting on 0.1
    budget = "query($i: BudgetInput!) { itemsByBudget(input: $i) { item { id } } }"
    packed = (await api.ok(budget, i={**asked, "budget": 1, "trust": True}))["itemsByBudget"]
    assert [h["item"]["id"] for h in packed] == [alone]


async def test_trust_past_the_traversal_limits_is_resource_exhausted(make_api: ApiFactory) -> None:
    api = await make_api(traversal_max_nodes=50)
    ids = [new_id() for _ in range(80)]
    scope = f"t:{new_id()}"
    await load(api, [row(x, 0.5, ids[i - 1 : i], scope) for i, x in enumerate(ids)])
    asked = {"budget": 1, "cost": {"model": "UNIT"}, "weights": {"authority": 1.0},
             "filter": {"ids": ids[-1:]}, "trust": True}  # fmt: skip
    before = await api.snapshot()
    assert await api.codes(SMART, i=asked) == ["RESOURCE_EXHAUSTED"]
    assert await api.snapshot() == before
    assert (await api.ok(SMART, i={**asked, "trust": False}))["smartRetrieve"]
