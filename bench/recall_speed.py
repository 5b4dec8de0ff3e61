"""Recall latency over HTTP at scale, and the engine memory per item.

Run: ``.venv/bin/python bench/recall_speed.py [--items 100000] [--cues 200]
[--words-only] [--own-vectors] [--bulk-index] [--data-dir DIR] [--loaded]``
(``--data-dir``: the loaded engine is kept there, and a second run with the
same flags measures it again without loading: a million vectors take hours)

A fresh ``memexd serve`` (FalkorDB, default settings: full-text and vector
indexes on) gets ``--items`` items through ``POST /items``, their text drawn
from a vocabulary of 20,000 words with Zipf's law (s = 1.1), as natural text
has it (the load benches' 23-word corpus makes every cue match every item);
each then gets a vector through ``setItemEmbeddings``, 256 a call (random
unit vectors: the model would take days to embed a million items on two
cores, and the index's work does not depend on where a vector came from;
FalkorDB's vector index takes 5 ms a vector at first and over 12 ms past
300,000, so a million take three hours or more). ``--cues`` recalls of
random words (three words drawn the same way) then run one after another,
each mode in turn, and the script prints p50, p99 and mean per mode (the
cue's embedding by the model included), and the engine's memory per item
(``used_memory`` of the engine before the load and after, divided by the
items). ``--words-only`` stores no vectors and turns embedding off: TEXT
recall and the full-text index's memory only. ``--own-vectors`` keeps the
model out of the server (``MEMEXD_EMBEDDING=off``) and sends each cue's
vector with it, as a caller with its own vectors does: with the model on, it
embeds items waiting while the caller's vectors stream in (storing a vector
writes no event, so nothing tells it a bulk write is under way); measured at
100,000 items that cost the load ~4%, and the option keeps the model's share
of the cores out of the figures. The script then times the model embedding
cues in its own process, the part of a recall's time this leaves out.
``--bulk-index`` drops the vector index (on the engine's socket) before the
vectors are stored and builds it once after, waiting until the engine says
it is operational, as an operator would for a bulk load: 60,000 vectors
took 2 ms each stored one by one into the index against 0.5 ms stored plus
1.2 ms built after; recall then searches the same kind of index.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy
import orjson
import redis
from _common import (
    GRAPH_NAME,
    Latencies,
    batches,
    check_graphql,
    item_inputs,
    memexd_server,
    raw_client,
    raw_query,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.recall.model import DIMENSION, E5Small
from memexd.recall.vectors import MAX_VECTORS

CYPHER = Path(__file__).resolve().parents[1] / "cypher"

RECALL = """query($cue: String!, $mode: RecallMode!, $vector: [Float!]) {
  recall(input: {cue: $cue, mode: $mode, vector: $vector, limit: 10}) { score item { id } } }"""
VECTORS = "mutation($i: [ItemEmbeddingInput!]!) { setItemEmbeddings(input: $i) }"
VOCABULARY = 20_000


class Zipf:
    """Words w0 … w19999, the n-th drawn with weight 1 / n^1.1."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = [f"w{n}" for n in range(VOCABULARY)]
        self.weights = list(itertools.accumulate(1 / (n + 1) ** 1.1 for n in range(VOCABULARY)))

    def text(self, count: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.weights, k=count))


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--cues", type=int, default=200)
    parser.add_argument("--words-only", action="store_true",
                        help="no vectors, embedding off: TEXT recall and the full-text "
                        "index's memory only (minutes at a million items, not hours)")  # fmt: skip
    parser.add_argument("--data-dir", type=Path,
                        help="keep the loaded engine here; run again with the same flags "
                        "to measure without loading again (keep the path short)")  # fmt: skip
    parser.add_argument("--bulk-index", action="store_true",
                        help="drop the vector index while the vectors are stored and "
                        "build it once after (a bulk load)")  # fmt: skip
    parser.add_argument("--loaded", action="store_true",
                        help="--data-dir holds the items and vectors of a run stopped "
                        "before its index was built: the server builds it at start; "
                        "measure once it is operational")  # fmt: skip
    parser.add_argument("--own-vectors", action="store_true",
                        help="embedding off in the server; cues carry their vectors "
                        "(the model's cue time is measured apart)")  # fmt: skip
    return parser.parse_args()


def units(rng: numpy.random.Generator, count: int) -> list[list[float]]:
    """``count`` random unit vectors (numpy: the client shares the engine's
    two cores, and a million vectors in pure Python took minutes of them)."""
    v = rng.standard_normal((count, DIMENSION))
    return numpy.round(v / numpy.linalg.norm(v, axis=1, keepdims=True), 6).tolist()  # type: ignore[no-any-return]


def used_memory(socket: str) -> int:
    with redis.Redis(unix_socket_path=socket) as engine:
        return int(engine.info("memory")["used_memory"])


def main() -> None:
    args = _args()
    rng = random.Random(7)
    inputs = item_inputs(args.items, rng)
    zipf = Zipf(rng)
    for row in inputs:
        row["content"] = {"text": zipf.text(rng.randint(8, 30))}
    embedding = "off" if args.words_only or args.own_vectors else "e5-small"
    settings = {"MEMEXD_EMBEDDING": embedding, "MEMEXD_TEXT_SEARCH": "true"}
    unfinished = args.data_dir is not None and args.data_dir.exists()
    if unfinished and not args.loaded and not (args.data_dir / "recall_speed.json").exists():
        sys.exit(f"{args.data_dir} holds no finished load of this script: remove it first")
    with (
        memexd_server(GRAPH_NAME, keep=args.data_dir, **settings) as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        loaded = None if args.data_dir is None else args.data_dir / "recall_speed.json"
        per_item: float | None = None
        if args.loaded:
            print(f"{args.items:,} items and vectors stored before in {args.data_dir} "
                  "(an interrupted run; memory per item not measured)")  # fmt: skip
        elif loaded is not None and loaded.exists():
            per_item = _reused(loaded, args)
        else:
            per_item = _load_all(server, client, inputs, args)
            if loaded is not None:
                loaded.write_text(orjson.dumps(_run_of(args) | {"per_item": per_item}).decode())
        held = "full-text index" if args.words_only else "full-text and vector indexes"
        if per_item is not None:
            print(f"engine memory: {per_item:,.0f} B per item (items, events, {held})")
        started = time.perf_counter()
        asyncio.run(operational(server))  # a restarted engine may be building its indexes
        print(f"indexes operational after {time.perf_counter() - started:.0f} s more")
        cue_vectors = numpy.random.default_rng(11) if args.own_vectors else None
        for mode in ("TEXT",) if args.words_only else ("HYBRID", "VECTOR", "TEXT"):
            measure(client, zipf, mode, args.cues, args.items, cue_vectors)
    if args.own_vectors:
        time_the_model(zipf, args.cues)


def _run_of(args: argparse.Namespace) -> dict[str, Any]:
    return {"items": args.items, "words_only": args.words_only, "bulk_index": args.bulk_index}


def _load_all(server: Any, client: httpx.Client, inputs: list[dict[str, Any]],
              args: argparse.Namespace) -> float:  # fmt: skip
    """The items and their vectors; the engine's memory per item they took."""
    before = used_memory(server.socket)
    load(client, inputs)
    if not args.words_only:
        if args.bulk_index:
            asyncio.run(vector_index(server, "vector_index_drop"))
        store_vectors(client, inputs)
        if args.bulk_index:
            started = time.perf_counter()
            asyncio.run(vector_index(server, "vector_index_create"))
            asyncio.run(operational(server))
            print(f"vector index built in {time.perf_counter() - started:.0f} s")
    return (used_memory(server.socket) - before) / int(args.items)


async def vector_index(server: Any, statement: str) -> None:
    """Run memexd's own statement that drops or creates the vector index."""
    lines = (CYPHER / f"{statement}.cypher").read_text().splitlines()
    text = "\n".join(line for line in lines if not line.startswith("//"))
    async with raw_client(server) as db:
        await raw_query(db.select_graph(GRAPH_NAME), text)


async def operational(server: Any) -> None:
    """Wait until the engine has built every index (it builds in the background)."""
    async with raw_client(server) as db:
        graph = db.select_graph(GRAPH_NAME)
        while True:
            rows = await raw_query(graph, "CALL db.indexes() YIELD status RETURN status")
            if all(row[0] == "OPERATIONAL" for row in rows):
                return
            await asyncio.sleep(5)


def _reused(loaded: Path, args: argparse.Namespace) -> float:
    """A data dir this script loaded before, with the same items: measure only."""
    run = orjson.loads(loaded.read_bytes())
    if {k: run[k] for k in _run_of(args)} != _run_of(args):
        sys.exit(f"{loaded.parent} was loaded with {run}, not {_run_of(args)}")
    print(f"{args.items:,} items (and vectors) loaded before in {loaded.parent}")
    return float(run["per_item"])


def load(client: httpx.Client, inputs: list[dict[str, Any]]) -> None:
    started = time.perf_counter()
    for chunk in batches(inputs, 20_000):
        body = b"".join(orjson.dumps(row) + b"\n" for row in chunk)
        client.post("/items", content=body, headers={"content-type": "application/x-ndjson"})
    print(f"{len(inputs):,} items in {time.perf_counter() - started:.1f} s (POST /items)")


def store_vectors(client: httpx.Client, inputs: list[dict[str, Any]]) -> None:
    """Two calls in flight (the server runs two workers): the calls' parsing
    and checking in the service overlaps the engine's storing."""
    numbers = numpy.random.default_rng(7)
    started, splits, done = time.perf_counter(), 0, 0
    with ThreadPoolExecutor(2) as pool:
        pending: list[Future[int]] = []
        for chunk in batches(inputs, MAX_VECTORS):
            vectors = units(numbers, len(chunk))
            entries = [{"id": r["id"], "vector": v} for r, v in zip(chunk, vectors, strict=True)]
            pending.append(pool.submit(send_vectors, client, entries))
            if len(pending) == 4:
                splits += pending.pop(0).result()
                done += 1
                if done % 400 == 0:
                    print(f"  {done * MAX_VECTORS:,} vectors, "
                          f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        splits += sum(f.result() for f in pending)
    spent = time.perf_counter() - started
    print(f"{len(inputs):,} vectors in {spent:.1f} s (setItemEmbeddings; "
          f"{splits} calls over the engine's query limit sent again in halves)")  # fmt: skip


def send_vectors(client: httpx.Client, entries: list[dict[str, Any]]) -> int:
    """One call; a call the engine's query limit stopped (RESOURCE_EXHAUSTED:
    nothing was stored) is sent again in two halves, as a caller would.
    Returns how many calls were split."""
    body = orjson.dumps({"query": VECTORS, "variables": {"i": entries}})
    response = client.post("/graphql", content=body, headers={"content-type": "application/json"})
    codes = {e.get("extensions", {}).get("code") for e in response.json().get("errors") or []}
    if codes != {"RESOURCE_EXHAUSTED"} or len(entries) == 1:
        check_graphql(response)
        return 0
    half = len(entries) // 2
    return 1 + send_vectors(client, entries[:half]) + send_vectors(client, entries[half:])


def measure(
    client: httpx.Client,
    zipf: Zipf,
    mode: str,
    cues: int,
    items: int,
    vectors: numpy.random.Generator | None,
) -> None:
    timings = []
    for _ in range(cues):
        cue = zipf.text(3)
        variables: dict[str, Any] = {"cue": cue, "mode": mode}
        if vectors is not None and mode != "TEXT":
            variables["vector"] = units(vectors, 1)[0]
        t = time.perf_counter()
        response = client.post("/graphql", json={"query": RECALL, "variables": variables})
        timings.append((time.perf_counter() - t) * 1000)
        if not check_graphql(response)["recall"]:
            raise RuntimeError(f"no hit for {cue!r} in {mode}")
    lat = Latencies(mode, timings)
    print(f"recall {mode:<6} @ {items:,}: p50 {lat.p50:6.1f} ms  "
          f"p99 {lat.pct(99):6.1f} ms  mean {lat.mean:6.1f} ms")  # fmt: skip


def time_the_model(zipf: Zipf, cues: int) -> None:
    """The model embedding ``cues`` three-word cues, one after another, in
    this process (as the server's cue thread does)."""
    model = E5Small()
    try:
        timings = asyncio.run(_cue_times(model, [zipf.text(3) for _ in range(cues)]))
    finally:
        model.close()
    lat = Latencies("cue", timings)
    print(f"the model embeds a cue: p50 {lat.p50:6.1f} ms  p99 {lat.pct(99):6.1f} ms  "
          f"(add to HYBRID and VECTOR above for a server embedding cues)")  # fmt: skip


async def _cue_times(model: E5Small, cues: list[str]) -> list[float]:
    """Milliseconds per cue, in one event loop (the first call, which loads
    the model, is not timed)."""
    await model.query("warm up")
    timings = []
    for cue in cues:
        t = time.perf_counter()
        await model.query(cue)
        timings.append((time.perf_counter() - t) * 1000)
    return timings


if __name__ == "__main__":
    main()
