"""Recall's text side (memexd.recall.words, memexd.recall.bm25): items
ranked by BM25 over what the caller may read, as a plain BM25 over the same
texts ranks them; common words weigh little, bounded reads, and grants and
filters change what the statistics count. ``COMMON`` is lowered so a few
items make a word common."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from typing import Any

import pytest

from memexd.graph import Graph
from memexd.memory.filters import prepare, to_cypher
from memexd.memory.validation import Limits
from memexd.recall import statistics, words
from memexd.recall.bm25 import Collection, bm25, ceiling, idf, terms
from memexd.recall.statistics import Sample, Statistics
from memexd.settings import Settings
from memexd.types import Params, Row
from tests.support import Api, CountingStore

RECALL = """query($input: RecallInput!) { recall(input: $input) { item { id } textScore } }"""
CREATE_MANY = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"


async def notes(api: Api, texts: list[str], scope: str = "p:a") -> list[str]:
    rows = [{"scope": scope, "kind": "note", "content": {"text": text}, "author": "u",
             "sourceKind": "observed", "authority": 0.5} for text in texts]  # fmt: skip
    made = (await api.ok(CREATE_MANY, i=rows))["createItems"]["items"]
    return [item["id"] for item in made]


async def recalled(api: Api, cue: str, **fields: Any) -> list[tuple[str, float]]:
    # every candidate: these tests are about the ranking, not the floor
    data = await api.ok(RECALL, input={"cue": cue, "mode": "TEXT", "minScore": 0, **fields})
    return [(hit["item"]["id"], hit["textScore"]) for hit in data["recall"]]


def test_terms_drop_stop_words_and_stem() -> None:
    assert terms("The Cats were running_fast, AND 42 dogs!") == [
        "cat", "were", "run", "fast", "42", "dog"
    ]  # fmt: skip


def test_bm25_weighs_rare_terms_and_short_items_higher() -> None:
    collection = Collection(items=10, average_length=4.0, frequencies={"chess": 1, "club": 8})
    short, long = Counter(["chess", "club"]), Counter(["chess", "club", "a", "b", "c", "d"])
    assert bm25(["chess"], short, 2, collection) > bm25(["chess"], long, 6, collection)
    assert bm25(["chess"], short, 2, collection) > bm25(["club"], short, 2, collection)
    assert idf(10, 10) > 0  # Lucene's idf is never negative
    assert math.isclose(idf(10, 1), math.log(1 + 9.5 / 1.5))


TEXTS = [
    "Alice joined the chess club on Tuesday",
    "Alice: I love painting too",
    "Bob went hiking with Alice",
    "The club meets every week",
    "Tuesday is chess night at the club, chess and more chess",
    "Nothing to do with any of it",
]


async def test_the_order_is_bm25s_over_the_same_texts(searching: Api) -> None:
    ids = await notes(searching, TEXTS)
    hits = await recalled(searching, "alice chess club tuesday", limit=10)
    # a plain BM25 over the six texts, with the same terms and parameters
    bags = [Counter(terms(t)) for t in TEXTS]
    cue = terms("alice chess club tuesday")
    frequencies = {t: sum(1 for b in bags if t in b) for t in cue}
    collection = Collection(len(TEXTS), sum(map(len, map(terms, TEXTS))) / len(TEXTS), frequencies)
    expected = sorted(
        ((ids[n], bm25(cue, bag, sum(bag.values()), collection)) for n, bag in enumerate(bags)
         if any(t in bag for t in cue)),
        key=lambda p: (-p[1], p[0]),
    )  # fmt: skip
    assert [i for i, _ in hits] == [i for i, _ in expected]
    top = ceiling(cue, collection)  # the score is the share of the cue's weight held
    for (_, got), (_, want) in zip(hits, expected, strict=True):
        assert math.isclose(got, want / top, rel_tol=1e-9)
        assert 0 < got < 1
    assert hits[0][0] == ids[0]  # all four words beat one word said often


async def test_common_words_are_bounded_and_weigh_little(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "COMMON", 3)
    api = searching
    await notes(api, ["alpha beta"] * 5)  # alpha and beta are common now
    both = await notes(api, ["alpha gamma"])
    rare = await notes(api, ["gamma delta"])
    hits = [i for i, _ in await recalled(api, "alpha gamma")]
    assert hits[:2] == both + rare
    # a common word's matches are read up to COMMON + 1 of them only
    assert len(hits) <= 2 + 4


async def test_a_filter_that_matches_few_still_finds_them(searching: Api) -> None:
    api = searching
    await notes(api, ["alpha alpha alpha"] * 320, scope="p:crowd")  # the best matches, outside
    rare = await notes(api, ["alpha one"] * 3, scope="p:rare")
    hits = await recalled(api, "alpha", limit=3, filter={"scopePrefix": "p:rare"})
    assert sorted(i for i, _ in hits) == sorted(rare)


async def test_what_unreadable_items_hold_changes_nothing(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(statistics, "TTL", 0.0)  # counted afresh at each recall
    monkeypatch.setattr(statistics, "STALE", 0.0)
    api = searching.with_grants("read:", "write:")
    reader = searching.with_grants("read:team:a/")
    mine = await notes(api, ["alpha beta", "beta gamma beta", "gamma alpha"], scope="team:a/x")
    before = await recalled(reader, "alpha beta gamma secret")
    # another tenant's items hold the same words, in other proportions, and
    # "secret": the reader's order and scores stay exactly as they were
    await notes(api, ["alpha"] * 6 + ["alpha beta gamma secret"], scope="team:b/x")
    after = await recalled(reader, "alpha beta gamma secret")
    assert after == before
    assert {i for i, _ in after} == set(mine)


async def test_words_alone_answer_whatever_holds_the_words(searching: Api) -> None:
    """No default floor for words alone: a long cue sharing one word with an
    item (a small share of its weight) still finds it; minScore still cuts."""
    [painting] = await notes(searching, ["Alice: I love painting too"])
    cue = "what hobby did the woman pick up after her trip to the coast, painting maybe"
    data = await searching.ok(RECALL, input={"cue": cue, "mode": "TEXT"})
    assert [(h["item"]["id"], h["textScore"] < 0.4) for h in data["recall"]] == [(painting, True)]
    data = await searching.ok(RECALL, input={"cue": cue, "mode": "TEXT", "minScore": 0.4})
    assert data["recall"] == []


class _Samples(CountingStore):
    """Counts the reads of a sample (``recall_text_sample``)."""

    samples = 0

    async def read(self, text: str, params: Params) -> list[Row]:
        self.samples += "LIMIT $size" in text
        return await super().read(text, params)


async def test_statistics_past_their_time_answer_while_counted_again(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recalls that find no statistics share one count; statistics past
    ``TTL`` still answer at once while one count runs beside them, and past
    ``TTL + STALE`` a recall waits for a new count."""
    await notes(searching, ["alpha beta"] * 3)
    store = _Samples(searching.store.inner)
    graph = Graph(store)
    where = to_cypher(prepare(None, Limits.of(Settings()), 0), graph)
    kept = Statistics()
    first, second = await asyncio.gather(kept.of(graph, where), kept.of(graph, where))
    assert (first, first.items, store.samples) == (second, 3, 1)
    await notes(searching, ["gamma"] * 2)
    monkeypatch.setattr(statistics, "TTL", 0.0)
    assert await kept.of(graph, where) is first  # what was kept, at once
    monkeypatch.setattr(statistics, "TTL", 30.0)
    assert await _counted(kept, graph, where, items=5)
    assert store.samples == 2
    await notes(searching, ["delta"])
    monkeypatch.setattr(statistics, "TTL", 0.0)
    monkeypatch.setattr(statistics, "STALE", 0.0)
    assert (await kept.of(graph, where)).items == 6  # counted before it answers


async def _counted(kept: Statistics, graph: Graph, where: Any, items: int) -> Sample | None:
    """The statistics once a count beside a recall has landed (within 10 s)."""
    for _ in range(1_000):
        sample = await kept.of(graph, where)
        if sample.items == items:
            return sample
        await asyncio.sleep(0.01)
    return None
