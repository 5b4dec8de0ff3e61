"""The embedding loop's pipeline (memexd.recall.embedding.Pipeline): a
batch is embedded while the batch before it is stored, every waiting item
is embedded once, and an item changed meanwhile is embedded again."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

import pytest

from memexd.graph import Graph
from memexd.recall import embedding
from memexd.recall.embedding import Pipeline, backlog
from memexd.recall.model import DIMENSION
from memexd.types import Params, Row
from tests.support import Api, CountingStore

UPDATE = """mutation($id: ID!, $text: String!) {
  updateItem(id: $id, patch: {content: {text: $text}}, author: "u") { item { id } } }"""


class Recorder:
    """A stand-in model (a vector from each text's hash), recording the
    batches it gets; ``started`` is set when a batch numbered ``signal`` arrives."""

    name = "e5-small-q4"

    def __init__(self, signal: int = 0) -> None:
        self.batches: list[list[str]] = []
        self.started = asyncio.Event()
        self.signal = signal

    async def passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        if len(self.batches) == self.signal:
            self.started.set()
        return [_vector(text) for text in texts]

    async def passages_now(self, texts: Sequence[str]) -> list[list[float]]:
        return [_vector(text) for text in texts]

    async def query(self, text: str) -> list[float]:
        return _vector(text)

    def close(self) -> None:
        pass


def _vector(text: str) -> list[float]:
    seed = hashlib.sha256(text.encode()).digest()
    raw = [seed[i % 32] - 127.5 for i in range(DIMENSION)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


class HeldStore(CountingStore):
    """Stores the first batch's vectors only once ``release`` is set."""

    def __init__(self, inner: object, release: asyncio.Event) -> None:
        super().__init__(inner)  # type: ignore[arg-type]
        self.release = release

    async def write(self, text: str, params: Params) -> list[Row]:
        if "model" in params and "rows" in params:  # cypher/embedding_set
            await self.release.wait()
        return await super().write(text, params)


async def _notes(api: Api, count: int) -> list[str]:
    return [(await api.create(content={"text": f"note number {n}"}))["id"] for n in range(count)]


async def test_the_next_batch_is_embedded_while_one_is_stored(recalling: Api) -> None:
    await _notes(recalling, 4)
    model = Recorder(signal=2)
    graph = Graph(HeldStore(recalling.graph.store, model.started))
    pipeline = Pipeline(graph, model, batch=2)
    # were the store awaited before the next batch, this would never end
    async with asyncio.timeout(20):
        while await pipeline.step():
            pass
    assert [len(batch) for batch in model.batches] == [2, 2]
    assert await backlog(recalling.graph) == (0, 4)


async def test_each_waiting_item_is_embedded_once(recalling: Api) -> None:
    await _notes(recalling, 7)
    model = Recorder()
    pipeline = Pipeline(recalling.graph, model, batch=3)
    while await pipeline.step():
        pass
    texts = [text for batch in model.batches for text in batch]
    assert sorted(texts) == sorted(f"note number {n}" for n in range(7))
    assert await backlog(recalling.graph) == (0, 7)


async def test_an_item_changed_while_its_batch_is_stored_is_embedded_again(
    recalling: Api,
) -> None:
    [first, _] = await _notes(recalling, 2)
    model = Recorder()
    pipeline = Pipeline(recalling.graph, model, batch=2)
    assert await pipeline.step() == 2  # embedded, its store started
    await recalling.ok(UPDATE, id=first, text="changed meanwhile")
    await pipeline.flush()
    assert (await backlog(recalling.graph)).waiting == 1  # the old vector was refused
    while await pipeline.step():
        pass
    assert model.batches[-1] == ["changed meanwhile"]
    assert await backlog(recalling.graph) == (0, 2)


class WriteLog(CountingStore):
    """Records the rows of each vector-storing statement."""

    def __init__(self, inner: object) -> None:
        super().__init__(inner)  # type: ignore[arg-type]
        self.stored: list[int] = []

    async def write(self, text: str, params: Params) -> list[Row]:
        if "model" in params and "rows" in params:  # cypher/embedding_set
            self.stored.append(len(params["rows"]))
        return await super().write(text, params)


async def test_a_batch_is_stored_a_few_dozen_vectors_a_statement(
    recalling: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine runs one write at a time: a model call's batch is stored
    in statements of at most STORE_ROWS, so other writes wait behind few."""
    monkeypatch.setattr(embedding, "STORE_ROWS", 2)
    await _notes(recalling, 5)
    log = WriteLog(recalling.graph.store)
    pipeline = Pipeline(Graph(log), Recorder(), batch=5)
    while await pipeline.step():
        pass
    assert log.stored == [2, 2, 1]
    assert await backlog(recalling.graph) == (0, 5)
