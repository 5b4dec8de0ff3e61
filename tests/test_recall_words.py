"""Recall's text side (memexd.recall.words): rare cue words must match and
common ones weigh, every common word before any, within bounds, and grants
and filters still fill the limit. ``COMMON`` and ``SCAN`` are lowered so a
few items make a word common."""

from __future__ import annotations

from typing import Any

import pytest

from memexd.recall import service, words
from tests.support import Api

RECALL = """query($input: RecallInput!) { recall(input: $input) { item { id } textScore } }"""
CREATE_MANY = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"


async def notes(api: Api, text: str, count: int, scope: str = "p:a") -> list[str]:
    rows = [{"scope": scope, "kind": "note", "content": {"text": text}, "author": "u",
             "sourceKind": "observed", "authority": 0.5}] * count  # fmt: skip
    made = (await api.ok(CREATE_MANY, i=rows))["createItems"]["items"]
    return [item["id"] for item in made]


async def found(api: Api, cue: str, **fields: Any) -> list[str]:
    data = await api.ok(RECALL, input={"cue": cue, "mode": "TEXT", **fields})
    return [hit["item"]["id"] for hit in data["recall"]]


async def test_rare_words_must_match_and_common_ones_weigh(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "COMMON", 3)
    api = searching
    await notes(api, "alpha beta", 5)  # alpha and beta are common now
    both = await notes(api, "alpha gamma", 1)
    rare = await notes(api, "gamma delta", 1)
    assert await found(api, "alpha gamma") == both + rare
    # without the lowered bound every word is rare: "alpha" alone finds items
    monkeypatch.setattr(words, "COMMON", 2_000)
    assert len(await found(api, "alpha gamma")) == 7


async def test_every_common_word_before_any(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "COMMON", 3)
    monkeypatch.setattr(service, "POOL", 1)
    api = searching
    every = await notes(api, "alpha beta", 4)
    alpha = await notes(api, "alpha", 4)
    beta = await notes(api, "beta", 4)
    # four items hold both words: a pool of four is filled by them alone
    assert sorted(await found(api, "alpha beta", limit=4)) == sorted(every)
    # six are wanted: items holding any of the words come after those
    hits = await found(api, "alpha beta", limit=6)
    assert sorted(hits[:4]) == sorted(every)
    assert set(hits[4:]) <= set(alpha + beta)


async def test_matches_read_are_bounded_when_every_word_is_common(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "COMMON", 3)
    monkeypatch.setattr(words, "SCAN", 5)
    api = searching
    await notes(api, "alpha", 12)
    assert len(await found(api, "alpha", limit=10)) == 5
    monkeypatch.setattr(words, "COMMON", 2_000)  # rare: every match is read
    assert len(await found(api, "alpha", limit=10)) == 10


@pytest.mark.parametrize("common", [2_000, 10], ids=["rare", "common"])
async def test_words_fill_the_limit_past_the_best_matches(
    searching: Api, monkeypatch: pytest.MonkeyPatch, common: int
) -> None:
    monkeypatch.setattr(words, "COMMON", common)
    api = searching
    await notes(api, "alpha alpha alpha", 520, scope="p:crowd")  # the 500 best, all outside
    rare = await notes(api, "alpha one", 3, scope="p:rare")
    assert sorted(await found(api, "alpha", limit=3, filter={"scopePrefix": "p:rare"})) == sorted(
        rare
    )


async def test_what_unreadable_items_hold_changes_nothing(
    searching: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "COMMON", 3)
    api = searching.with_grants("read:", "write:")
    reader = searching.with_grants("read:team:a/")
    mine = await notes(api, "alpha", 2, scope="team:a/x")
    assert sorted(await found(reader, "alpha secret")) == sorted(mine)
    # another tenant's items make "alpha" common and hold "secret", a rare
    # word: the reader finds what it found before, and only that
    await notes(api, "alpha", 5, scope="team:b/x")
    theirs = await notes(api, "alpha secret", 1, scope="team:b/x")
    assert sorted(await found(reader, "alpha secret")) == sorted(mine)
    # a caller who can read it finds it alone: "secret" must match
    assert await found(api, "alpha secret") == theirs
