"""Export and import (transplant): MemEX's walk (§5.1) and import table (§5.2),
checked against memex-python on the same data; tombstones, grants, limits,
bad slices; and the GraphQL types and resolvers."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import memex as mx
import pytest
import strawberry
from graphql import GraphQLSchema, build_schema, print_ast
from memexd.resolvers import transplant as transplant_r
from memexd.schema.transplant import ImportReport as ImportReportType
from strawberry.scalars import JSON

from memexd.access.grants import Access, parse_grant
from memexd.core import Memex
from memexd.errors import MemexError
from memexd.events.vocabulary import Origin
from memexd.memory.model import NewEdge, NewItem
from memexd.server.context import Context
from memexd.settings import Settings
from memexd.transplant.export import Exporter, ExportOptions
from memexd.transplant.slices import Importer, ImportOptions, ImportReport
from memexd.types import GraphStore, JSONObject
from tests.support import CountingStore

ORIGIN = Origin()
ROOT = Path(__file__).resolve().parents[1]
KEYS = ("memories", "edges", "intents", "tasks")


def u(n: int) -> str:
    """A UUIDv7 whose time and tail are ``n``: ``u(2)`` is "02" in the tables."""
    return f"0190a000-{n:04x}-7000-8000-{n:012x}"


NAMES = {u(n): f"{n:02d}" for n in range(1, 100)}


def name(record_id: str) -> str:
    return NAMES.get(record_id, "NEW")


@pytest.fixture
def memex(store: GraphStore) -> Memex:
    return Memex(store, Settings())


def caller(memex: Memex, *grants: str) -> Memex:
    return memex.as_caller(Access.of("caller", [parse_grant(g) for g in grants]))


async def item(m: Memex, n: int, scope: str = "s", **fields: Any) -> None:
    draft = NewItem(id=u(n), scope=scope, kind="observation", content={"n": n},
                    author="user:t", source_kind="observed", authority=0.5, **fields)  # fmt: skip
    await m.items.create([draft], ORIGIN)


async def edge(m: Memex, n: int, a: int, b: int, kind: str = "SUPPORTS", **fields: Any) -> None:
    draft = NewEdge(from_id=u(a), to_id=u(b), kind=kind, author="user:t",
                    source_kind="observed", authority=0.7, edge_id=u(n), **fields)  # fmt: skip
    await m.edges.create(draft, ORIGIN)


async def intent(m: Memex, n: int, scope: str = "s", **fields: Any) -> None:
    given = {"id": u(n), "label": "goal", "priority": 0.5, "owner": "user:t", **fields}
    await m.intents.create(given, scope, ORIGIN)


async def task(m: Memex, n: int, intent_n: int, scope: str = "s", **fields: Any) -> None:
    given = {"id": u(n), "intent_id": u(intent_n), "action": "act", "priority": 0.5, **fields}
    await m.tasks.create(given, scope, ORIGIN)


async def export(m: Memex, memories: Sequence[int] = (), **flags: Any) -> JSONObject:
    intents = flags.pop("intents", ())
    return await Exporter(m).slice(
        ExportOptions(
            memory_ids=[u(n) for n in memories], intent_ids=[u(n) for n in intents], **flags
        )
    )


async def dump(m: Memex, page: int = 1000) -> JSONObject:
    """Everything the caller can read, from the paged export."""
    whole: JSONObject = {key: [] for key in KEYS}
    async for part in Exporter(m).everything(page):
        for key in KEYS:
            whole[key] += part[key]
    return whole


async def run_import(m: Memex, data: Any, **options: Any) -> dict[str, dict[str, list[str]]]:
    report = await Importer(m).slice(data, ImportOptions(**options), ORIGIN)
    return report.json()


def names(export: JSONObject) -> dict[str, list[str]]:
    """An export by names, each kind sorted (ALIAS edges by kind)."""
    return {
        "memories": sorted(name(r["id"]) for r in export["memories"]),
        "edges": sorted(
            name(r["edge_id"]) if r["kind"] != "ALIAS" else "ALIAS" for r in export["edges"]
        ),
        "intents": sorted(name(r["id"]) for r in export["intents"]),
        "tasks": sorted(name(r["id"]) for r in export["tasks"]),
    }


def as_set(export: JSONObject) -> dict[str, list[str]]:
    """MemEX exports compare as sets (its list order is hash order)."""
    return {key: sorted(json.dumps(r, sort_keys=True) for r in export[key]) for key in KEYS}


def peer_state(data: JSONObject) -> tuple[Any, Any, Any]:
    """memex-python's three states holding ``data``."""
    result = mx.import_slice(
        mx.create_graph_state(), mx.create_intent_state(), mx.create_task_state(), data
    )
    return result.mem_state, result.intent_state, result.task_state


def peer_export(state: tuple[Any, Any, Any], memories: Sequence[int] = (), **flags: Any) -> Any:
    intents = flags.pop("intents", ())
    found = mx.export_slice(*state, memory_ids=[u(n) for n in memories],
                            intent_ids=[u(n) for n in intents], **flags)  # fmt: skip
    return found.model_dump(mode="json", by_alias=True, exclude_none=True)


async def snapshot(m: Memex) -> tuple[list[str], list[str]]:
    nodes = await m.graph.read("admin_snapshot_nodes")
    rels = await m.graph.read("admin_snapshot_rels")
    return (sorted(json.dumps(r, sort_keys=True, default=str) for r in nodes),
            sorted(json.dumps(r, sort_keys=True, default=str) for r in rels))  # fmt: skip


# ---------------------------------------------------------------- export (§5.1, d8)


async def d8(m: Memex) -> None:
    """m1; m2(parent 1, intent 51); m3(parent 2, task 61); m4; m5; m6(parent 5);
    e70 1→2 SUPPORTS inactive; e71 4→5 ABOUT; ALIAS 1⇄4; intents 50 (roots
    [1]) and 51 (parent 50); tasks 60 (intent 50), 61 and 62 (intent 99, a
    missing one; 62 reads m2)."""
    await item(m, 1)
    await item(m, 2, parents=[u(1)], intent_id=u(51))
    await item(m, 3, parents=[u(2)], task_id=u(61))
    for n in (4, 5):
        await item(m, n)
    await item(m, 6, parents=[u(5)])
    await edge(m, 70, 1, 2, active=False)
    await edge(m, 71, 4, 5, kind="ABOUT")
    await m.aliases.mark(u(1), u(4), "agent:x", None, ORIGIN)
    await intent(m, 50, root_memory_ids=[u(1)])
    await intent(m, 51, parent_id=u(50))
    await task(m, 60, 50)
    await task(m, 61, 99)
    await task(m, 62, 99, input_memory_ids=[u(2)])


D8 = [  # anchors, options, expected (memories, edges, intents, tasks): the reference's table
    ([2], {}, (["02"], [], [], [])),
    ([2], {"include_parents": True}, (["01", "02"], ["70"], [], [])),
    ([2], {"include_parents": True, "include_children": True},
     (["01", "02", "03"], ["70"], [], [])),
    ([1], {"include_aliases": True}, (["01", "04"], ["ALIAS", "ALIAS"], [], [])),
    ([1], {"include_aliases": True, "include_children": True},
     (["01", "02", "03", "04"], ["70", "ALIAS", "ALIAS"], [], [])),
    ([1], {"include_related_intents": True}, (["01"], [], ["50"], [])),
    ([2], {"include_related_intents": True}, (["02"], [], ["51"], [])),
    ([2, 3], {"include_related_tasks": True}, (["02", "03"], [], [], ["61", "62"])),
    ([], {"intents": [50], "include_related_tasks": True}, ([], [], ["50"], ["60"])),
    ([1], {"include_related_intents": True, "include_related_tasks": True},
     (["01"], [], ["50"], ["60"])),
    ([98], {"include_parents": True}, ([], [], [], [])),
]  # fmt: skip


@pytest.mark.parametrize(("anchors", "flags", "expected"), D8)
async def test_export_walks_as_memex(
    memex: Memex, anchors: list[int], flags: dict[str, Any], expected: tuple[list[str], ...]
) -> None:
    await d8(memex)
    got = await export(memex, anchors, **dict(flags))
    assert list(got) == list(KEYS)
    assert names(got) == dict(zip(KEYS, expected, strict=True))
    # memex-python, holding the same graph, exports the same slice
    peer = peer_state(await dump(memex))
    assert as_set(got) == as_set(peer_export(peer, anchors, **dict(flags)))


async def test_export_records_are_memex_json_in_a_fixed_order(memex: Memex) -> None:
    await d8(memex)
    got = await export(memex, [3], include_parents=True, include_related_tasks=True)
    assert [r["id"] for r in got["memories"]] == [u(1), u(2), u(3)]  # creation order
    assert got["memories"][0] == {
        "id": u(1), "scope": "s", "kind": "observation", "content": {"n": 1},
        "author": "user:t", "source_kind": "observed", "authority": 0.5,
        "created_at": 0x0190A0000001,
    }  # fmt: skip
    assert got["memories"][1]["parents"] == [u(1)]
    assert got["edges"] == [{
        "edge_id": u(70), "from": u(1), "to": u(2), "kind": "SUPPORTS", "author": "user:t",
        "source_kind": "observed", "authority": 0.7, "active": False,
    }]  # fmt: skip
    assert got["tasks"] == [
        {"id": u(61), "intent_id": u(99), "action": "act", "status": "pending",
         "priority": 0.5, "attempt": 0},
        {"id": u(62), "intent_id": u(99), "action": "act", "status": "pending",
         "priority": 0.5, "input_memory_ids": [u(2)], "attempt": 0},
    ]  # fmt: skip
    assert await export(memex, [3], include_parents=True, include_related_tasks=True) == got


async def test_records_that_name_a_memory_before_it_exists_are_related(memex: Memex) -> None:
    await intent(memex, 50, root_memory_ids=[u(9)])
    await task(memex, 60, 50, output_memory_ids=[u(9)])
    await item(memex, 9)
    got = await export(memex, [9], include_related_intents=True, include_related_tasks=True)
    assert names(got) == {"memories": ["09"], "edges": [], "intents": ["50"], "tasks": ["60"]}


async def test_an_alias_pair_with_one_inactive_direction_exports_both(memex: Memex) -> None:
    await item(memex, 1)
    await item(memex, 2)
    await edge(memex, 70, 1, 2, kind="ALIAS")
    await edge(memex, 71, 2, 1, kind="ALIAS", active=False)
    got = await export(memex, [1], include_aliases=True)
    assert names(got)["memories"] == ["01", "02"]
    assert {e["edge_id"]: e["active"] for e in got["edges"]} == {u(70): True, u(71): False}


async def test_tombstones_are_neither_exported_nor_walked(memex: Memex) -> None:
    await d8(memex)
    await memex.items.retract(u(2), "user:t", None, ORIGIN)
    await memex.edges.retract(u(71), "user:t", None, ORIGIN)
    # m3's parent is a tombstone: the walk stops there, m1 is not reached
    assert names(await export(memex, [3], include_parents=True))["memories"] == ["03"]
    got = await export(memex, [1], include_children=True, include_aliases=True)
    assert names(got)["memories"] == ["01", "04"]  # m2 retracted: no children walked
    assert names(got)["edges"] == ["ALIAS", "ALIAS"]  # e70 went with m2
    assert names(await export(memex, [2]))["memories"] == []
    everything = names(await dump(memex))
    assert everything["memories"] == ["01", "03", "04", "05", "06"]
    assert "70" not in everything["edges"]
    assert "71" not in everything["edges"]


async def test_an_export_holds_only_what_the_caller_can_read(memex: Memex) -> None:
    await item(memex, 1, scope="a/x")
    await item(memex, 2, scope="b/x", parents=[u(1)])
    await item(memex, 3, scope="a/x", parents=[u(2)])
    await item(memex, 4, scope="a/x")
    await edge(memex, 70, 3, 2)
    await edge(memex, 71, 3, 4)
    await memex.aliases.mark(u(4), u(2), "agent:x", None, ORIGIN)
    await intent(memex, 50, scope="b/", root_memory_ids=[u(3)])
    await intent(memex, 51, scope="a/", root_memory_ids=[u(3)])
    await task(memex, 60, 51, scope="b/", input_memory_ids=[u(3)])
    reader = caller(memex, "read:a/")
    walked = await export(reader, [3, 2], include_parents=True, include_children=True,
                          include_aliases=True, include_related_intents=True,
                          include_related_tasks=True, intents=[50])  # fmt: skip
    # m2 is hidden: not exported, and nothing is walked through it (m1 is not reached)
    assert names(walked) == {"memories": ["03"], "edges": [], "intents": ["51"], "tasks": []}
    got = await export(reader, [1, 4], include_children=True, include_aliases=True)
    assert names(got) == {"memories": ["01", "04"], "edges": [], "intents": [], "tasks": []}
    everything = await dump(reader, page=1)
    assert names(everything) == {"memories": ["01", "03", "04"], "edges": ["71"],
                                 "intents": ["51"], "tasks": []}  # fmt: skip
    assert {r["scope"] for r in everything["memories"]} == {"a/x"}


async def test_the_whole_export_comes_in_bounded_pages(memex: Memex) -> None:
    await d8(memex)
    pages = [page async for page in Exporter(memex).everything(2)]
    assert all(list(p) == list(KEYS) for p in pages)
    assert all(sum(len(p[k]) for k in KEYS) <= 2 for p in pages)
    assert [next(k for k in KEYS if p[k]) for p in pages] == (
        ["memories"] * 3 + ["edges"] * 2 + ["intents"] + ["tasks"] * 2
    )
    merged = await dump(memex, page=2)
    assert [r["id"] for r in merged["memories"]] == [u(n) for n in range(1, 7)]
    assert names(merged) == {"memories": ["01", "02", "03", "04", "05", "06"],
                             "edges": ["70", "71", "ALIAS", "ALIAS"], "intents": ["50", "51"],
                             "tasks": ["60", "61", "62"]}  # fmt: skip
    everything = await export(memex, range(1, 7), intents=[50, 51], task_ids=[u(60), u(61),
                              u(62)])  # fmt: skip
    assert as_set(merged) == as_set(everything)


@pytest.mark.parametrize("page", [0, -1, 10_001, True, "2"])
async def test_a_bad_page_size_is_refused(memex: Memex, page: Any) -> None:
    with pytest.raises(MemexError) as caught:
        async for _ in Exporter(memex).everything(page):
            pass
    assert caught.value.code == "BAD_USER_INPUT"


async def test_exports_are_bounded(store: GraphStore) -> None:
    small = Memex(store, Settings(traversal_max_nodes=3, max_list=2))
    await d8(small)
    with pytest.raises(MemexError) as caught:  # 1, 2, 3 and the alias 4
        await export(small, [1], include_children=True, include_aliases=True)
    assert caught.value.code == "RESOURCE_EXHAUSTED"
    with pytest.raises(MemexError) as caught:  # 3 memories and e70
        await export(small, [1], include_children=True)
    assert caught.value.code == "RESOURCE_EXHAUSTED"
    with pytest.raises(MemexError) as caught:
        await export(small, [1, 2, 3])
    assert caught.value.code == "BAD_USER_INPUT"
    assert names(await export(small, [1, 2])) == {"memories": ["01", "02"], "edges": ["70"],
                                                  "intents": [], "tasks": []}  # fmt: skip


@pytest.mark.parametrize(
    "options",
    [ExportOptions(memory_ids=["m1"]), ExportOptions(intent_ids="nope"),
     ExportOptions(include_parents="yes")],  # type: ignore[arg-type]
)  # fmt: skip
async def test_bad_export_options_are_refused(memex: Memex, options: ExportOptions) -> None:
    with pytest.raises(MemexError) as caught:
        await Exporter(memex).slice(options)
    assert caught.value.code == "BAD_USER_INPUT"


# ---------------------------------------------------------------- round trips


ROUND_TRIPS = [
    ([2], {"include_parents": True, "include_children": True, "include_aliases": True,
           "include_related_intents": True, "include_related_tasks": True}),
    ([1], {"include_aliases": True, "include_children": True}),
    ([5], {"include_children": True, "include_parents": True}),
    ([1, 3], {"include_related_intents": True, "include_related_tasks": True}),
    ([], {"intents": [50, 51], "include_related_tasks": True}),
]  # fmt: skip


@pytest.mark.parametrize(("anchors", "flags"), ROUND_TRIPS)
async def test_memexd_exports_round_trip_through_memex_python(
    memex: Memex, anchors: list[int], flags: dict[str, Any]
) -> None:
    await d8(memex)
    ours = await export(memex, anchors, **dict(flags))
    again = peer_export(peer_state(ours), anchors, **dict(flags))
    assert as_set(again) == as_set(ours)


def peer_graph() -> tuple[tuple[Any, Any, Any], dict[str, str]]:
    """A memex-python graph built with its own factories (its own UUIDv7s)."""
    mem = mx.create_graph_state()
    a = mx.create_memory_item(scope="p", kind="observation", content={"k": 1}, author="user:a",
                              source_kind="observed", authority=0.9, parents=[],
                              meta={"agent_id": "agent:x", "tags": ["t"]})  # fmt: skip
    b = mx.create_memory_item(scope="p", kind="derivation", content={"k": 2}, author="agent:r",
                              source_kind="agent_inferred", authority=0.4, conviction=0.6,
                              importance=1.0, parents=[a.id])  # fmt: skip
    c = mx.create_memory_item(scope="p", kind="assertion", content={}, author="user:a",
                              source_kind="user_explicit", authority=1)  # fmt: skip
    for it in (a, b, c):
        mem = mx.apply_command(mem, {"type": "memory.create", "item": it}).state
    e = mx.create_edge(from_=b.id, to=c.id, kind="SUPPORTS", author="agent:r",
                       source_kind="agent_inferred", authority=0.5, weight=0.25,
                       meta={"why": "x"})  # fmt: skip
    mem = mx.apply_command(mem, {"type": "edge.create", "edge": e}).state
    mem = mx.mark_alias(mem, a.id, c.id, "agent:x").state
    i = mx.create_intent(label="find", priority=0.8, owner="user:a", root_memory_ids=[a.id],
                         context={"q": 1}, description="long")  # fmt: skip
    ints = mx.apply_intent_command(mx.create_intent_state(),
                                   {"type": "intent.create", "intent": i}).state  # fmt: skip
    t = mx.create_task(
        intent_id=i.id,
        action="search",
        priority=0.3,
        input_memory_ids=[a.id],
        output_memory_ids=[b.id],
        agent_id="agent:r",
    )
    tasks = mx.apply_task_command(mx.create_task_state(), {"type": "task.create", "task": t}).state
    return (mem, ints, tasks), {"a": a.id, "b": b.id, "c": c.id, "i": i.id, "t": t.id}


@pytest.mark.parametrize(
    ("anchors", "flags"),
    [(["a"], {"include_children": True, "include_aliases": True,
              "include_related_intents": True, "include_related_tasks": True}),
     (["b"], {"include_parents": True}),
     (["c"], {"include_aliases": True, "include_related_tasks": True})],
)  # fmt: skip
async def test_memex_python_exports_round_trip_through_memexd(
    memex: Memex, anchors: list[str], flags: dict[str, Any]
) -> None:
    state, ids = peer_graph()
    memory_ids = [ids[a] for a in anchors]
    theirs = mx.export_slice(*state, memory_ids=memory_ids, **flags).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    report = await run_import(memex, theirs, scope="p")
    assert report["created"] == {k: [r["edge_id" if k == "edges" else "id"] for r in theirs[k]]
                                 for k in ("memories", "intents", "tasks", "edges")}  # fmt: skip
    ours = await Exporter(memex).slice(ExportOptions(memory_ids=memory_ids, **flags))
    assert as_set(ours) == as_set(theirs)
    again = await run_import(memex, ours)  # everything is there: all skipped
    assert {k: sorted(v) for k, v in again["skipped"].items()} == {
        k: sorted(v) for k, v in report["created"].items()
    }


# ---------------------------------------------------------------- import (§5.2, d9)


async def d9_state(m: Memex) -> None:
    """m1, m2(parent 1), e70 1→2 meta {"a": 1}, intent 50 (context {"c": 1},
    roots [1]), task 60 (context {"c": 1}, input [1], output [])."""
    await item(m, 1, parents=[])
    await item(m, 2, parents=[u(1)])
    await edge(m, 70, 1, 2, meta={"a": 1})
    await intent(m, 50, context={"c": 1}, root_memory_ids=[u(1)])
    await task(m, 60, 50, context={"c": 1}, input_memory_ids=[u(1)], output_memory_ids=[])


def d9_slice(before: JSONObject) -> JSONObject:
    s = copy.deepcopy(before)
    m1, m2 = s["memories"]
    m1["content"], m1["meta"] = {"n": "CHANGED"}, {"x": 1}
    m3 = {**m2, "id": u(3), "created_at": 0x0190A0000003, "parents": [u(1), u(2)],
          "intent_id": u(50), "task_id": u(60)}  # fmt: skip
    s["memories"].append(m3)
    e70 = s["edges"][0]
    e70["active"] = False
    del e70["meta"]
    s["edges"].append({**e70, "edge_id": u(71), "to": u(3), "active": True})
    i50 = s["intents"][0]
    i50["label"], i50["status"] = "goal CHANGED", "completed"
    s["intents"].append({"id": u(51), "parent_id": u(50), "label": "sub", "priority": 0.4,
                         "owner": "user:t", "status": "active",
                         "root_memory_ids": [u(1), u(3)]})  # fmt: skip
    t60 = s["tasks"][0]
    t60["status"], t60["attempt"] = "running", 3
    s["tasks"].append({"id": u(61), "intent_id": u(50), "parent_id": u(60), "action": "next",
                       "status": "pending", "priority": 0.2, "input_memory_ids": [u(1)],
                       "output_memory_ids": [u(3)]})  # fmt: skip
    return s


ALL: dict[str, list[str]] = {"memories": [], "intents": [], "tasks": [], "edges": []}
D9 = [  # options, expected report by names: the reference's table
    ({}, {"created": {"memories": ["03"], "intents": ["51"], "tasks": ["61"], "edges": ["71"]},
          "skipped": {"memories": ["01", "02"], "intents": ["50"], "tasks": ["60"],
                      "edges": ["70"]}}),
    ({"skip_existing_ids": False},
     {"created": {"memories": ["03"], "intents": ["51"], "tasks": ["61"], "edges": ["71"]},
      "updated": {"memories": ["01", "02"], "intents": ["50"], "tasks": ["60"],
                  "edges": ["70"]}}),
    ({"shallow_compare_existing": True},
     {"created": {"memories": ["03"], "intents": ["51"], "tasks": ["61"], "edges": ["71"]},
      "skipped": {"memories": ["02"], "intents": [], "tasks": [], "edges": []},
      "conflicts": {"memories": ["01"], "intents": ["50"], "tasks": ["60"], "edges": ["70"]}}),
    ({"shallow_compare_existing": True, "re_id_on_difference": True},
     {"created": {"memories": ["NEW", "03"], "intents": ["NEW", "51"], "tasks": ["NEW", "61"],
                  "edges": ["NEW", "71"]},
      "skipped": {"memories": ["02"], "intents": [], "tasks": [], "edges": []}}),
    ({"re_id_on_difference": True},  # without compare: a plain skip
     {"created": {"memories": ["03"], "intents": ["51"], "tasks": ["61"], "edges": ["71"]},
      "skipped": {"memories": ["01", "02"], "intents": ["50"], "tasks": ["60"],
                  "edges": ["70"]}}),
]  # fmt: skip


def named_report(report: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    return {bucket: {k: [name(i) for i in ids] for k, ids in lists.items()}
            for bucket, lists in report.items() if any(lists.values())}  # fmt: skip


def same_ids(ours: JSONObject, report: Any, peer_report: Any) -> JSONObject:
    """``ours`` with the ids memexd minted replaced by those memex-python
    minted for the same records (same processing order), as text."""
    text = json.dumps(ours)
    for kind in ("memories", "intents", "tasks", "edges"):
        for mine, its in zip(report["created"][kind], getattr(peer_report.created, kind),
                             strict=True):  # fmt: skip
            text = text.replace(mine, its)
    out: JSONObject = json.loads(text)
    return out


@pytest.mark.parametrize(("options", "expected"), D9)
async def test_import_follows_memex_table(
    memex: Memex, options: dict[str, Any], expected: dict[str, Any]
) -> None:
    await d9_state(memex)
    before = await dump(memex)
    data = d9_slice(before)
    report = await run_import(memex, data, **options)
    assert named_report(report) == expected
    # memex-python, from the same state and with the same slice, ends the same
    peer = mx.import_slice(*peer_state(before), copy.deepcopy(data), **options)
    assert named_report({b: getattr(peer.report, b).__dict__ for b in report}) == expected
    ours = same_ids(await dump(memex), report, peer.report)
    theirs = mx.export_slice(
        peer.mem_state, peer.intent_state, peer.task_state,
        memory_ids=list(peer.mem_state.items), intent_ids=list(peer.intent_state.intents),
        task_ids=list(peer.task_state.tasks),
    ).model_dump(mode="json", by_alias=True, exclude_none=True)  # fmt: skip
    for record in theirs[
        "memories"
    ]:  # memexd's created_at is the id's (MemEX's port keeps the old)
        record["created_at"] = int(record["id"][:8] + record["id"][9:13], 16)
    assert as_set(ours) == as_set(theirs)


async def test_update_in_place_follows_memex(memex: Memex) -> None:
    await d9_state(memex)
    await run_import(memex, d9_slice(await dump(memex)), skip_existing_ids=False)
    after = await dump(memex)
    m1 = after["memories"][0]
    assert (m1["content"], m1["meta"]) == ({"n": "CHANGED"}, {"x": 1})  # shallow merge
    e70 = next(e for e in after["edges"] if e["edge_id"] == u(70))
    assert (e70["active"], e70["meta"]) == (False, {"a": 1})  # absent meta kept
    i50 = after["intents"][0]
    assert (i50["label"], i50["status"], i50["context"]) == ("goal CHANGED", "active", {"c": 1})
    t60 = after["tasks"][0]
    assert (t60["status"], t60["attempt"], t60["context"]) == ("pending", 3, {"c": 1})
    # an update always sets an intent's parent_id and root_memory_ids (None clears)
    data = {"intents": [{k: v for k, v in i50.items() if k != "root_memory_ids"}]}
    await run_import(memex, data, skip_existing_ids=False)
    assert "root_memory_ids" not in (await dump(memex))["intents"][0]


async def test_re_id_rewrites_every_reference(memex: Memex) -> None:
    await d9_state(memex)
    report = await run_import(memex, d9_slice(await dump(memex)), shallow_compare_existing=True,
                              re_id_on_difference=True)  # fmt: skip
    m1x, i50x, t60x, e70x = (report["created"][k][0] for k in ("memories", "intents", "tasks",
                                                                "edges"))  # fmt: skip
    assert int(m1x[:8] + m1x[9:13], 16) == 0x0190A0000001 + 1  # 1 ms after m1
    after = await dump(memex)
    by_id = {r.get("id", r.get("edge_id")): r for k in KEYS for r in after[k]}
    assert by_id[u(1)]["content"] == {"n": 1}  # the original is untouched
    assert by_id[m1x]["content"] == {"n": "CHANGED"}
    assert by_id[m1x]["created_at"] == 0x0190A0000002
    m3 = by_id[u(3)]
    assert (m3["parents"], m3["intent_id"], m3["task_id"]) == ([m1x, u(2)], i50x, t60x)
    assert (by_id[e70x]["from"], by_id[e70x]["to"], by_id[e70x]["active"]) == (m1x, u(2), False)
    assert by_id[u(71)]["from"] == m1x
    assert (by_id[i50x]["status"], by_id[i50x]["root_memory_ids"]) == ("completed", [m1x])
    assert (by_id[u(51)]["parent_id"], by_id[u(51)]["root_memory_ids"]) == (i50x, [m1x, u(3)])
    assert (by_id[t60x]["intent_id"], by_id[t60x]["status"]) == (i50x, "running")
    t61 = by_id[u(61)]
    assert (t61["intent_id"], t61["parent_id"], t61["input_memory_ids"]) == (i50x, t60x, [m1x])


async def test_an_import_logs_the_events_of_what_it_writes(memex: Memex) -> None:
    await d9_state(memex)
    seen = {e.id for e in await memex.events.list(None, None, None)}
    await run_import(memex, d9_slice(await dump(memex)), skip_existing_ids=False)
    new = [e for e in await memex.events.list(None, None, None) if e.id not in seen]
    assert sorted(e.type for e in new) == sorted(
        ["memory.created", "memory.updated", "memory.updated", "edge.created", "edge.updated",
         "intent.created", "intent.updated", "task.created", "task.updated"]
    )  # fmt: skip


async def test_duplicates_in_a_slice_meet_the_first_copy(memex: Memex) -> None:
    first = {"id": u(1), "scope": "s", "kind": "k", "content": {"v": 1}, "author": "u",
             "source_kind": "o", "authority": 0.5}  # fmt: skip
    second = {**first, "content": {"v": 2}}
    data = {"memories": [first, first, second]}
    assert named_report(await run_import(memex, data, shallow_compare_existing=True)) == {
        "created": {"memories": ["01"], "intents": [], "tasks": [], "edges": []},
        "skipped": {"memories": ["01"], "intents": [], "tasks": [], "edges": []},
        "conflicts": {"memories": ["01"], "intents": [], "tasks": [], "edges": []},
    }


# ---------------------------------------------------------------- what memexd cannot store


MEMORY = {"scope": "s", "kind": "k", "content": {}, "author": "u", "source_kind": "o",
          "authority": 0.5}  # fmt: skip
EDGE = {"kind": "SUPPORTS", "author": "u", "source_kind": "o", "authority": 0.5, "active": True}


async def test_dangling_edges_are_conflicts(memex: Memex) -> None:
    await item(memex, 1)
    await item(memex, 2)
    await memex.items.retract(u(2), "user:t", None, ORIGIN)
    data = {
        "memories": [{**MEMORY, "id": u(3)}],
        "edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(3)},
                  {**EDGE, "edge_id": u(71), "from": u(1), "to": u(9)},  # missing
                  {**EDGE, "edge_id": u(72), "from": u(2), "to": u(1)}],  # retracted
    }  # fmt: skip
    report = named_report(await run_import(memex, data))
    assert report["created"] == {"memories": ["03"], "intents": [], "tasks": [], "edges": ["70"]}
    assert report["conflicts"]["edges"] == ["71", "72"]
    assert names(await dump(memex))["edges"] == ["70"]


async def test_ids_held_by_what_the_caller_cannot_see_are_conflicts(memex: Memex) -> None:
    await item(memex, 1)
    await memex.items.retract(u(1), "user:t", None, ORIGIN)  # a tombstone
    await item(memex, 2, scope="b/")
    await item(memex, 3, scope="b/")
    await edge(memex, 70, 2, 3)
    await intent(memex, 50, scope="b/")
    importer = caller(memex, "write:a/")
    data = {"memories": [{**MEMORY, "scope": "a/", "id": u(n)} for n in (1, 2, 4, 3, 5)],
            "edges": [{**EDGE, "edge_id": u(70), "from": u(4), "to": u(5)}],
            "intents": [{"id": u(50), "label": "l", "priority": 0.5, "owner": "o",
                         "status": "active"}]}  # fmt: skip
    for options in ({}, {"shallow_compare_existing": True, "re_id_on_difference": True}):
        report = named_report(await run_import(importer, data, **options))
        assert report["conflicts"] == {"memories": ["01", "02", "03"], "intents": ["50"],
                                       "tasks": [], "edges": ["70"]}  # fmt: skip
    assert report["skipped"]["memories"] == ["04", "05"]
    assert names(await dump(importer))["memories"] == ["04", "05"]


async def test_a_duplicate_edge_in_update_mode_updates_the_first_copy(memex: Memex) -> None:
    await item(memex, 1)
    first = {**EDGE, "edge_id": u(70), "from": u(1), "to": u(1)}
    data = {"edges": [first, {**first, "active": False}]}
    report = named_report(await run_import(memex, data, skip_existing_ids=False))
    assert (report["created"]["edges"], report["updated"]["edges"]) == (["70"], ["70"])
    assert [e["active"] for e in (await dump(memex))["edges"]] == [False]


async def test_an_edge_update_cannot_change_its_author(memex: Memex) -> None:
    await item(memex, 1)
    await item(memex, 2)
    await edge(memex, 70, 1, 2)
    data = {"edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(2), "author": "other"}]}
    report = await run_import(memex, data, skip_existing_ids=False)
    assert report["conflicts"]["edges"] == [u(70)]


# ---------------------------------------------------------------- grants and scopes


async def test_import_needs_write_grants_and_writes_nothing_without(memex: Memex) -> None:
    await item(memex, 1, scope="b/")
    before = await snapshot(memex)
    writer = caller(memex, "read:", "write:a/")
    cases = [
        {"memories": [{**MEMORY, "scope": "a/", "id": u(2)}, {**MEMORY, "scope": "b/",
                                                               "id": u(3)}]},
        {"memories": [{**MEMORY, "scope": "a/", "id": u(2)}],
         "edges": [{**EDGE, "edge_id": u(70), "from": u(2), "to": u(1)}]},
        {"memories": [{**MEMORY, "scope": "b/", "id": u(1)}]},  # update in place
    ]  # fmt: skip
    for data in cases:
        with pytest.raises(MemexError) as caught:
            await run_import(writer, data, skip_existing_ids=False)
        assert caught.value.code == "FORBIDDEN"
    assert await snapshot(memex) == before


async def test_intents_and_tasks_take_the_scope_option_or_the_rule(memex: Memex) -> None:
    data = {"intents": [{"id": u(50), "label": "l", "priority": 0.5, "owner": "o",
                         "status": "paused"}],
            "tasks": [{"id": u(60), "intent_id": u(50), "action": "a", "priority": 0.5,
                       "status": "running"}]}  # fmt: skip
    two = caller(memex, "write:a/", "write:b/")
    before = await snapshot(memex)
    with pytest.raises(MemexError) as caught:
        await run_import(two, data)
    assert caught.value.code == "BAD_USER_INPUT"
    assert await snapshot(memex) == before
    await run_import(two, data, scope="b/x")
    got = await memex.task_reads.get(u(60))
    assert got is not None
    assert got.scope == "b/x"
    assert got.status == "running"
    assert "attempt" not in got.data  # MemEX's raw JSON has none
    one = caller(memex, "read:", "write:b/")
    await run_import(one, {"tasks": [{**data["tasks"][0], "id": u(61)}]})
    got = await memex.task_reads.get(u(61))
    assert got is not None
    assert got.scope == "b/x"


# ---------------------------------------------------------------- bad slices


GOOD = {"id": u(1), **MEMORY}
BAD = [
    ("not a slice", "BAD_USER_INPUT", "slice"),
    ({"memories": {}}, "BAD_USER_INPUT", "slice.memories"),
    ({"memories": [], "others": []}, "BAD_USER_INPUT", "unknown keys"),
    ({"memories": [GOOD, "x"]}, "BAD_USER_INPUT", "slice.memories[1]"),
    ({"memories": [GOOD, {**GOOD, "id": "m1"}]}, "INVALID_TIMESTAMP", "slice.memories[1].id"),
    ({"memories": [GOOD, {**GOOD, "id": "0190a000-0000-4000-8000-000000000001"}]},
     "INVALID_TIMESTAMP", "slice.memories[1].id"),
    ({"memories": [GOOD, {**GOOD, "id": 7}]}, "BAD_USER_INPUT", "slice.memories[1].id"),
    ({"memories": [GOOD, {k: v for k, v in GOOD.items() if k != "authority"}]},
     "BAD_USER_INPUT", "slice.memories[1].authority: is required"),
    ({"memories": [GOOD, {**GOOD, "authority": 2}]}, "BAD_USER_INPUT",
     "slice.memories[1].authority"),
    ({"memories": [GOOD, {**GOOD, "source_kind": ""}]}, "BAD_USER_INPUT",
     "slice.memories[1].source_kind"),
    ({"memories": [GOOD, {**GOOD, "parents": ["p"]}]}, "BAD_USER_INPUT",
     "slice.memories[1].parents"),
    ({"memories": [GOOD, {**GOOD, "content": []}]}, "BAD_USER_INPUT",
     "slice.memories[1].content"),
    ({"memories": [GOOD, {**GOOD, "created_at": 5}]}, "BAD_USER_INPUT",
     "slice.memories[1].created_at"),
    ({"memories": [GOOD, {**GOOD, "retracted": False}]}, "BAD_USER_INPUT", "unknown fields"),
    ({"memories": [GOOD], "edges": [{**EDGE, "edge_id": "e1", "from": u(1), "to": u(1)}]},
     "BAD_USER_INPUT", "slice.edges[0].edge_id"),
    ({"memories": [GOOD], "edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(1),
                                     "weight": 2}]}, "BAD_USER_INPUT", "slice.edges[0].weight"),
    ({"memories": [GOOD], "edges": [{**EDGE, "edge_id": u(70), "from_": u(1), "to": u(1)}]},
     "BAD_USER_INPUT", "slice.edges[0]"),
    ({"memories": [GOOD], "edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(1),
                                     "kind": "bad kind"}]}, "BAD_USER_INPUT",
     "slice.edges[0].kind"),
    ({"memories": [GOOD], "edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(1),
                                     "active": "yes"}]}, "BAD_USER_INPUT",
     "slice.edges[0].active"),
    ({"memories": [GOOD], "intents": [{"id": "i1", "label": "l", "priority": 0.5,
                                       "owner": "o", "status": "active"}]},
     "BAD_USER_INPUT", "slice.intents[0].id"),
    ({"memories": [GOOD], "intents": [{"id": u(50), "label": "l", "priority": 0.5,
                                       "owner": "o"}]}, "BAD_USER_INPUT",
     "slice.intents[0].status: is required"),
    ({"memories": [GOOD], "intents": [{"id": u(50), "label": "l", "priority": 0.5,
                                       "owner": "o", "status": "done"}]}, "BAD_USER_INPUT",
     "slice.intents[0].status"),
    ({"memories": [GOOD], "tasks": [{"id": u(60), "intent_id": u(50), "action": "a",
                                     "priority": 0.5, "status": "pending", "attempt": -1}]},
     "BAD_USER_INPUT", "slice.tasks[0].attempt"),
    ({"memories": [GOOD], "tasks": [{"id": u(60), "intent_id": u(50), "action": "a",
                                     "priority": 0.5, "status": "pending", "scope": "s"}]},
     "BAD_USER_INPUT", "slice.tasks[0]"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "code", "where"), BAD)
async def test_a_bad_slice_writes_nothing(memex: Memex, data: Any, code: str, where: str) -> None:
    await item(memex, 9)
    before = await snapshot(memex)
    with pytest.raises(MemexError) as caught:
        await run_import(memex, data)
    assert caught.value.code == code
    assert where in caught.value.message
    assert await snapshot(memex) == before


async def test_a_slice_that_cannot_be_re_ided_writes_nothing(memex: Memex) -> None:
    v4 = "0190a000-0000-4000-8000-000000000050"  # a UUID, but not v7: no time to add 1 ms to
    await memex.intents.create({"id": v4, "label": "l", "priority": 0.5, "owner": "o"}, "s",
                               ORIGIN)  # fmt: skip
    before = await snapshot(memex)
    data = {"memories": [GOOD], "intents": [{"id": v4, "label": "other", "priority": 0.5,
                                             "owner": "o", "status": "active"}]}  # fmt: skip
    with pytest.raises(MemexError) as caught:
        await run_import(memex, data, shallow_compare_existing=True, re_id_on_difference=True)
    assert (caught.value.code, "slice.intents[0]" in caught.value.message) == (
        "INVALID_TIMESTAMP", True)  # fmt: skip
    assert await snapshot(memex) == before


async def test_slices_are_bounded(store: GraphStore) -> None:
    small = Memex(store, Settings(traversal_max_nodes=2))
    before = await snapshot(small)
    data = {"memories": [{**MEMORY, "id": u(n)} for n in (1, 2)],
            "edges": [{**EDGE, "edge_id": u(70), "from": u(1), "to": u(2)}]}  # fmt: skip
    with pytest.raises(MemexError) as caught:
        await run_import(small, data)
    assert caught.value.code == "BAD_USER_INPUT"
    assert await snapshot(small) == before


@pytest.mark.parametrize("options", [ImportOptions(skip_existing_ids=None),  # type: ignore[arg-type]
                                     ImportOptions(scope="bad\nscope")])  # fmt: skip
async def test_bad_import_options_are_refused(memex: Memex, options: ImportOptions) -> None:
    with pytest.raises(MemexError) as caught:
        await Importer(memex).slice({"memories": [GOOD]}, options, ORIGIN)
    assert caught.value.code == "BAD_USER_INPUT"


async def test_many_memories_are_created_in_batches(store: GraphStore) -> None:
    counting = CountingStore(store)
    m = Memex(counting, Settings(max_batch=10))
    data = {"memories": [{**MEMORY, "id": u(n)} for n in range(1, 31)]}
    report = await run_import(m, data)
    assert len(report["created"]["memories"]) == 30
    assert counting.writes == 3


# ---------------------------------------------------------------- GraphQL


@strawberry.type
class _Query:
    export_slice: JSON = strawberry.field(resolver=transplant_r.export_slice)


@strawberry.type
class _Mutation:
    import_slice: ImportReportType = strawberry.mutation(resolver=transplant_r.import_slice)


SCHEMA = strawberry.Schema(query=_Query, mutation=_Mutation)
IDS = "{ memories intents tasks edges }"


def shape(schema: GraphQLSchema, type_name: str) -> dict[str, tuple[str, str]]:
    """Each field's type and default value (a null default is no default)."""
    out = {}
    for key, f in schema.type_map[type_name].fields.items():  # type: ignore[attr-defined]
        given = getattr(f.ast_node, "default_value", None)
        default = "" if given is None else print_ast(given)
        out[key] = (str(f.type), "" if default == "null" else default)
    return out


async def test_graphql_types_and_resolvers(memex: Memex) -> None:
    contract = build_schema((ROOT / "tests" / "contract.graphql").read_text())
    ours = build_schema(str(SCHEMA))
    for type_name in ("ExportInput", "ImportOptions", "IdLists", "ImportReport"):
        assert shape(ours, type_name) == shape(contract, type_name)
    await d8(memex)
    context = Context.of(memex, ORIGIN)
    got = await SCHEMA.execute(
        "query($i: ExportInput!) { exportSlice(input: $i) }",
        variable_values={"i": {"memoryIds": [u(2)], "includeParents": True}},
        context_value=context,
    )
    assert got.errors is None
    assert got.data is not None
    data = got.data["exportSlice"]
    assert names(data) == {"memories": ["01", "02"], "edges": ["70"], "intents": [], "tasks": []}
    mutation = f"""mutation($s: JSON!, $o: ImportOptions) {{ importSlice(slice: $s, options: $o)
      {{ created {IDS} updated {IDS} skipped {IDS} conflicts {IDS} }} }}"""
    data["memories"][0]["content"] = {"changed": True}
    done = await SCHEMA.execute(mutation, variable_values={"s": data, "o": None},
                                context_value=context)  # fmt: skip
    assert done.errors is None
    assert done.data is not None
    assert done.data["importSlice"]["skipped"] == {"memories": [u(1), u(2)], "intents": [],
                                                   "tasks": [], "edges": [u(70)]}  # fmt: skip
    done = await SCHEMA.execute(
        mutation, variable_values={"s": data, "o": {"shallowCompareExisting": True}},
        context_value=context,
    )  # fmt: skip
    assert done.errors is None
    assert done.data is not None
    assert done.data["importSlice"]["conflicts"]["memories"] == [u(1)]
    bad = await SCHEMA.execute(mutation, variable_values={"s": [1]}, context_value=context)
    assert bad.errors
    assert isinstance(bad.errors[0].original_error, MemexError)
    assert bad.errors[0].original_error.code == "BAD_USER_INPUT"


def test_the_report_type_matches_memex() -> None:
    report = ImportReport()
    report.created.memories.append("m")
    assert report.json() == {"created": {**ALL, "memories": ["m"]}, "updated": ALL,
                             "skipped": ALL, "conflicts": ALL}  # fmt: skip
