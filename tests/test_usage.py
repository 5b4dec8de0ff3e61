"""Access statistics and the decay score (SPEC §11): recordAccess, trackAccess
and decayScore, checked against the reference in tests/reference.py."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.ids import uuid7_at
from memexd.memory.text import ensure_index
from memexd.types import GraphStore
from tests.reference import decay_score
from tests.support import Api

RECORD = """mutation($ids: [ID!]!) { recordAccess(ids: $ids) {
  id access { count lastAccessedAt } } }"""
ACCESS = "query($id: ID!) { item(id: $id) { access { count lastAccessedAt } } }"
DECAY = """query($id: ID!, $now: DateTime, $h: Float) {
  item(id: $id) { decayScore(now: $now, halfLifeMs: $h) } }"""
DAY = 86_400_000
T0 = 1_700_000_000_000
MISSING = uuid7_at(T0 - 1)


async def count(api: Api, item_id: str) -> int:
    found: int = (await api.ok(ACCESS, id=item_id))["item"]["access"]["count"]
    return found


async def test_record_access_counts_each_item_once_per_call(api: Api) -> None:
    a, b = (await api.create())["id"], (await api.create())["id"]
    fresh = (await api.ok(ACCESS, id=a))["item"]["access"]
    assert fresh == {"count": 0, "lastAccessedAt": None}
    got = (await api.ok(RECORD, ids=[b, a, b]))["recordAccess"]
    assert [i["id"] for i in got] == [b, a]
    assert [i["access"]["count"] for i in got] == [1, 1]
    assert got[0]["access"]["lastAccessedAt"] is not None
    await api.ok(RECORD, ids=[a])
    assert (await count(api, a), await count(api, b)) == (2, 1)
    assert (await api.ok(RECORD, ids=[]))["recordAccess"] == []


async def test_record_access_is_all_or_none(api: Api) -> None:
    a = (await api.create(scope="tenant:a/x"))["id"]
    hidden = (await api.create(scope="tenant:b/x"))["id"]
    gone = (await api.create(scope="tenant:a/x"))["id"]
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=gone)  # fmt: skip
    reader = api.with_grants("read:tenant:a/")
    before = await api.snapshot()
    for ids in ([a, MISSING], [a, gone], [a, hidden]):
        assert await reader.codes(RECORD, ids=ids) == ["MEMORY_NOT_FOUND"], ids
    assert await reader.codes(RECORD, ids=[a, "nope"]) == ["BAD_USER_INPUT"]
    too_many = [uuid7_at(T0 + n) for n in range(1001)]
    assert await reader.codes(RECORD, ids=too_many) == ["BAD_USER_INPUT"]
    assert await api.snapshot() == before
    assert (await reader.ok(RECORD, ids=[a]))["recordAccess"][0]["access"]["count"] == 1


async def test_concurrent_access_never_loses_a_count(api: Api) -> None:
    ids = [(await api.create())["id"] for _ in range(3)]
    clients, calls = 8, 12

    async def client(n: int) -> None:
        for k in range(calls):
            await api.ok(RECORD, ids=ids[(n + k) % 3 :] + ids[: (n + k) % 3])

    await asyncio.gather(*(client(n) for n in range(clients)))
    assert [await count(api, i) for i in ids] == [clients * calls] * 3


async def test_recall_with_track_access_counts_its_hits(make_api: Any) -> None:
    api: Api = await make_api(embedding="off", text_search=True)
    await ensure_index(api.graph, True)  # what memexd serve does at start
    hit = (await api.create(content={"text": "the harbour crane was repaired"}))["id"]
    miss = (await api.create(content={"text": "nothing about it"}))["id"]
    query = """query($t: Boolean) { recall(input: {cue: "harbour crane", mode: TEXT,
      trackAccess: $t}) { item { id } } }"""
    assert [h["item"]["id"] for h in (await api.ok(query, t=False))["recall"]] == [hit]
    assert await count(api, hit) == 0
    await api.ok(query, t=True)
    await api.ok(query, t=True)
    assert (await count(api, hit), await count(api, miss)) == (2, 0)
    await ensure_index(api.graph, False)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    created=st.integers(T0 - 400 * DAY, T0 + 2 * DAY),
    priority=st.sampled_from(["P0", "P1", "P2", "P3"]),
    accesses=st.integers(0, 10_000),
    half_life=st.floats(1.0, 1e12),
    now=st.integers(T0 - DAY, T0 + 800 * DAY),
)
async def test_decay_score_is_the_specs(
    api: Api, store: GraphStore, created: int, priority: str, accesses: int,
    half_life: float, now: int,
) -> None:  # fmt: skip
    item_id = uuid7_at(created)
    if (await api.ok(ACCESS, id=item_id))["item"] is None:
        await api.create(id=item_id)
    await api.ok("mutation($id: ID!, $p: Priority!) { updateItem(id: $id, patch: {priority: $p},"
                 ' author: "u") { item { id } } }', id=item_id, p=priority)  # fmt: skip
    await store.write("MATCH (n:Item {id: $id}) SET n.access_count = $c",
                      {"id": item_id, "c": accesses})  # fmt: skip
    got = (await api.ok(DECAY, id=item_id, now=iso(now), h=half_life))["item"]["decayScore"]
    expected = decay_score(created, priority, accesses, now, half_life)
    assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-300), (got, expected)


async def test_decay_score_defaults_and_bad_half_life(api: Api) -> None:
    item = await api.create(id=uuid7_at(T0))
    month = await api.ok(DECAY, id=item["id"], now=iso(T0 + 30 * DAY), h=None)
    assert math.isclose(month["item"]["decayScore"], 0.5 ** (1 / math.log(2)), rel_tol=1e-12)
    fresh = (await api.ok(DECAY, id=item["id"], now=iso(T0 - DAY), h=None))["item"]
    assert fresh["decayScore"] == 1.0  # not yet created: age 0
    for bad in (0.0, -5.0):
        assert await api.codes(DECAY, id=item["id"], now=None, h=bad) == ["BAD_USER_INPUT"]


async def test_sort_and_filter_by_decay_score(api: Api, store: GraphStore) -> None:
    """The engine sorts and filters by the score at the request's now."""
    now = datetime.now(UTC).timestamp() * 1000
    old = (await api.create(id=uuid7_at(int(now) - 30 * DAY), priority="P0"))["id"]
    low = (await api.create(priority="P3"))["id"]
    mid = (await api.create())["id"]
    used = (await api.create())["id"]
    await store.write("MATCH (n:Item {id: $id}) SET n.access_count = 100", {"id": used})
    find = """query($f: MemoryFilter, $o: SortOrder!) { items(filter: $f,
      sort: [{field: DECAY, order: $o}]) { id decayScore } }"""
    ranked = (await api.ok(find, f=None, o="DESC"))["items"]
    assert [i["id"] for i in ranked] == [used, mid, old, low]  # 1.46, 1, 2/e, 0.5
    scores = [i["decayScore"] for i in ranked]
    assert scores == sorted(scores, reverse=True)
    ascending = (await api.ok(find, f=None, o="ASC"))["items"]
    assert [i["id"] for i in ascending] == [low, old, mid, used]
    kept = (await api.ok(find, f={"decayScore": {"min": 0.9, "max": 1.2}}, o="DESC"))["items"]
    assert [i["id"] for i in kept] == [mid]
    bad = {"decayScore": {"min": "high"}}
    assert await api.codes(find, f=bad, o="DESC") == ["BAD_USER_INPUT"]


async def test_recall_weighs_the_decay_score(make_api: Any) -> None:
    """Old, unused memories sink (at most halved); `now` sets the instant."""
    api: Api = await make_api(embedding="off", text_search=True)
    await ensure_index(api.graph, True)
    now = int(datetime.now(UTC).timestamp() * 1000)
    old = (await api.create(id=uuid7_at(now - 60 * DAY), content={"text": "crane cables"}))["id"]
    new = (await api.create(id=uuid7_at(now - DAY), content={"text": "crane cables"}))["id"]
    query = """query($now: DateTime) { recall(input: {cue: "crane cables", mode: TEXT,
      now: $now}) { item { id } score why } }"""
    hits = (await api.ok(query, now=None))["recall"]
    assert [h["item"]["id"] for h in hits] == [new, old]
    factor = hits[1]["why"]["decay"]
    # measured at the server's clock, a moment after `now`
    assert math.isclose(factor["value"], math.exp(-2), rel_tol=1e-6)
    assert math.isclose(factor["factor"], 0.5 + 0.5 * math.exp(-2), rel_tol=1e-6)
    before_both = iso(now - 90 * DAY)  # neither exists yet: age 0, no decay
    same = (await api.ok(query, now=before_both))["recall"]
    assert [h["why"]["decay"]["factor"] for h in same] == [1.0, 1.0]
    assert [h["item"]["id"] for h in same] == sorted([new, old])  # ties by id
    await ensure_index(api.graph, False)


async def test_decay_scores_of_a_list_are_one_read(api: Api) -> None:
    """Every decayScore of one request is taken at the same instant, so the
    loader reads them all at once."""
    for _ in range(5):
        await api.create()
    api.store.reads = 0
    got = (await api.ok("{ items { id decayScore } }"))["items"]
    assert len(got) == 5
    assert api.store.reads == 2  # the items, then their scores
