"""Point reads in flight at once share one engine query
(:mod:`memexd.graph.batching`): each reader gets exactly its own answer,
under its own grants, and a failure or a cancelled reader harms no one else."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from memexd.access.grants import Access, parse_grant
from memexd.core import Memex
from memexd.errors import StorageUnavailable
from memexd.events.vocabulary import Origin
from memexd.graph import bookmarks
from memexd.graph.batching import IN_FLIGHT, MAX_IDS
from memexd.memory.model import NewItem
from memexd.settings import Settings
from memexd.types import GraphStore, Params, Row
from tests.support import Api, CountingStore

ORIGIN = Origin()


def u(n: int) -> str:
    return f"0190a000-{n:04x}-7000-8000-{n:012x}"


class Gated(CountingStore):
    """A real store whose reads wait for a signal, or fail when told to."""

    def __init__(self, inner: GraphStore) -> None:
        super().__init__(inner)
        self.fail: Exception | None = None
        self.sent: list[Params] = []
        self.gate: asyncio.Event | None = None

    async def read(self, text: str, params: Params) -> list[Row]:
        self.sent.append(params)
        if self.gate is not None:
            await self.gate.wait()
        if self.fail is not None:
            self.reads += 1
            raise self.fail
        return await super().read(text, params)


@pytest.fixture
async def setup(store: GraphStore) -> tuple[Memex, Gated]:
    """Items 1 to 40 in scope ``a/`` (odd) and ``b/`` (even); 39 is retracted."""
    gated = Gated(store)
    memex = Memex(gated, Settings())
    drafts = [
        NewItem(id=u(n), scope="a/x" if n % 2 else "b/x", kind="observation",
                content={"n": n}, author="user:t", source_kind="observed", authority=0.5)
        for n in range(1, 41)
    ]  # fmt: skip
    await memex.items.create(drafts, ORIGIN)
    await memex.items.retract(u(39), "user:t", "wrong", ORIGIN)
    gated.reads, gated.sent = 0, []
    return memex, gated


def caller(memex: Memex, *grants: str) -> Memex:
    return memex.as_caller(Access.of("caller", [parse_grant(g) for g in grants]))


def content(item: Any) -> Any:
    return None if item is None else item.content["n"]


async def test_reads_at_once_are_one_query_and_each_gets_its_own(
    setup: tuple[Memex, Gated],
) -> None:
    memex, gated = setup
    wanted = [*range(1, 41), 5, 5, 77]  # repeats, and an id that does not exist
    got = await asyncio.gather(*(memex.item_reads.get(u(n)) for n in wanted))
    # 39 is retracted, 77 does not exist
    assert [content(i) for i in got] == [None if n in (39, 77) else n for n in wanted]
    assert gated.reads == 1
    assert sorted(gated.sent[-1]["ids"]) == sorted({u(n) for n in wanted})


async def test_a_lone_read_is_sent_alone_and_reads_apart_in_time_are_not_gathered(
    setup: tuple[Memex, Gated],
) -> None:
    memex, gated = setup
    assert content(await memex.item_reads.get(u(3))) == 3
    assert content(await memex.item_reads.get(u(4))) == 4
    assert gated.reads == 2
    assert [p["ids"] for p in gated.sent] == [[u(3)], [u(4)]]


async def test_callers_with_other_grants_or_parameters_are_never_mixed(
    setup: tuple[Memex, Gated],
) -> None:
    memex, gated = setup
    only_a, only_b = caller(memex, "read:a/"), caller(memex, "read:b/")
    got = await asyncio.gather(
        only_a.item_reads.get(u(1)), only_a.item_reads.get(u(2)),
        only_b.item_reads.get(u(1)), only_b.item_reads.get(u(2)),
        memex.item_reads.get(u(39)), memex.item_reads.get(u(39), include_retracted=True),
    )  # fmt: skip
    assert [content(i) for i in got] == [1, None, None, 2, None, 39]
    assert gated.reads == 4  # a/, b/, everything live, everything with retracted
    by_ids = {tuple(sorted(p["ids"])) for p in gated.sent}
    assert by_ids == {(u(1), u(2)), (u(39),)}


async def test_a_full_batch_is_sent_at_once(setup: tuple[Memex, Gated]) -> None:
    memex, gated = setup
    ids = [u(1000 + n) for n in range(MAX_IDS + 10)]  # none exists: sizes are what counts
    got = await asyncio.gather(*(memex.item_reads.get(i) for i in ids))
    assert got == [None] * len(ids)
    assert sorted(len(p["ids"]) for p in gated.sent) == [10, MAX_IDS]


async def test_reads_that_wait_for_a_busy_engine_go_together(
    setup: tuple[Memex, Gated],
) -> None:
    """With IN_FLIGHT batches of a query at the engine, the reads that come
    meanwhile (in other turns of the loop) wait and go in one batch."""
    memex, gated = setup
    gated.gate = asyncio.Event()
    first = []
    for n in range(1, IN_FLIGHT + 1):  # each sent before the next comes: a batch each
        first.append(asyncio.ensure_future(memex.item_reads.get(u(n))))
        await _until(lambda sent=n: len(gated.sent) == sent)
    later = []
    for n in (11, 12, 13):
        later.append(asyncio.ensure_future(memex.item_reads.get(u(n))))
        for _ in range(20):  # turns enough to have sent it, had it not waited
            await asyncio.sleep(0)
    assert [p["ids"] for p in gated.sent] == [[u(n)] for n in range(1, IN_FLIGHT + 1)]
    gated.gate.set()
    assert [content(i) for i in await asyncio.gather(*first, *later)] == [
        *range(1, IN_FLIGHT + 1), 11, 12, 13]  # fmt: skip
    assert sorted(gated.sent[-1]["ids"]) == [u(11), u(12), u(13)]
    assert len(gated.sent) == IN_FLIGHT + 1


async def _until(done: Callable[[], bool]) -> None:
    for _ in range(1000):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_a_failed_query_is_every_readers_failure(setup: tuple[Memex, Gated]) -> None:
    memex, gated = setup
    gated.fail = StorageUnavailable("the graph engine is down")
    got = await asyncio.gather(*(memex.item_reads.get(u(n)) for n in (1, 2, 3)),
                               return_exceptions=True)  # fmt: skip
    assert [type(e) for e in got] == [StorageUnavailable] * 3
    assert gated.reads == 1
    gated.fail = None
    assert content(await memex.item_reads.get(u(1))) == 1  # nothing is left behind


async def test_a_cancelled_reader_leaves_the_others_their_answer(
    setup: tuple[Memex, Gated],
) -> None:
    memex, _ = setup
    leaving = asyncio.ensure_future(memex.item_reads.get(u(1)))
    staying = asyncio.ensure_future(memex.item_reads.get(u(3)))
    await asyncio.sleep(0)  # both joined the batch
    leaving.cancel()
    assert content(await staying) == 3
    assert leaving.cancelled()


async def test_readers_get_the_bookmarks_their_shared_read_left(
    setup: tuple[Memex, Gated],
) -> None:
    memex, _ = setup

    async def request(n: int) -> tuple[int, tuple[str, ...]]:
        state, token = bookmarks.bind(None)
        try:
            item = await memex.item_reads.get(u(n))
            return content(item), state.latest
        finally:
            bookmarks.unbind(token)

    got = await asyncio.gather(request(1), request(2))
    assert [n for n, _ in got] == [1, 2]
    left = {latest for _, latest in got}
    assert len(left) == 1  # the same for both readers
    assert bool(left.pop()) == (memex.graph.backend == "neo4j")  # only Neo4j has bookmarks


async def test_a_forbidden_a_bad_and_a_good_id_at_once_each_get_their_own(api: Api) -> None:
    """Over GraphQL, at once: an id the caller may not read, a malformed one
    and a good one. The good read shares its batch with the forbidden one
    and gets its item; the forbidden one is null (it does not exist for the
    caller); the malformed one fails alone, as BAD_USER_INPUT."""
    mine = (await api.create(scope="a/x"))["id"]
    hidden = (await api.create(scope="b/x"))["id"]
    reader = api.with_grants("read:a/")
    query = "query($id: ID!) { item(id: $id) { id scope } }"
    sent = api.store.reads
    got = await asyncio.gather(*(reader.run(query, {"id": i}) for i in (hidden, "not-an-id", mine)))
    assert got[0] == {"data": {"item": None}}
    assert [e["extensions"]["code"] for e in got[1]["errors"]] == ["BAD_USER_INPUT"]
    assert got[2] == {"data": {"item": {"id": mine, "scope": "a/x"}}}
    assert api.store.reads - sent == 1  # the two good-looking ids: one query
