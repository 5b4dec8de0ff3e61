"""Ingest: every bulk path against raw batched Cypher on the same engine.

Run: ``.venv/bin/python bench/ingest.py [--items N] [--batch B] [--quick]``

One run, the same items (same ids) through each path, each into a fresh graph:

- **raw**: ``UNWIND $rows AS r CREATE (n:Item) SET n = r`` (rows =
  ``records.item_props``, the nodes memexd stores) into a graph with an index
  on ``Item.id``, and again into one with memexd's indexes and constraints
  (the full-text index included when MEMEXD_TEXT_SEARCH is on, as by default);
  the Cypher texts are encoded before the clock starts: the engine alone.
- **createItems**: one GraphQL request per batch over HTTP (``items { id }``),
  bodies serialised before the clock starts.
- **POST /items**: NDJSON requests of ``--lines`` lines (default: all in one,
  as the endpoint streams), ``?batch=B``, on a second fresh server.
- **memexd import**: an NDJSON file of MemEX memory records, into a fresh
  data directory, ``MEMEXD_MAX_BATCH=B``: the command's wall time (Python
  start-up, the check pass, the engine's start and migrations included) and
  the write pass the command reports.

memexd's paths write what raw does not: one memory.created event per item,
PARENT links (a third of the items name parents), the checks. Ratios are
items/s of the path over items/s of raw (index on id).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
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
from _targets import memexd_schema
from falkordb.asyncio.graph import AsyncGraph

from memexd.graph.falkordb import FalkorStore
from memexd.graph.falkordb_wire import encode_params

RAW_CREATE = "UNWIND $rows AS r CREATE (n:Item) SET n = r"
RAW_GRAPH = "raw_ingest"
RAW_SCHEMA_GRAPH = "raw_schema"
MEMEXD = Path(sys.executable).with_name("memexd")
#: The issue's targets: import and POST /items at half of raw, createItems a quarter.
TARGETS = {"import": 0.50, "ndjson": 0.50, "graphql": 0.25}
_IMPORTED = re.compile(r"imported [\d,]+ records from .* in ([\d.]+) s")


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    items: int
    seconds: float
    target: float | None = None

    @property
    def rate(self) -> float:
        return self.items / self.seconds

    def line(self, raw: Figure | None = None) -> str:
        text = f"  {self.label:<40} {self.seconds:7.2f} s  {self.rate:>9,.0f} items/s"
        if raw is not None:
            ratio = self.rate / raw.rate
            text += f"  {ratio:5.2f}x raw"
            if self.target is not None:
                met = "met" if ratio >= self.target else "MISSED"
                text += f"  (target {self.target:.2f}: {met})"
        return text


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="items to ingest")
    parser.add_argument("--batch", type=int, default=1_000, help="items per request / query")
    parser.add_argument("--lines", type=int, default=0,
                        help="lines per POST /items request (0: all in one)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7, help="random seed for the rows")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2,000 items")
    args = parser.parse_args()
    if args.quick:
        args.items = 2_000
    return args


# ---------------------------------------------------------------- raw


async def _raw(server: MemexdServer, inputs: list[dict[str, Any]], batch: int) -> list[Figure]:
    rows = [stored_props(row) for row in inputs]
    texts = [encode_params({"rows": list(chunk)}) + RAW_CREATE for chunk in batches(rows, batch)]
    async with raw_client(server) as db:
        plain = db.select_graph(RAW_GRAPH)
        await raw_query(plain, "CREATE INDEX FOR (n:Item) ON (n.id)")
        raw = await _timed(plain, texts, len(rows), "raw UNWIND … CREATE (index on id)")
        store = FalkorStore.connect(unix_socket=server.socket, graph=RAW_SCHEMA_GRAPH)
        await memexd_schema(store)
        await store.close()
        schema = db.select_graph(RAW_SCHEMA_GRAPH)
        with_schema = await _timed(schema, texts, len(rows), "raw, memexd's indexes+constraints")
        for graph in (plain, schema):
            await _expect(graph, len(rows))
    return [raw, with_schema]


async def _timed(graph: AsyncGraph, texts: list[str], items: int, label: str) -> Figure:
    start = time.perf_counter()
    for text in texts:
        await graph.query(text)
    return Figure(label, items, time.perf_counter() - start)


async def _expect(graph: AsyncGraph, count: int) -> None:
    rows = await raw_query(graph, "MATCH (n:Item) RETURN count(n)", read_only=True)
    if int(rows[0][0]) != count:
        raise RuntimeError(f"graph {graph.name} holds {rows[0][0]} items, not {count}")


async def _count(server: MemexdServer, graph: str = GRAPH_NAME) -> tuple[int, int]:
    """Items and memory.created events in a server's graph: an event is kept
    on its item (at the item's seq) while the item is as created, a node of
    its own after (docs/events.md, "Storage")."""
    async with raw_client(server) as db:
        g = db.select_graph(graph)
        items = await raw_query(g, "MATCH (n:Item) RETURN count(n)", read_only=True)
        kept = await raw_query(
            g, "MATCH (n:Item) WHERE n.seq IS NOT NULL RETURN count(n)", read_only=True
        )
        nodes = await raw_query(
            g, "MATCH (e:Event {type: 'memory.created'}) RETURN count(e)", read_only=True
        )
    return int(items[0][0]), int(kept[0][0]) + int(nodes[0][0])


# ---------------------------------------------------------------- memexd over HTTP


def _graphql(server: MemexdServer, inputs: list[dict[str, Any]], batch: int) -> Figure:
    bodies = [json_body(CREATE_ITEMS, {"inputs": list(chunk)}) for chunk in batches(inputs, batch)]
    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        start = time.perf_counter()
        for body, chunk in zip(bodies, batches(inputs, batch), strict=True):
            data = check_graphql(client.post("/graphql", content=body, headers=headers))
            if len(data["createItems"]["items"]) != len(chunk):
                raise RuntimeError("createItems returned a short batch")
        elapsed = time.perf_counter() - start
    return Figure("createItems over HTTP", len(inputs), elapsed, TARGETS["graphql"])


def _ndjson(
    server: MemexdServer, inputs: list[dict[str, Any]], batch: int, lines: int
) -> Figure | str:
    """POST /items; a reason instead when the server does not serve it."""
    chunks = batches(inputs, lines or len(inputs))
    bodies = [b"".join(orjson.dumps(row) + b"\n" for row in chunk) for chunk in chunks]
    headers = {"content-type": "application/x-ndjson"}
    with httpx.Client(base_url=server.base_url, timeout=300) as client:
        probe = client.post("/items", content=b"", headers=headers)
        if probe.status_code != 200:
            return f"POST /items answered {probe.status_code}: not mounted in this build"
        start = time.perf_counter()
        for body, chunk in zip(bodies, chunks, strict=True):
            response = client.post(f"/items?batch={batch}", content=body, headers=headers)
            last = orjson.loads(response.content.rsplit(b"\n", 2)[-2])
            if last.get("done", {}).get("created") != len(chunk):
                raise RuntimeError(f"POST /items did not create its lines: {last}")
        elapsed = time.perf_counter() - start
    label = f"POST /items (NDJSON, {lines or len(inputs):,} lines a request)"
    return Figure(label, len(inputs), elapsed, TARGETS["ndjson"])


# ---------------------------------------------------------------- memexd import


def _record(row: dict[str, Any]) -> dict[str, Any]:
    """A MemEX memory record (snake_case) for a GraphQL input."""
    names = {"sourceKind": "source_kind", "intentId": "intent_id", "taskId": "task_id"}
    return {names.get(k, k): v for k, v in row.items() if v is not None}


def _import(inputs: list[dict[str, Any]], batch: int) -> list[Figure]:
    work = Path(tempfile.mkdtemp(prefix="mxi-", dir="/tmp"))
    try:
        path = work / "memories.ndjson"
        with path.open("wb") as f:
            for row in inputs:
                f.write(orjson.dumps(_record(row)) + b"\n")
        env = {**os.environ, "MEMEXD_MAX_BATCH": str(batch)}
        argv = [str(MEMEXD), "import", str(path), "--data-dir", str(work / "data")]
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"memexd import failed: {done.stderr}")
        found = _IMPORTED.search(done.stdout)
        if found is None or f"created: memories {len(inputs):,}" not in done.stdout:
            raise RuntimeError(f"memexd import did not create every record: {done.stdout}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        Figure("memexd import, write pass", len(inputs), float(found.group(1)), TARGETS["import"]),
        Figure("memexd import, whole command", len(inputs), wall),
    ]


# ---------------------------------------------------------------- the run


def _workload(args: argparse.Namespace, inputs: Sequence[dict[str, Any]]) -> str:
    with_parents = sum(1 for row in inputs if row["parents"])
    links = sum(len(row["parents"]) for row in inputs)
    return (
        f"ingest: {len(inputs):,} items, batches of {args.batch:,}, one client, sequential\n"
        f"  rows: {with_parents:,} items with parents ({links:,} links), content object, "
        "meta with 2-3 keys; memexd also writes one event per item"
    )


async def _server_paths(
    args: argparse.Namespace, inputs: list[dict[str, Any]]
) -> tuple[list[Figure], list[Figure | str], list[str]]:
    checks = []
    with memexd_server() as server:
        graphql = _graphql(server, inputs, args.batch)
        checks.append(_held("createItems", await _count(server), len(inputs)))
        raw = await _raw(server, inputs, args.batch)
    with memexd_server() as server:
        ndjson = _ndjson(server, inputs, args.batch, args.lines)
        if isinstance(ndjson, Figure):
            checks.append(_held("POST /items", await _count(server), len(inputs)))
    return raw, [graphql, ndjson], checks


def _held(path: str, counts: tuple[int, int], expected: int) -> str:
    ok = counts == (expected, expected)
    verdict = "OK" if ok else f"MISMATCH, expected {expected:,} of each"
    return f"  {path}: {counts[0]:,} items, {counts[1]:,} events: {verdict}"


def main() -> None:
    args = _args()
    inputs = item_inputs(args.items, random.Random(args.seed))
    print(_workload(args, inputs), flush=True)
    raw, served, checks = asyncio.run(_server_paths(args, inputs))
    imported = _import(inputs, args.batch)
    for figure in raw:
        print(figure.line())
    for figure in [*served, *imported]:
        print(figure.line(raw[0]) if isinstance(figure, Figure) else f"  {figure}")
    print("\n".join(checks))


if __name__ == "__main__":
    main()
