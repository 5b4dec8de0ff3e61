"""Subscribers that ask the same of the log at once share one read of it
(memexd/feed/hub.py, docs/feed.md): the same grants, filter, position and
head. Another caller's grants or another filter is a read of its own, and
what each gets is what it would get alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memexd.access.grants import Access, parse_grants
from memexd.events.log import EventFilter, EventLog, LogFilter, Logged
from memexd.feed.hub import Feed
from memexd.feed.settings import FeedSettings
from memexd.feed.stream import FeedStream
from memexd.graph import Graph
from memexd.memory.validation import Limits
from tests.support import Api

ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { events { id } } }"
SETTINGS = FeedSettings(buffer=100, max_lag=10_000, poll_s=0.05, heartbeat_s=15, drain_s=1,
                        max_subscriptions=100)  # fmt: skip


def _items(scope: str, n: int) -> list[dict[str, Any]]:
    return [{"scope": scope, "kind": "k", "content": {"n": i}, "author": "a", "sourceKind": "o",
             "authority": 0.5} for i in range(n)]  # fmt: skip


async def _taken(stream: FeedStream, count: int) -> list[str]:
    taken: list[str] = []
    try:
        async with asyncio.timeout(20):
            async for logged in stream:
                taken.append(logged.event.id)
                if len(taken) == count:
                    break
    finally:
        await stream.aclose()
    return taken


async def test_streams_asking_the_same_share_a_read_and_others_read_their_own(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = (await api.ok(ITEMS, i=_items("f/a/", 1)))["createItems"]["events"][0]["id"]
    await api.ok(ITEMS, i=_items("f/a/", 6) + _items("f/b/", 4))
    reads: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    original = EventLog.read

    async def counted(self: EventLog, flt: LogFilter, after: int, upto: int,
                      limit: int) -> list[Logged]:  # fmt: skip
        reads.append((self.graph.access.read, flt.params))
        # held in flight a while: on a loaded machine the streams' identical
        # asks must still meet this read, not come after it
        await asyncio.sleep(0.3)
        return await original(self, flt, after, upto, limit)

    monkeypatch.setattr(EventLog, "read", counted)
    graph = Graph(api.store)
    limits = Limits()
    admin = EventLog(graph.bound(Access.everything("admin")), limits)
    reader = Access.of("reader", parse_grants(["read:f/a/"]))
    narrow = EventLog(graph.bound(reader), limits)
    feed = Feed(SETTINGS)
    created = EventFilter(types=["memory.created"])
    # opened first, then read at once: they ask for the first page together
    streams = [await feed.open(EventLog(graph.bound(Access.everything("admin")), limits), None,
                               first) for _ in range(4)]  # fmt: skip
    streams.append(await feed.open(admin, created, first))
    streams += [await feed.open(narrow, None, first) for _ in range(2)]
    try:
        everyone = await asyncio.gather(*(_taken(s, 6 if s.events is narrow else 10)
                                          for s in streams))  # fmt: skip
    finally:
        await feed.close()
    after = await admin.position(first)
    alone = [e.event.id for e in await original(admin, admin.check(None), after, 1 << 62, 100)]
    assert everyone[:5] == [alone] * 5
    own = [e.event.id for e in await original(narrow, narrow.check(None), after, 1 << 62, 100)]
    assert everyone[5:] == [own] * 2
    assert len(own) == 6
    # one read for the four unfiltered admins, one for the filtered, one for the two readers
    assert sorted({(grants, str(params)) for grants, params in reads}) == sorted(
        {(("",), str(admin.check(None).params)), (("",), str(admin.check(created).params)),
         (("f/a/",), str(narrow.check(None).params))}
    )  # fmt: skip
    assert len(reads) == 3
