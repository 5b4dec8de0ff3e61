"""Point read: ``item(id)`` over HTTP vs a raw client round trip on the same engine.

Run: ``.venv/bin/python bench/point_read.py [--items N] [--samples S] [--quick]``

Both sides read the same random ids, interleaved one HTTP request then one
raw query, so drift on a noisy machine hits both alike. The raw side is the
falkordb *asyncio* client (the driver memexd itself uses), ``GRAPH.RO_QUERY``.
The HTTP side uses the standard library's keep-alive ``http.client``: the
figure is about the server, and httpx alone adds ~0.3 ms per request here.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from _common import (
    GRAPH_NAME,
    Latencies,
    MemexdServer,
    item_inputs,
    keep_alive,
    load_items,
    memexd_server,
    raw_client,
    raw_query,
)
from falkordb.asyncio.graph import AsyncGraph

ITEM = """
query Item($id: ID!) {
  item(id: $id) { id scope kind content authority createdAt }
}
"""
RAW_ITEM = (
    "MATCH (n:Item {id: $id}) RETURN n.id, n.scope, n.kind, n.content, n.authority, n.created_at"
)
TARGET = 4.0
LOAD_BATCH = 1_000

Reader = Callable[[str], Awaitable[None]]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000, help="items to create first")
    parser.add_argument("--samples", type=int, default=5_000, help="timed reads per side")
    parser.add_argument("--warmup", type=int, default=500, help="untimed reads per side first")
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1,000 items, 300 reads")
    args = parser.parse_args()
    if args.quick:
        args.items, args.samples, args.warmup = 1_000, 300, 50
    return args


def _http_reader(connection: http.client.HTTPConnection) -> Reader:
    headers = {"content-type": "application/json"}

    async def read(item_id: str) -> None:
        body = json.dumps({"query": ITEM, "variables": {"id": item_id}})
        connection.request("POST", "/graphql", body=body, headers=headers)
        answer = json.loads(connection.getresponse().read())
        item = (answer.get("data") or {}).get("item")
        if item is None or item["id"] != item_id:
            raise RuntimeError(f"item({item_id}) came back as {answer!r}")

    return read


def _raw_reader(graph: AsyncGraph) -> Reader:
    async def read(item_id: str) -> None:
        rows = await raw_query(graph, RAW_ITEM, {"id": item_id}, read_only=True)
        if len(rows) != 1 or rows[0][0] != item_id:
            raise RuntimeError(f"raw read of {item_id} returned {rows!r}")

    return read


async def _measure(readers: dict[str, Reader], ids: list[str]) -> dict[str, list[float]]:
    """Per-reader latencies in ms, alternating readers for every id."""
    samples: dict[str, list[float]] = {name: [] for name in readers}
    for item_id in ids:
        for name, read in readers.items():
            start = time.perf_counter()
            await read(item_id)
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


async def _run_reads(
    server: MemexdServer, inputs: list[dict[str, Any]], args: argparse.Namespace
) -> list[Latencies]:
    rng = random.Random(args.seed + 1)
    ids = [row["id"] for row in inputs]
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        load_items(client, inputs, LOAD_BATCH)
    connection = keep_alive(server, timeout=30)
    try:
        async with raw_client(server) as db:
            readers = {
                "memexd item(id) over HTTP": _http_reader(connection),
                "raw MATCH … RETURN (falkordb asyncio)": _raw_reader(db.select_graph(GRAPH_NAME)),
            }
            await _measure(readers, rng.choices(ids, k=args.warmup))
            samples = await _measure(readers, rng.choices(ids, k=args.samples))
    finally:
        connection.close()
    return [Latencies(name, ms) for name, ms in samples.items()]


def _workload(args: argparse.Namespace) -> str:
    return (
        f"point read: {args.items:,} items created via createItems, then {args.samples:,} "
        f"timed reads per side of random ids ({args.warmup:,} warm-up), one client, "
        "sequential, keep-alive (http.client), interleaved\n"
        "  memexd: query item(id) { id scope kind content authority createdAt }\n"
        f"  raw: {RAW_ITEM!r} (GRAPH.RO_QUERY, falkordb asyncio client, unix socket)"
    )


def main() -> None:
    args = _args()
    print(_workload(args), flush=True)
    inputs = item_inputs(args.items, random.Random(args.seed))
    with memexd_server() as server:
        http, raw = asyncio.run(_run_reads(server, inputs, args))
    for side in (http, raw):
        print(f"  {side.label:<40} p50 {side.p50:7.3f} ms   p99 {side.pct(99):7.3f} ms")
    ratio50, ratio99 = http.p50 / raw.p50, http.pct(99) / raw.pct(99)
    verdict = "met" if ratio50 <= TARGET else "MISSED"
    target = f"target p50 <= {TARGET:.0f}x: {verdict}"
    print(f"  ratio HTTP/raw: p50 {ratio50:.2f}x  p99 {ratio99:.2f}x  ({target})")


if __name__ == "__main__":
    main()
