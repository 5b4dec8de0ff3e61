"""Ingest: ``createItems`` over HTTP vs raw batched Cypher on the same engine.

Run: ``.venv/bin/python bench/ingest.py [--items N] [--batch B] [--quick]``

Request bodies and Cypher texts are serialised before the clock starts, so
both figures measure the server side (memexd + engine vs engine alone).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx
from _common import (
    CREATE_ITEMS,
    GRAPH_NAME,
    MemexdServer,
    batches,
    check_graphql,
    item_inputs,
    json_body,
    memexd_server,
    raw_client,
    raw_query,
    stored_props,
)
from falkordb.asyncio.graph import AsyncGraph

from memexd.graph import Graph
from memexd.graph.falkordb import FalkorStore, encode_params
from memexd.graph.migrations import migrate

RAW_CREATE = "UNWIND $rows AS r CREATE (n:Item) SET n = r"
RAW_GRAPH = "raw_ingest"
RAW_SCHEMA_GRAPH = "raw_schema"
TARGET = 0.50


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    items: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.items / self.seconds

    def line(self) -> str:
        return f"  {self.label:<34} {self.seconds:8.2f} s  {self.rate:>10,.0f} items/s"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="items to ingest")
    parser.add_argument("--batch", type=int, default=1_000, help="items per request / query")
    parser.add_argument("--seed", type=int, default=7, help="random seed for the rows")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2,000 items")
    args = parser.parse_args()
    if args.quick:
        args.items = 2_000
    return args


def _http_ingest(server: MemexdServer, inputs: list[dict[str, Any]], batch: int) -> Figure:
    bodies = [json_body(CREATE_ITEMS, {"inputs": list(chunk)}) for chunk in batches(inputs, batch)]
    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        start = time.perf_counter()
        for body, chunk in zip(bodies, batches(inputs, batch), strict=True):
            data = check_graphql(client.post("/graphql", content=body, headers=headers))
            if len(data["createItems"]["items"]) != len(chunk):
                raise RuntimeError("createItems returned a short batch")
        elapsed = time.perf_counter() - start
    return Figure("memexd createItems (HTTP)", len(inputs), elapsed)


async def _raw_ingest(graph: AsyncGraph, inputs: list[dict[str, Any]], batch: int) -> Figure:
    await raw_query(graph, "CREATE INDEX FOR (n:Item) ON (n.id)")
    return await _timed_raw(graph, inputs, batch, "raw UNWIND … CREATE (same engine)")


async def _raw_schema_ingest(
    server: MemexdServer, graph: AsyncGraph, inputs: list[dict[str, Any]], batch: int
) -> Figure:
    """The same rows into a graph with memexd's migrations (indexes, constraints)."""
    store = FalkorStore.connect(unix_socket=server.socket, graph=RAW_SCHEMA_GRAPH)
    await migrate(Graph(store))
    await store.close()
    return await _timed_raw(graph, inputs, batch, "raw, memexd's indexes+constraints")


async def _timed_raw(
    graph: AsyncGraph, inputs: list[dict[str, Any]], batch: int, label: str
) -> Figure:
    rows = [stored_props(row) for row in inputs]
    queries = [encode_params({"rows": list(chunk)}) + RAW_CREATE for chunk in batches(rows, batch)]
    start = time.perf_counter()
    for query in queries:
        await graph.query(query)
    elapsed = time.perf_counter() - start
    return Figure(label, len(inputs), elapsed)


async def _count_items(graph: AsyncGraph) -> int:
    rows = await raw_query(graph, "MATCH (n:Item) RETURN count(n)", read_only=True)
    return int(rows[0][0])


def _workload(args: argparse.Namespace, inputs: list[dict[str, Any]]) -> str:
    with_parents = sum(1 for row in inputs if row["parents"])
    links = sum(len(row["parents"]) for row in inputs)
    return (
        f"ingest: {len(inputs):,} items in batches of {args.batch:,}, one client, sequential, "
        f"keep-alive\n  rows: {with_parents:,} items with parents ({links:,} links), "
        "content object, meta with 2-3 keys\n"
        f"  memexd: createItems over HTTP (selects items {{ id }}), graph {GRAPH_NAME!r}\n"
        f"  raw: {RAW_CREATE!r} on graph {RAW_GRAPH!r} (index on Item.id), "
        "rows = records.item_props"
    )


async def _run(args: argparse.Namespace) -> None:
    inputs = item_inputs(args.items, random.Random(args.seed))
    print(_workload(args, inputs), flush=True)
    with memexd_server() as server:
        http = _http_ingest(server, inputs, args.batch)
        print(http.line(), flush=True)
        async with raw_client(server) as db:
            stored = await _count_items(db.select_graph(GRAPH_NAME))
            raw_graph = db.select_graph(RAW_GRAPH)
            raw = await _raw_ingest(raw_graph, inputs, args.batch)
            print(raw.line())
            raw_stored = await _count_items(raw_graph)
            schema = await _raw_schema_ingest(
                server, db.select_graph(RAW_SCHEMA_GRAPH), inputs, args.batch
            )
            print(schema.line())
    ratio = http.rate / raw.rate
    verdict = "met" if ratio >= TARGET else "MISSED"
    print(f"  ratio memexd/raw: {ratio:.2f}  (target >= {TARGET:.2f}: {verdict})")
    print(f"  ratio memexd/raw with memexd's indexes+constraints: {http.rate / schema.rate:.2f}")
    for name, count in ((GRAPH_NAME, stored), (RAW_GRAPH, raw_stored)):
        check = "OK" if count == len(inputs) else f"MISMATCH, expected {len(inputs):,}"
        print(f"  graph {name!r} holds {count:,} items: {check}")


def main() -> None:
    asyncio.run(_run(_args()))


if __name__ == "__main__":
    main()
