"""What was just written is found by meaning at once (memexd.recall.fresh):
recall embeds the newest waiting items it may find, within bounds, under
the caller's grants and filter."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from memexd.recall import fresh
from memexd.recall.embedding import backlog, embed_waiting
from memexd.recall.fresh import Fresh
from memexd.recall.model import E5Small
from tests.support import Api

RECALL = """query($input: RecallInput!) { recall(input: $input) { item { id } vectorScore } }"""


async def found(api: Api, cue: str, **fields: Any) -> list[str]:
    hits = (await api.ok(RECALL, input={"cue": cue, **fields}))["recall"]
    return [hit["item"]["id"] for hit in hits]


async def test_a_memory_just_written_ranks_first_at_once(recalling: Api, model: E5Small) -> None:
    api = recalling
    await api.create(scope="p:a", content={"text": "The team had pizza for lunch on Friday."})
    while await embed_waiting(api.graph, model):
        pass
    login = await api.create(scope="p:a", content={"text": "Expired session tokens are rejected"})
    assert (await backlog(api.graph)).waiting == 1
    for mode in ("VECTOR", "HYBRID"):
        assert (await found(api, "why can users not sign in?", mode=mode))[0] == login["id"]


async def test_only_what_the_caller_may_read_and_the_filter_keeps(recalling: Api) -> None:
    api = recalling.with_grants("read:", "write:")
    reader = recalling.with_grants("read:team:a/")
    mine = await api.create(scope="team:a/x", content={"text": "the office cat is called Tom"})
    await api.create(scope="team:b/x", content={"text": "the secret launch code is 1234"})
    # every candidate (minScore 0): the reader's only item, however far from the cue
    assert await found(reader, "launch code", mode="VECTOR", minScore=0) == [mine["id"]]
    theirs = await found(api, "cat", mode="VECTOR", minScore=0,
                         filter={"scopePrefix": "team:b/"})  # fmt: skip
    assert len(theirs) == 1
    assert mine["id"] not in theirs


async def test_bounded_to_the_newest_few_and_short(
    recalling: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = recalling
    monkeypatch.setattr(fresh, "ITEMS", 2)
    made = [await api.create(scope="p:a", content={"text": f"note number {n} about apples"})
            for n in range(4)]  # fmt: skip
    hits = await found(api, "apples", mode="VECTOR")
    assert sorted(hits) == sorted(m["id"] for m in made[2:])  # the two newest
    monkeypatch.setattr(fresh, "CHARACTERS", 10)  # too short for any of them
    long = await api.create(scope="p:b", content={"text": "apples " * 20})
    assert long["id"] not in await found(api, "apples", mode="VECTOR")


class Slow:
    """An embedder whose request-path calls take a while."""

    name = "slow"

    def __init__(self) -> None:
        self.calls = 0

    async def passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("not on the request path")

    async def passages_now(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        await asyncio.sleep(0.05)
        return [[1.0, 0.0] for _ in texts]

    async def query(self, text: str) -> list[float]:
        return [1.0, 0.0]

    def close(self) -> None:
        pass


async def test_one_embedding_at_a_time_and_each_vector_kept() -> None:
    slow = Slow()
    lane = Fresh(slow)
    content = json.dumps({"text": "hello"})
    first, second = await asyncio.gather(
        lane._vectors([("a", 1, content)]), lane._vectors([("b", 1, content)])
    )
    # the second recall found the lane busy: it left its item to the loop
    assert list(first) == [("a", 1)]
    assert second == {}
    assert slow.calls == 1
    again = await lane._vectors([("a", 1, content), ("a", 2, content)])
    assert set(again) == {("a", 1), ("a", 2)}  # version 1 kept, version 2 made
    assert slow.calls == 2


async def test_a_burst_of_recalls_over_many_waiting_items_is_bounded(
    recalling: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty items wait, eight recalls arrive at once while point reads run:
    each recall embeds at most ITEMS of them, one recall at a time, and the
    point reads are answered meanwhile."""
    api = recalling
    made = [await api.create(scope="p:a", content={"text": f"note {n} on the garden hose"})
            for n in range(40)]  # fmt: skip
    sizes: list[int] = []
    original = E5Small.passages_now

    async def counted(self: E5Small, texts: Sequence[str]) -> list[list[float]]:
        sizes.append(len(texts))
        return await original(self, texts)

    monkeypatch.setattr(E5Small, "passages_now", counted)
    point = """query($id: ID!) { item(id: $id) { id } }"""

    async def read(item_id: str) -> float:
        started = asyncio.get_running_loop().time()
        assert (await api.ok(point, id=item_id))["item"]["id"] == item_id
        return asyncio.get_running_loop().time() - started

    recalls = [found(api, "watering the plants", mode="VECTOR", minScore=0) for _ in range(8)]
    reads = [read(m["id"]) for m in made[:20]]
    answers = await asyncio.gather(*recalls, *reads)
    # a recall that found the lane busy left the items to the loop; the
    # others found the newest few, made once and kept
    assert any(answers[:8])
    assert all(len(hits) <= fresh.ITEMS for hits in answers[:8])
    assert max(answers[8:]) < 5.0  # answered while the recalls embed
    assert sizes
    assert max(sizes) <= fresh.ITEMS
    assert sum(sizes) <= 8 * fresh.ITEMS
    assert (await backlog(api.graph)).waiting == 40  # recall stores nothing
