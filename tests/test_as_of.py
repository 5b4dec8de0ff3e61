"""Memory as of an instant (SPEC §14): itemAsOf and supportSetAsOf equal
replaying the event log (read through the public ``events`` query) up to the
instant, on random histories; bad instants refused; grants applied."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.graph.migrations import migrate
from memexd.ids import id_key
from tests.support import Api

UPDATE = """mutation($id: ID!, $p: MemoryItemPatch!) {
  updateItem(id: $id, patch: $p, author: "u") { item { id } } }"""
RETRACT = 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }'
ARCHIVE = """mutation($ids: [ID!]!) { archiveByDecay(input: {author: "u", filter: {ids: $ids},
  threshold: 10}) { archivedIds } }"""
UNARCHIVE = 'mutation($ids: [ID!]!) { unarchiveItems(ids: $ids, author: "u") { id } }'
EVENTS = """query($after: ID, $ids: [ID!]) { events(after: $after, limit: 1000,
  filter: {namespaces: ["memory"], itemIds: $ids}) { id type ts payload } }"""
AS_OF = """query($id: ID!, $at: DateTime!) {
  itemAsOf(id: $id, asOf: $at) { id scope kind content authority parents archived }
  supportSetAsOf(id: $id, asOf: $at, includeArchived: true) { id } }"""
ITEMS_AS_OF = """query($at: DateTime!, $ids: [ID!], $all: Boolean, $n: Int) {
  itemsAsOf(asOf: $at, filter: {ids: $ids, range: {authority: {min: 0.3}}, includeArchived: $all},
  limit: $n) { id authority archived } }"""
SLOW = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip

#: One step of a history: what, to which of the items (by index), with what.
Step = tuple[str, int, int]


@st.composite
def histories(draw: st.DrawFn) -> list[Step]:
    verbs = st.sampled_from(["create", "update", "reparent", "archive", "unarchive", "retract"])
    return draw(st.lists(st.tuples(verbs, st.integers(0, 4), st.integers(0, 4)),
                         min_size=1, max_size=14))  # fmt: skip


async def play(api: Api, steps: list[Step]) -> list[str]:
    """Run the steps (a step on an item not there, or not allowed, is skipped
    as the service refuses it) and return the ids of the items made."""
    made: list[str] = []
    for verb, a, b in steps:
        if verb == "create" or not made:
            parents = [made[b % len(made)]] if made and b % 2 else []
            made.append((await api.create(lifecycle="TASK", parents=parents))["id"])
        else:
            await _step(api, verb, made[a % len(made)], made[b % len(made)], a + b)
        await asyncio.sleep(0.002)  # instants between commands, not only at them
    return made


async def _step(api: Api, verb: str, item: str, other: str, n: int) -> None:
    query, variables = {
        "update": (UPDATE, {"id": item, "p": {"content": {"v": n}, "authority": n / 10}}),
        "reparent": (UPDATE, {"id": item, "p": {"parents": [other]}}),
        "archive": (ARCHIVE, {"ids": [item]}),
        "unarchive": (UNARCHIVE, {"ids": [item]}),
        "retract": (RETRACT, {"id": item}),
    }[verb]
    await api.run(query, variables)  # refusals (a retracted item, ...) change nothing


async def logged(api: Api, ids: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = None
    while page := (await api.ok(EVENTS, after=after, ids=ids))["events"]:
        events += page
        after = page[-1]["id"]
    return [e for e in events if e["payload"].get("item", {}).get("id") in ids]


def replay(events: list[dict[str, Any]], at: datetime) -> dict[str, dict[str, Any]]:
    """The oracle: the items the log says were there at ``at`` (MemEX's
    records), each with whether it was archived."""
    state: dict[str, dict[str, Any]] = {}
    for event in events:
        if _time(event) > at:
            continue
        record, kind = event["payload"]["item"], event["type"]
        if kind in ("memory.retracted", "memory.purged"):
            state.pop(record["id"], None)
        else:
            shelved = state.get(record["id"], {}).get("archived", False)
            shelved = {"memory.archived": True, "memory.unarchived": False}.get(kind, shelved)
            state[record["id"]] = {**record, "archived": shelved}
    return state


def supported(state: dict[str, dict[str, Any]], root: str) -> set[str]:
    if root not in state:
        return set()
    seen, todo = {root}, [root]
    while todo:
        for p in state[todo.pop()].get("parents") or ():
            if p in state and p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def _time(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["ts"])


def instants(events: list[dict[str, Any]]) -> list[datetime]:
    """Every event's time, a millisecond before it, and a moment after the last."""
    ms = timedelta(milliseconds=1)
    times = sorted({_time(e) for e in events})
    return sorted({t - ms for t in times[1:]} | set(times) | {times[-1] + ms})


@SLOW
@given(steps=histories())
async def test_as_of_equals_replaying_the_log(api: Api, steps: list[Step]) -> None:
    made = await play(api, steps)
    events = await logged(api, made)
    for at in instants(events):
        expected = replay(events, at)
        for item in made:
            got = await api.ok(AS_OF, id=item, at=at.isoformat())
            then = expected.get(item)
            if then is None:
                assert got["itemAsOf"] is None, (item, at)
            else:
                assert got["itemAsOf"] == {
                    "id": item, "scope": then["scope"], "kind": then["kind"],
                    "content": then["content"], "authority": then["authority"],
                    "parents": then.get("parents"), "archived": then["archived"],
                }, (item, at)  # fmt: skip
            assert {x["id"] for x in got["supportSetAsOf"]} == supported(expected, item)
            if then is not None:
                assert got["supportSetAsOf"][0]["id"] == item
        for shelved in (False, True):
            listed = await api.ok(ITEMS_AS_OF, at=at.isoformat(), ids=made, all=shelved)
            want = sorted(i for i, x in expected.items()
                          if x["authority"] >= 0.3 and (shelved or not x["archived"]))  # fmt: skip
            assert [x["id"] for x in listed["itemsAsOf"]] == want, (at, shelved)
        # short pages: windows of a few items, earlier examples' items first
        for n in (1, 2):
            listed = await api.ok(ITEMS_AS_OF, at=at.isoformat(), ids=made, all=True, n=n)
            want = sorted(i for i, x in expected.items() if x["authority"] >= 0.3)
            assert [x["id"] for x in listed["itemsAsOf"]] == want[:n], (at, n)


ITEM_AS_OF = """query($id: ID!, $at: DateTime!) { itemAsOf(id: $id, asOf: $at) { id scope } }"""


def _iso(ms_after: float = 0) -> str:
    return (datetime.now(UTC) + timedelta(milliseconds=ms_after)).isoformat()


async def test_instants_outside_the_log_are_refused(api: Api) -> None:
    some = "01a2272e-a847-708d-b91e-f414554ec98c"
    # an empty log: every instant is before its first event
    assert await api.codes(ITEM_AS_OF, id=some, at=_iso()) == ["BAD_USER_INPUT"]
    item = await api.create()
    first = _time((await logged(api, [item["id"]]))[0])
    before = (first - timedelta(milliseconds=1)).isoformat()
    assert await api.codes(ITEM_AS_OF, id=item["id"], at=before) == ["BAD_USER_INPUT"]
    assert await api.codes(ITEM_AS_OF, id=item["id"], at=_iso(60_000)) == ["BAD_USER_INPUT"]
    assert await api.codes(ITEM_AS_OF, id="nope", at=_iso()) == ["BAD_USER_INPUT"]
    assert await api.codes(ITEM_AS_OF, id=item["id"], at="yesterday") == ["BAD_USER_INPUT"]
    bad_set = 'query($at: DateTime!) { supportSetAsOf(id: "x", asOf: $at) { id } }'
    assert await api.codes(bad_set, at=_iso()) == ["BAD_USER_INPUT"]
    # the first event's own millisecond is in; an id never seen is null
    assert (await api.ok(ITEM_AS_OF, id=item["id"], at=first.isoformat()))["itemAsOf"]
    assert (await api.ok(ITEM_AS_OF, id=some, at=_iso()))["itemAsOf"] is None


async def test_the_scope_it_had_then_decides_who_reads_it(api: Api) -> None:
    item = await api.create(scope="team:a/notes")
    await asyncio.sleep(0.005)
    moved_at = _iso()
    await asyncio.sleep(0.005)
    await api.ok(UPDATE, id=item["id"], p={"scope": "team:b/notes"})
    a_reader = api.with_grants("read:team:a/")
    b_reader = api.with_grants("read:team:b/")
    then = await a_reader.ok(ITEM_AS_OF, id=item["id"], at=moved_at)
    assert then["itemAsOf"] == {"id": item["id"], "scope": "team:a/notes"}
    assert (await b_reader.ok(ITEM_AS_OF, id=item["id"], at=moved_at))["itemAsOf"] is None
    now = await b_reader.ok(ITEM_AS_OF, id=item["id"], at=_iso())
    assert now["itemAsOf"] == {"id": item["id"], "scope": "team:b/notes"}
    assert (await a_reader.ok(ITEM_AS_OF, id=item["id"], at=_iso()))["itemAsOf"] is None


async def test_a_support_set_past_the_limits_is_refused(make_api: Any) -> None:
    api = await make_api(traversal_max_nodes=3)
    chain: list[str] = []
    for _ in range(5):
        chain.append((await api.create(parents=chain[-1:]))["id"])
    at = _iso()
    query = "query($id: ID!, $at: DateTime!) { supportSetAsOf(id: $id, asOf: $at) { id } }"
    assert await api.codes(query, id=chain[-1], at=at) == ["RESOURCE_EXHAUSTED"]
    short = await api.ok(query, id=chain[1], at=at)
    assert [x["id"] for x in short["supportSetAsOf"]] == [chain[1], chain[0]]


LISTED = """query($at: DateTime!, $f: MemoryFilter, $n: Int) {
  itemsAsOf(asOf: $at, filter: $f, limit: $n) { id } }"""


async def test_items_as_of_keep_to_the_grants_and_the_limits(make_api: Any) -> None:
    api = (await make_api(max_page=3)).with_grants("read:", "write:")
    mine = [(await api.create(scope="team:a/x"))["id"] for _ in range(2)]
    theirs = (await api.create(scope="team:b/x"))["id"]
    extra = (await api.create(scope="team:c/x"))["id"]
    at = _iso()
    reader = api.with_grants("read:team:a/")
    got = await reader.ok(LISTED, at=at, f={"ids": [*mine, theirs]})
    assert [x["id"] for x in got["itemsAsOf"]] == sorted(mine)
    await api.ok(UPDATE, id=theirs, p={"authority": 0.9})  # changed since: read back to then
    got = await reader.ok(LISTED, at=at, f={"ids": [*mine, theirs]})
    assert [x["id"] for x in got["itemsAsOf"]] == sorted(mine)
    assert await api.codes(LISTED, at=at, n=4) == ["BAD_USER_INPUT"]
    assert await api.codes(LISTED, at=at, f={"scopePrefix": 7}) == ["BAD_USER_INPUT"]
    assert await api.codes(LISTED, at=_iso(60_000)) == ["BAD_USER_INPUT"]
    limited = await api.ok(LISTED, at=at, n=1)
    assert [x["id"] for x in limited["itemsAsOf"]] == [min([*mine, theirs, extra])]
    for item in mine:
        await api.ok(UPDATE, id=item, p={"authority": 0.8})
    await api.create()  # made after the instant: not a change to it
    assert len((await api.ok(LISTED, at=at))["itemsAsOf"]) == 3
    await api.ok(RETRACT, id=extra)  # four items changed since: more than the page
    # each is taken back to the instant, at most max_page of them in all
    got = await api.ok(LISTED, at=at)
    assert [x["id"] for x in got["itemsAsOf"]] == sorted([*mine, theirs])
    # the last of them is the one that matches: past max_page before it
    assert await api.codes(LISTED, at=at, f={"scope": "team:c/x"}) == ["RESOURCE_EXHAUSTED"]


async def test_when_most_items_changed_each_window_is_taken_back(make_api: Any) -> None:
    """More items changed since the instant than max_page: the walk takes
    every item it meets back to the instant, window by window; the answer is
    still the log's, with filters on fields and on the scope each had then."""
    api = (await make_api(max_page=8)).with_grants("read:", "write:")
    reader = api.with_grants("read:s/a")  # reads what was in s/a then
    made = [(await api.create(authority=(i % 4) / 4 + 0.1, scope=f"s/{'ab'[i % 2]}"))["id"]
            for i in range(12)]  # fmt: skip
    await asyncio.sleep(0.002)
    at = datetime.now(UTC)
    await asyncio.sleep(0.002)
    for n, item in enumerate(made[:10]):
        moved = {"scope": "s/b"} if n % 3 == 0 else {}
        await api.ok(UPDATE, id=item, p={"authority": (9 - n) / 10, **moved})
    await api.ok(RETRACT, id=made[1])
    events = await logged(await make_api(), made)  # pages of the log past max_page
    for instant in (at, datetime.now(UTC)):  # eleven changed since; none since
        expected = replay(events, instant)
        want = sorted(i for i, x in expected.items() if x["authority"] >= 0.3)
        in_a = sorted(i for i, x in expected.items() if x["scope"] == "s/a")
        for n in (1, 3, 8):
            got = await api.ok(ITEMS_AS_OF, at=instant.isoformat(), ids=made, all=True, n=n)
            assert [x["id"] for x in got["itemsAsOf"]] == want[:n], (instant, n)
        for n in (1, 3):  # the first s/a items then are among the first eight
            got = await api.ok(LISTED, at=instant.isoformat(), f={"scope": "s/a"}, n=n)
            assert [x["id"] for x in got["itemsAsOf"]] == in_a[:n], (instant, n)
            got = await reader.ok(LISTED, at=instant.isoformat(), n=n)
            assert [x["id"] for x in got["itemsAsOf"]] == in_a[:n], (instant, n)


async def test_id_keys_sort_as_ids_and_items_written_before_take_theirs(api: Api) -> None:
    """Every item keeps its id key (memexd.ids.id_key),
    those written before the migration too; keys sort as the ids do."""
    made = [(await api.create())["id"] for _ in range(3)]
    odd = "0AB5E0FF-0000-7000-8000-00000000000F"  # a client's id, upper case
    made.append((await api.create(id=odd))["id"])
    store = api.store.inner
    keys = await store.read("MATCH (n:Item) RETURN n.id AS id, n.id_key AS key", {})
    assert {r["id"]: r["key"] for r in keys} == {i: id_key(i) for i in made}
    assert sorted(made) == sorted(made, key=id_key)
    await store.write("MATCH (n:Item) SET n.id_key = null", {})
    await store.write("MATCH (m:Migration {name: 'id_key'}) DELETE m", {})
    assert [m.name for m in await migrate(api.graph)] == ["id_key"]
    keys = await store.read("MATCH (n:Item) RETURN n.id AS id, n.id_key AS key", {})
    assert {r["id"]: r["key"] for r in keys} == {i: id_key(i) for i in made}
