"""Archival (SPEC §11): archiveByDecay, unarchiveItems, includeArchived, the
events and the feed's log, grants and bad input."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memexd.ids import uuid7_at
from memexd.memory.text import ensure_index
from tests.support import Api

ARCHIVE = """mutation($i: ArchiveInput!) { archiveByDecay(input: $i) {
  archivedIds retainedIds skippedIds dryRun } }"""
UNARCHIVE = """mutation($ids: [ID!]!) { unarchiveItems(ids: $ids, author: "user:ops") {
  id archived } }"""
FIND = "query($f: MemoryFilter) { items(filter: $f) { id archived } }"
DAY = 86_400_000


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


async def aged(api: Api, days: float, **fields: Any) -> str:
    """An item created ``days`` ago (its id carries the time)."""
    fields.setdefault("scope", "tenant:a/x")
    item = await api.create(id=uuid7_at(now_ms() - int(days * DAY)), **fields)
    return str(item["id"])


async def ids(api: Api, flt: dict[str, Any] | None = None) -> set[str]:
    return {i["id"] for i in (await api.ok(FIND, f=flt))["items"]}


async def stale_world(api: Api) -> dict[str, str]:
    """decay scores at 30-day half-life: fresh 1.0, stale session e^-3 = 0.05,
    stale PROJECT 0.05 (protected), older but P0 2e^-2 = 0.27."""
    return {
        "fresh": await aged(api, 0, lifecycle="SESSION"),
        "stale": await aged(api, 90, lifecycle="SESSION"),
        "old_rule": await aged(api, 90),
        "vital": await aged(api, 60, lifecycle="TASK", priority="P0"),
    }


async def test_a_dry_run_reports_and_writes_nothing(api: Api) -> None:
    w = await stale_world(api)
    before = await api.snapshot()
    report = (await api.ok(ARCHIVE, i={"author": "user:ops", "dryRun": True}))["archiveByDecay"]
    assert report == {"archivedIds": [w["stale"]], "skippedIds": [w["old_rule"]],
                      "retainedIds": [w["vital"], w["fresh"]], "dryRun": True}  # fmt: skip
    assert await api.snapshot() == before


async def test_archived_items_leave_every_read_until_unarchived(make_api: Any) -> None:
    api: Api = await make_api(embedding="off", text_search=True)
    await ensure_index(api.graph, True)
    w = await stale_world(api)
    text = await aged(api, 120, lifecycle="EPHEMERAL", content={"text": "harbour crane"})
    report = (await api.ok(ARCHIVE, i={"author": "user:ops"}))["archiveByDecay"]
    assert report["archivedIds"] == [text, w["stale"]]  # lowest score first
    assert report["dryRun"] is False
    assert await ids(api) == {w["fresh"], w["old_rule"], w["vital"]}
    everything = await ids(api, {"includeArchived": True})
    assert everything == {*w.values(), text}
    one = await api.ok("query($id: ID!) { item(id: $id) { archived } }", id=w["stale"])
    assert one["item"] == {"archived": True}  # item(id) still answers
    recall = 'query { recall(input: {cue: "harbour crane", mode: TEXT}) { item { id } } }'
    assert (await api.ok(recall))["recall"] == []
    search = 'query { searchItems(text: "harbour") { id } }'
    assert (await api.ok(search))["searchItems"] == []
    context = "query { context(input: {}) { items { id } } }"
    assert text not in {i["id"] for i in (await api.ok(context))["context"]["items"]}
    again = (await api.ok(ARCHIVE, i={"author": "user:ops"}))["archiveByDecay"]
    assert again["archivedIds"] == []  # archived ones are not read again
    back = (await api.ok(UNARCHIVE, ids=[w["stale"], w["fresh"]]))["unarchiveItems"]
    assert back == [{"id": w["stale"], "archived": False}, {"id": w["fresh"], "archived": False}]
    assert w["stale"] in await ids(api)
    assert (await api.ok(recall))["recall"] == []  # still archived: the crane note
    await ensure_index(api.graph, False)


async def test_archival_and_unarchival_are_events(api: Api) -> None:
    w = await stale_world(api)
    await api.ok(ARCHIVE, i={"author": "user:ops"})
    await api.ok(UNARCHIVE, ids=[w["stale"]])
    log = await api.ok('{ events(filter: {types: ["memory.archived", "memory.unarchived"]}) '
                       "{ type author payload } }")  # fmt: skip
    got = [(e["type"], e["author"], e["payload"]["item"]["id"], e["payload"]["cause_type"])
           for e in log["events"]]  # fmt: skip
    assert got == [("memory.archived", "user:ops", w["stale"], "memory.archive"),
                   ("memory.unarchived", "user:ops", w["stale"], "memory.unarchive")]  # fmt: skip


async def test_filters_and_thresholds_choose_what_is_archived(api: Api) -> None:
    w = await stale_world(api)
    other = await aged(api, 90, lifecycle="SESSION", scope="tenant:b/x")
    scoped = {"author": "u", "filter": {"scopePrefix": "tenant:b/"}, "dryRun": True}
    assert (await api.ok(ARCHIVE, i=scoped))["archiveByDecay"]["archivedIds"] == [other]
    high = {"author": "u", "threshold": 10.0, "dryRun": True}
    assert set((await api.ok(ARCHIVE, i=high))["archiveByDecay"]["archivedIds"]) == {
        w["fresh"], w["stale"], w["vital"], other}  # fmt: skip
    later = datetime.fromtimestamp((now_ms() + 400 * DAY) / 1000, UTC).isoformat()
    future = {"author": "u", "now": later, "halfLifeMs": 1e12, "dryRun": True}
    assert (await api.ok(ARCHIVE, i=future))["archiveByDecay"]["archivedIds"] == []


async def test_grants_bound_archival(api: Api) -> None:
    mine = await aged(api, 90, lifecycle="SESSION", scope="tenant:a/x")
    theirs = await aged(api, 90, lifecycle="SESSION", scope="tenant:b/x")
    writer = api.with_grants("read:tenant:", "write:tenant:a/")
    admin = api.with_grants("read:", "write:")
    report = (await writer.ok(ARCHIVE, i={"author": "u"}))["archiveByDecay"]
    assert report["archivedIds"] == [mine]
    assert theirs in await ids(admin)
    await admin.ok(ARCHIVE, i={"author": "u"})  # archives theirs
    assert await writer.codes(UNARCHIVE, ids=[theirs]) == ["FORBIDDEN"]
    reader = api.with_grants("read:tenant:a/")
    assert await reader.codes(UNARCHIVE, ids=[theirs]) == ["MEMORY_NOT_FOUND"]


async def test_bad_archival_input_writes_nothing(api: Api) -> None:
    item = await aged(api, 90, lifecycle="SESSION")
    before = await api.snapshot()
    for given in ({"threshold": 0.0}, {"threshold": 10.5}, {"threshold": -1.0},
                  {"halfLifeMs": 0.0}, {"author": ""},
                  {"filter": {"or": [{"includeArchived": True}]}}):  # fmt: skip
        body = {"author": "u", **given}
        assert await api.codes(ARCHIVE, i=body) == ["BAD_USER_INPUT"], given
    missing = uuid7_at(1_700_000_000_000)
    assert await api.codes(UNARCHIVE, ids=[item, missing]) == ["MEMORY_NOT_FOUND"]
    assert await api.codes(UNARCHIVE, ids=["nope"]) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before


WALKS = """query($root: ID!, $leaf: ID!, $all: Boolean) {
  children(id: $root, includeArchived: $all) { id }
  parents(id: $leaf, includeArchived: $all) { id }
  dependents(id: $root, transitive: true, includeArchived: $all) { id }
  supportSet(id: $leaf, includeArchived: $all) { id }
  supportTree(id: $leaf, includeArchived: $all) { nodes { item { id } } links { child parent } }
  relatedItems(id: $root, includeArchived: $all) { id }
  aliases(id: $root, includeArchived: $all) { id }
  aliasGroup(id: $root, includeArchived: $all) { id }
  contradictions(includeArchived: $all) { a { id } b { id } }
  staleItems(includeArchived: $all) { item { id } }
  item(id: $root) { children(includeArchived: $all) { id } aliases(includeArchived: $all) { id }
    contradictedBy(includeArchived: $all) { id } }
  leaf: item(id: $leaf) { parentItems(includeArchived: $all) { id } }
}"""


async def test_walks_and_nested_lists_leave_archived_items_out(api: Api) -> None:
    """root <- mid (archived) <- leaf; mid is also root's alias and
    contradicts it, and a stale item (a missing parent) is archived too."""
    root = await aged(api, 0)
    mid = await aged(api, 90, lifecycle="SESSION", parents=[root])
    leaf = await aged(api, 0, parents=[mid])
    stale = await aged(api, 90, lifecycle="SESSION", parents=[uuid7_at(1_700_000_000_000)])
    await api.ok('mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") '
                 "{ events { type } } }", a=root, b=mid)  # fmt: skip
    await api.ok('mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, author: "u") '
                 "{ edge { edgeId } } }", a=mid, b=root)  # fmt: skip
    every = await api.ok(WALKS, root=root, leaf=leaf, all=True)
    assert every["children"] == [{"id": mid}]
    assert {i["id"] for i in every["dependents"]} == {mid, leaf}
    assert {n["item"]["id"] for n in every["supportTree"]["nodes"]} == {leaf, mid, root}
    assert every["staleItems"] == [{"item": {"id": stale}}]
    assert every["contradictions"] == [{"a": {"id": mid}, "b": {"id": root}}]
    archived = (await api.ok(ARCHIVE, i={"author": "u"}))["archiveByDecay"]["archivedIds"]
    assert set(archived) == {mid, stale}
    got = await api.ok(WALKS, root=root, leaf=leaf, all=False)
    assert got["children"] == got["parents"] == got["relatedItems"] == []
    assert got["dependents"] == [{"id": leaf}]  # walked through mid
    assert got["supportSet"] == [i for i in every["supportSet"] if i["id"] != mid]
    assert {i["id"] for i in every["supportSet"]} == {leaf, mid, root}
    assert got["supportTree"] == {"nodes": [{"item": {"id": leaf}}, {"item": {"id": root}}],
                                  "links": []}  # fmt: skip
    assert got["aliases"] == []
    assert got["aliasGroup"] == [{"id": root}]
    assert got["contradictions"] == got["staleItems"] == []
    assert got["item"] == {"children": [], "aliases": [], "contradictedBy": []}
    assert got["leaf"] == {"parentItems": []}
    again = await api.ok(WALKS, root=root, leaf=leaf, all=True)
    assert again["children"] == [{"id": mid}]
    assert again["supportSet"] == every["supportSet"]
    gone = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { retracted } }'
    assert set((await api.ok(gone, id=root))["cascadeRetract"]["retracted"]) == {root, mid, leaf}
