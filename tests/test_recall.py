"""Recall by meaning: embeddings written after items, hybrid recall under
grants and filters, and its bad input (memexd.recall)."""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from memexd.errors import Unsupported
from memexd.graph import Graph
from memexd.recall import embedding
from memexd.recall import model as model_module
from memexd.recall.embedding import backlog, embed_waiting, mark_all
from memexd.recall.fusion import FLOOR
from memexd.recall.model import DIMENSION, E5Small, text_of
from memexd.recall.vectors import MAX_VECTORS
from tests.conftest import ApiFactory
from tests.support import Api

RECALL = """query($input: RecallInput!) {
  recall(input: $input) { item { id content } score relevance vectorScore textScore why } }"""

CONTRADICT = """mutation($a: ID!, $b: ID!) {
  markContradiction(a: $a, b: $b, author: "u") { edge { edgeId } } }"""

NOTES = {
    "deploy": "The production deployment failed because the database migration timed out.",
    "lunch": "The team had pizza with pineapple for lunch on Friday.",
    "cat": "My cat sleeps on the windowsill every afternoon.",
    "auth": "Login requests are rejected when the session token has expired.",
    "budget": "Quarterly spending on cloud servers exceeded the budget by twelve percent.",
}


async def embed_all(graph: Graph, model: E5Small) -> None:
    """What the embedding loop does while memexd serves."""
    while await embed_waiting(graph, model):
        pass


async def write_notes(api: Api, model: E5Small, scope: str = "p:a") -> dict[str, str]:
    ids = {}
    for name, text in NOTES.items():
        ids[name] = (await api.create(scope=scope, content={"text": text}))["id"]
    await embed_all(api.graph, model)
    return ids


async def recall(api: Api, cue: str, **fields: Any) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = (await api.ok(RECALL, input={"cue": cue, **fields}))["recall"]
    return hits


async def test_meaning_finds_what_words_miss(recalling: Api, model: E5Small) -> None:
    api = recalling
    ids = await write_notes(api, model)
    # no word in common with the deploy note: only meaning finds it
    cue = "why did the rollout break?"
    by_meaning = await recall(api, cue, mode="VECTOR", limit=1)
    assert [h["item"]["id"] for h in by_meaning] == [ids["deploy"]]
    assert await recall(api, cue, mode="TEXT") == []
    hybrid = await recall(api, cue, limit=3)
    assert hybrid[0]["item"]["id"] == ids["deploy"]
    assert hybrid[0]["textScore"] is None
    assert hybrid[0]["vectorScore"] > 0
    # words still count: an exact word ranks its item first in both modes
    for mode in ("TEXT", "HYBRID"):
        assert (await recall(api, "windowsill", mode=mode))[0]["item"]["id"] == ids["cat"]


async def test_every_hit_explains_its_score(recalling: Api, model: E5Small) -> None:
    api = recalling
    await write_notes(api, model)
    hits = await recall(api, "expired session token at login", limit=5)
    assert len(hits) == 5
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    for hit in hits:
        why = hit["why"]
        assert set(why) >= {"fusion", "vector", "text", "relevance", "authority", "decay",
                            "contradicted", "superseded", "score"}  # fmt: skip
        assert why["fusion"]["sides"] == ["text", "vector"]
        missing = (1 - why["vector"]["scaled"]) * (1 - why["text"]["scaled"])
        assert math.isclose(why["relevance"], 1 - missing)
        assert math.isclose(hit["relevance"], why["relevance"])
        assert 0 <= hit["relevance"] <= 1
        product = why["relevance"] * why["authority"]["factor"] * why["contradicted"]["factor"]
        product *= why["decay"]["factor"]
        assert math.isclose(hit["score"], product * why["superseded"]["factor"])
        assert why["vector"]["similarity"] == hit["vectorScore"]


async def test_contradicted_and_superseded_items_sink(recalling: Api, model: E5Small) -> None:
    api = recalling
    old = await api.create(scope="p:a", content={"text": "The service listens on port 8080."})
    new = await api.create(scope="p:a", content={"text": "The service listens on port 9090."})
    await embed_all(api.graph, model)
    before = {
        h["item"]["id"]: h["score"]
        for h in await recall(api, "which port does the service listen on")
    }
    await api.ok(CONTRADICT, a=new["id"], b=old["id"])
    hits = await recall(api, "which port does the service listen on")
    after = {h["item"]["id"]: h for h in hits}
    assert after[old["id"]]["why"]["contradicted"] == {"by": [new["id"]], "factor": 0.5}
    # the decay factor moves a little between the two recalls (the items age)
    assert math.isclose(after[old["id"]]["score"], before[old["id"]] * 0.5, rel_tol=1e-5)


async def test_a_selective_filter_still_fills_the_limit(recalling: Api, model: E5Small) -> None:
    api = recalling
    await write_notes(api, model, scope="p:crowd")
    for n in range(250):  # the nearest 200 the index returns are all outside p:rare
        await api.create(scope="p:crowd", content={"text": f"deployment failed again, attempt {n}"})
    rare = [(await api.create(scope="p:rare", content={"text": t}))["id"] for t in
            ("cats and dogs", "a recipe for bread", "notes on tax forms")]  # fmt: skip
    await embed_all(api.graph, model)
    # every candidate (minScore 0): none of the three is about the cue
    hits = await recall(api, "deployment failed", mode="VECTOR", limit=3, minScore=0,
                        filter={"scopePrefix": "p:rare"})  # fmt: skip
    assert sorted(h["item"]["id"] for h in hits) == sorted(rare)


async def test_grants_hide_unreadable_items_entirely(recalling: Api, model: E5Small) -> None:
    api = recalling
    mine = await api.create(scope="team:a/x", content={"text": "the launch code is in the safe"})
    theirs = await api.create(scope="team:b/x", content={"text": "the launch code is in the safe"})
    await embed_all(api.graph, model)
    reader = api.with_grants("read:team:a/")
    for mode in ("HYBRID", "VECTOR", "TEXT"):
        hits = (await reader.ok(RECALL, input={"cue": "launch code safe", "mode": mode}))["recall"]
        assert [h["item"]["id"] for h in hits] == [mine["id"]]
        assert theirs["id"] not in str(hits)
    # a contradiction from an unreadable item neither sinks nor shows
    await api.with_grants("write:").ok(CONTRADICT, a=theirs["id"], b=mine["id"])
    hit = (await reader.ok(RECALL, input={"cue": "launch code safe"}))["recall"][0]
    assert hit["why"]["contradicted"] == {"by": [], "factor": 1.0}


async def test_items_are_embedded_after_writes_and_changes(recalling: Api, model: E5Small) -> None:
    api = recalling
    item = await api.create(scope="p:a", content={"text": "apples are red"})
    await api.create(scope="p:a", content={"text": "the sky is blue"})
    assert await backlog(api.graph) == (2, 0)
    # not embedded yet, yet found: recall embeds the freshest waiting items
    assert (await recall(api, "fruit", mode="VECTOR"))[0]["item"]["id"] == item["id"]
    assert await backlog(api.graph) == (2, 0)  # a read: the loop still stores them
    await embed_all(api.graph, model)
    assert await backlog(api.graph) == (0, 2)
    assert (await recall(api, "fruit", mode="VECTOR"))[0]["item"]["id"] == item["id"]
    await api.ok("""mutation($id: ID!) { updateItem(id: $id, patch: {content: {text: "bananas"}},
        author: "u") { item { id } } }""", id=item["id"])  # fmt: skip
    assert (await backlog(api.graph)).waiting == 1
    await embed_all(api.graph, model)
    hits = await recall(api, "bananas", mode="VECTOR")
    assert hits[0]["item"]["content"] == {"text": "bananas"}
    # everything again (a model change), a page at a time, resumable
    last, seen = await mark_all(api.graph, "another-model", page=1)
    assert seen == 1
    assert (await backlog(api.graph)).waiting == 1
    last, seen = await mark_all(api.graph, "another-model", after=last, page=5)
    assert seen == 1
    assert (await backlog(api.graph)).waiting == 2
    assert (await mark_all(api.graph, "another-model", after=last))[1] == 0


async def test_a_caller_may_send_the_cues_vector(recalling: Api, model: E5Small) -> None:
    api = recalling
    ids = await write_notes(api, model)
    vector = await model.query("cloud costs went over budget")
    hits = await recall(api, "-", mode="VECTOR", vector=vector, limit=1)
    assert hits[0]["item"]["id"] == ids["budget"]


async def test_a_cue_about_nothing_held_finds_nothing(recalling: Api, model: E5Small) -> None:
    api = recalling
    ids = await write_notes(api, model)
    cue = "which telescope photographed Saturn?"
    for mode in ("HYBRID", "VECTOR", "TEXT"):
        assert await recall(api, cue, mode=mode) == []
    # minScore 0: every candidate, each with the relevance the floor judged
    everything = await recall(api, cue, minScore=0)
    assert {h["item"]["id"] for h in everything} == set(ids.values())
    assert all(h["relevance"] < FLOOR for h in everything)
    # a cue about one of them: that one passes, and the others stay with it
    hits = await recall(api, "why can users not sign in?")
    assert hits[0]["item"]["id"] == ids["auth"]
    assert hits[0]["relevance"] >= FLOOR
    assert len(hits) == len(ids)
    # minScore leaves out each hit below it
    strict = await recall(api, "why can users not sign in?", minScore=hits[0]["relevance"])
    assert [h["item"]["id"] for h in strict] == [ids["auth"]]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"cue": ""}, "cue"),
        ({"cue": "   "}, "cue"),
        ({"cue": "x" * 2_001}, "cue"),
        ({"cue": "a", "limit": 101}, "limit"),
        ({"cue": "a", "limit": -1}, "limit"),
        ({"cue": "a", "vector": [0.1] * (DIMENSION - 1)}, "vector"),
        ({"cue": "a", "vector": [0.0] * DIMENSION}, "vector"),
        ({"cue": "a", "filter": {"scopePrefix": ""}, "limit": 1000}, "limit"),
        ({"cue": "a", "minScore": -0.1}, "minScore"),
        ({"cue": "a", "minScore": 1.5}, "minScore"),
    ],
)
async def test_bad_input_is_refused_and_writes_nothing(
    recalling: Api, fields: dict[str, Any], field: str
) -> None:
    api = recalling
    await api.create()
    before = await api.snapshot()
    body = await api.run(RECALL, {"input": fields})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert field in error["message"]
    assert await api.snapshot() == before


async def test_non_finite_vectors_are_refused(recalling: Api) -> None:
    # JSON has no NaN: a client's NaN arrives as a string or null and fails the type
    body = await recalling.run(RECALL, {"input": {"cue": "a", "vector": ["NaN"] * DIMENSION}})
    assert body["errors"]


async def test_modes_the_server_turned_off(make_api: ApiFactory) -> None:
    api = await make_api(embedding="off", text_search=False)
    for mode in ("HYBRID", "VECTOR", "TEXT"):
        assert await api.codes(RECALL, input={"cue": "a", "mode": mode}) == ["UNSUPPORTED"]
    assert await api.codes(RECALL, input={"cue": "a", "trackAccess": True}) == ["UNSUPPORTED"]


def test_content_becomes_text() -> None:
    assert text_of("plain") == "plain"
    assert text_of({"title": "T", "body": {"parts": ["a", " b "]}, "n": 3, "ok": True}) == (
        "T\na\nb\n3\ntrue"
    )
    assert text_of({"x": "a\0b"}) == "a b"
    assert len(text_of("y" * 10_000)) == 4_000


SET_VECTORS = """mutation($input: [ItemEmbeddingInput!]!) { setItemEmbeddings(input: $input) }"""


def axis(n: int) -> list[float]:
    """A unit vector along one axis: a caller's own, unlike any model's."""
    return [1.0 if i == n else 0.0 for i in range(DIMENSION)]


async def test_callers_own_vectors_for_items(recalling: Api, model: E5Small) -> None:
    api = recalling
    a = await api.create(scope="own:a", content={"text": "first"})
    b = await api.create(scope="own:a", content={"text": "second"})
    stored = await api.ok(SET_VECTORS, input=[{"id": a["id"], "vector": [3.0] + [0.0] * 383},
                                              {"id": b["id"], "vector": axis(1)}])  # fmt: skip
    assert stored["setItemEmbeddings"] == [a["id"], b["id"]]
    assert await backlog(api.graph) == (0, 2)  # nothing left for the model
    hits = await recall(api, "-", mode="VECTOR", vector=axis(0), limit=2)
    assert [h["item"]["id"] for h in hits] == [a["id"], b["id"]]
    assert math.isclose(hits[0]["vectorScore"], 1.0, abs_tol=1e-6)  # stored at unit length
    # a model change keeps them; a content change hands the item to the model
    assert (await mark_all(api.graph, "another-model"))[1] == 2
    assert (await backlog(api.graph)).waiting == 0
    await api.ok("""mutation($id: ID!) { updateItem(id: $id, patch: {content: {text: "x"}},
        author: "u") { item { id } } }""", id=a["id"])  # fmt: skip
    assert (await backlog(api.graph)).waiting == 1


async def test_a_vector_set_again_replaces_the_old_one(recalling: Api) -> None:
    """FalkorDB leaves a vector set over another as it was (its issue 2099):
    memexd clears the old one first, in the index too."""
    api = recalling
    item = await api.create(scope="p:a", content={"text": "anything"})
    for n in (0, 1, 2):
        await api.ok(SET_VECTORS, input=[{"id": item["id"], "vector": axis(n)}])
        hits = await recall(api, "-", mode="VECTOR", vector=axis(n), minScore=0)
        assert [h["item"]["id"] for h in hits] == [item["id"]]
        assert hits[0]["vectorScore"] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        ({"vector": axis(0)[:-1]}, "BAD_USER_INPUT"),
        ({"vector": [0.0] * DIMENSION}, "BAD_USER_INPUT"),
        ({"id": "not-an-id"}, "BAD_USER_INPUT"),
        ({"id": "0190a000-0000-7000-8000-0000000000ee"}, "MEMORY_NOT_FOUND"),
    ],
)
async def test_own_vectors_all_or_none(recalling: Api, entry: dict[str, Any], code: str) -> None:
    api = recalling
    good = await api.create(scope="own:a")
    before = await api.snapshot()
    bad = {"id": good["id"], "vector": axis(0), **entry}
    entries = [{"id": good["id"], "vector": axis(1)}, bad]
    assert await api.codes(SET_VECTORS, input=entries) == [code]
    assert await api.snapshot() == before


async def test_own_vectors_are_capped_per_call(recalling: Api) -> None:
    api = recalling
    before = await api.snapshot()
    # ids no item has: under the cap the answer would be MEMORY_NOT_FOUND
    entries = [{"id": f"0190a000-0000-7000-8000-{n:012x}", "vector": axis(n % DIMENSION)}
               for n in range(MAX_VECTORS + 1)]  # fmt: skip
    assert await api.codes(SET_VECTORS, input=entries) == ["BAD_USER_INPUT"]
    assert await api.codes(SET_VECTORS, input=entries[:MAX_VECTORS]) == ["MEMORY_NOT_FOUND"]
    assert await api.snapshot() == before


async def test_own_vectors_need_the_write_grant(recalling: Api) -> None:
    api = recalling
    mine = await api.create(scope="team:a/x")
    theirs = await api.create(scope="team:b/x")
    writer = api.with_grants("write:team:a/", "read:team:")
    before = await api.snapshot()
    entries = [{"id": mine["id"], "vector": axis(0)}, {"id": theirs["id"], "vector": axis(1)}]
    body = await writer.run(SET_VECTORS, {"input": entries})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "MEMORY_NOT_FOUND"
    assert theirs["id"] in error["message"]
    assert await api.snapshot() == before
    ok = await writer.ok(SET_VECTORS, input=entries[:1])
    assert ok["setItemEmbeddings"] == [mine["id"]]


class Flaky:
    """The model, failing its first call as a model that cannot load would."""

    name = "e5-small-q4"

    def __init__(self, model: E5Small) -> None:
        self.model = model
        self.calls = 0

    async def passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == 1:
            raise Unsupported("the embedding model cannot run on this machine: test")
        return await self.model.passages(texts)

    async def passages_now(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.model.passages_now(texts)

    async def query(self, text: str) -> list[float]:
        return await self.model.query(text)

    def close(self) -> None:
        self.model.close()


async def test_the_loop_outlives_a_fault(
    recalling: Api, model: E5Small, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "PAUSE", 0.05)
    await recalling.create(content={"text": "still embedded"})
    flaky = Flaky(model)
    loop = embedding.Embedding(recalling.graph, flaky)
    loop.start()
    try:
        for _ in range(200):
            if await backlog(recalling.graph) == (0, 1):
                break
            await asyncio.sleep(0.05)
    finally:
        await loop.stop()
    assert await backlog(recalling.graph) == (0, 1)
    assert flaky.calls == 2


async def test_the_loop_waits_while_the_log_grows_fast(
    recalling: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "BUSY", 0.0)  # any write is a bulk write
    pace = embedding.Pace()
    assert not await pace.busy(recalling.graph)  # a first look has nothing to compare
    assert not await pace.busy(recalling.graph)  # nothing logged since
    await recalling.create(content={"text": "one"})
    assert await pace.busy(recalling.graph)  # the log grew: wait
    monkeypatch.setattr(embedding, "MAX_WAIT", 0.0)
    await recalling.create(content={"text": "two"})
    assert not await pace.busy(recalling.graph)  # waited long enough: a batch now


def test_the_embedding_process_stops_once_its_parent_is_gone() -> None:
    """Started as if its parent had died before it could ask for a signal
    (it has another parent than it was told): it stops by itself."""
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=model_module._in_the_background,
                               initargs=(-1,))  # fmt: skip
    try:
        started = time.monotonic()
        with pytest.raises(BrokenProcessPool):
            pool.submit(time.sleep, 30).result(timeout=20)
        assert time.monotonic() - started < 20
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
