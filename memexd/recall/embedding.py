"""Embedding items after they are written, off the request path.

Every write that makes or changes an item's content labels it
``Unembedded`` in the same statement (``cypher/item_create``,
``cypher/item_update``), so what waits is in the graph itself: a restart,
a crash or a second server loses nothing and needs no cursor. The
:class:`Embedding` loop takes waiting items a batch at a time,
embeds their text in the model's process, and stores each vector only if the
item is still at the version it read (``cypher/embedding_set``); an item
changed meanwhile keeps waiting and is embedded again. Storing a vector is
not a command: it writes no event, and a replayed log embeds again.

Writes are never slowed by the model: ingest runs at the engine's pace and
recall sees an item once its turn comes (``pending`` says how many wait).
While a bulk write is under way the loop waits for it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, NamedTuple

from memexd.errors import MemexError
from memexd.graph import Graph
from memexd.recall.model import Embedder, stored_text

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = [
    "Backlog",
    "Embedding",
    "Pace",
    "Pipeline",
    "backlog",
    "embed_waiting",
    "embedding",
    "ensure_vector_index",
    "mark_all",
]

log = logging.getLogger("memexd.recall")

#: Items embedded per batch: one model call (the model's rate grows with
#: the batch: about 300 short notes a second at 32, 400 at 256).
BATCH = 128
#: Vectors stored per statement: each holds the engine's writer for the
#: vector index's inserts (about 2 ms each at 20,000 items), so writes wait
#: behind a few dozen at most.
STORE_ROWS = 32
#: How long the loop sleeps when nothing waits, in seconds.
IDLE = 0.5
#: How long it waits after a fault (engine down, model missing), in seconds.
PAUSE = 5.0
#: Events logged per second above which the loop waits for a bulk write to
#: end: an agent's pace of writes never stops it, an ingest does.
BUSY = 200.0
#: The longest it waits for one in a row, in seconds: under writes that never
#: end, items are still embedded, a batch each time.
MAX_WAIT = 30.0


class Backlog(NamedTuple):
    waiting: int
    embedded: int


async def ensure_vector_index(graph: Graph) -> None:
    """Create the vector index on items' embeddings unless it exists."""
    if int((await graph.read("vector_index_exists"))[0]["found"]) == 0:
        await graph.schema("vector_index_create")


async def backlog(graph: Graph) -> Backlog:
    row = (await graph.read("embedding_count"))[0]
    return Backlog(int(row["waiting"]), int(row["embedded"]))


async def embed_waiting(graph: Graph, embedder: Embedder, batch: int = BATCH) -> int:
    """Embed one batch of waiting items; return how many were read (0: none wait)."""
    pipeline = Pipeline(graph, embedder, batch)
    done = await pipeline.step()
    await pipeline.flush()
    return done


class Pipeline:
    """Waiting items embedded a batch at a time, each batch's vectors stored
    while the model embeds the next: the model and the engine are processes
    of their own, and a batch's store (the vector index's insert above all)
    costs about what its embedding does."""

    def __init__(self, graph: Graph, embedder: Embedder, batch: int = BATCH) -> None:
        self.graph, self.embedder, self.batch = graph, embedder, batch
        self._storing: asyncio.Task[None] | None = None
        self._in_flight: list[str] = []

    async def step(self) -> int:
        """Embed the next batch and start storing it; return how many items
        it held (0: none wait, and every store has ended)."""
        rows = await self.graph.read(
            "embedding_pending", {"limit": self.batch, "skip": self._in_flight}
        )
        if not rows:
            await self.flush()
            return 0
        vectors = await self.embedder.passages([stored_text(row["content"]) for row in rows])
        await self.flush()
        stored = [[row["id"], row["version"], v] for row, v in zip(rows, vectors, strict=True)]
        self._in_flight = [row["id"] for row in rows]
        self._storing = asyncio.get_running_loop().create_task(self._store(stored))
        return len(rows)

    async def flush(self) -> None:
        """Wait for the batch being stored (its failure is the caller's)."""
        storing, self._storing, self._in_flight = self._storing, None, []
        if storing is not None:
            await storing

    def cancel(self) -> None:
        if self._storing is not None:
            self._storing.cancel()

    async def _store(self, stored: list[list[object]]) -> None:
        for start in range(0, len(stored), STORE_ROWS):
            rows = stored[start : start + STORE_ROWS]
            # the old vectors go first, in a statement of their own (why: cypher/embedding_clear)
            await self.graph.write("embedding_clear", {"rows": [row[:2] for row in rows]})
            await self.graph.write("embedding_set", {"rows": rows, "model": self.embedder.name})


async def mark_all(graph: Graph, model: str, after: str = "", page: int = 1_000) -> tuple[str, int]:
    """Put the next page of items not embedded by ``model`` back on the
    waiting list; return the last id seen (the resume point) and how many
    items the page held (0: done)."""
    row = (
        await graph.write("embedding_mark_all", {"after": after, "limit": page, "model": model})
    )[0]
    return (row["last"] or after), int(row["seen"])


class Embedding:
    """The background loop one server runs while embeddings are on."""

    def __init__(self, graph: Graph, embedder: Embedder) -> None:
        self.graph = graph
        self.embedder = embedder
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="memexd-embedding")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        pace, pipeline = Pace(), Pipeline(self.graph, self.embedder)
        try:
            while True:
                try:
                    if await pace.busy(self.graph):
                        await pipeline.flush()
                        await asyncio.sleep(IDLE)
                        continue
                    done = await pipeline.step()
                except MemexError as error:  # the engine is down or busy, no model: later
                    log.warning("embedding paused: %s", error.message)
                    await asyncio.sleep(PAUSE)
                    continue
                if done == 0:
                    await asyncio.sleep(IDLE)
        finally:
            pipeline.cancel()


class Pace:
    """Whether a bulk write is under way: the log grows faster than
    :data:`BUSY` events a second. The model then waits (up to
    :data:`MAX_WAIT` in a row): on a machine of few cores, embedding beside
    an ingest slows the ingest by a fifth, even at the lowest priority
    (the cores' caches and memory bandwidth are shared)."""

    def __init__(self) -> None:
        self._head = -1
        self._at = 0.0
        self._waiting_since: float | None = None

    async def busy(self, graph: Graph) -> bool:
        rows = await graph.read("event_head")
        head, now = (int(rows[0]["head"] or 0) if rows else 0), time.monotonic()
        rate = (head - self._head) / max(now - self._at, 1e-3) if self._head >= 0 else 0.0
        self._head, self._at = head, now
        if rate <= BUSY:
            self._waiting_since = None
            return False
        if self._waiting_since is None:
            self._waiting_since = now
        if now - self._waiting_since < MAX_WAIT:
            return True
        self._waiting_since = None  # waited long enough: one batch now
        return False


@contextlib.asynccontextmanager
async def embedding(memex: Memex | None, enabled: bool) -> AsyncIterator[None]:
    """Run the embedding loop while the body runs, when this process embeds
    and embeddings are on."""
    if memex is None or memex.embedder is None or not enabled:
        yield
        return
    loop = Embedding(memex.graph, memex.embedder)
    loop.start()
    try:
        yield
    finally:
        await loop.stop()
        memex.embedder.close()
