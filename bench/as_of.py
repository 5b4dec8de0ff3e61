"""Memory as of an instant: itemAsOf and itemsAsOf latency over HTTP.

Run: ``.venv/bin/python bench/as_of.py [--items N] [--updates U] [--reads R]``

A fresh ``memexd serve`` (FalkorDB, embedding off) gets ``--items`` items
through ``POST /items`` (ten scopes), then ``--updates`` rounds, each an
instant noted and every item's authority changed once (``bulkAdjustScores``
over 1,000 ids a call): each item has a memory.created and ``U``
memory.updated events. Then ``--reads`` point reads ``itemAsOf`` of random
items at random noted instants, and ``itemsAsOf`` with a filter (one scope,
authority at least 0.1, 100 items) at each noted instant, one after another
on a keep-alive connection. Prints p50, p99 and mean, and for ``itemsAsOf``
how many items changed since each instant.

``--keep DIR`` keeps the engine's data in ``DIR`` (short path: its socket
lives there) with the ids and instants; run again with the same ``DIR`` to
measure that load again without loading it (a million items with ten
updates each takes about 50 minutes to load here, 3 to start on again). The
engine may rewrite its append-only file in the background after a start,
which slows what is measured meanwhile: compact it first (``BGREWRITEAOF``
on an engine running on ``DIR`` alone).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from _common import (
    GRAPH_NAME,
    Latencies,
    batches,
    graphql,
    item_inputs,
    keep_alive,
    memexd_server,
    post_graphql,
    post_items,
)

ADJUST = """mutation($ids: [ID!]!) { bulkAdjustScores(filter: {ids: $ids},
  delta: {authority: -0.01}, author: "bench") { events { id } } }"""
ITEM_AS_OF = "query($id: ID!, $at: DateTime!) { itemAsOf(id: $id, asOf: $at) { id authority } }"
ITEMS_AS_OF = """query($at: DateTime!, $scope: String!) { itemsAsOf(asOf: $at,
  filter: {scope: $scope, range: {authority: {min: 0.1}}}, limit: 100) { id } }"""
SCOPES = [f"bench/s{i}" for i in range(10)]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--reads", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None)
    return parser.parse_args()


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


def _load(client: httpx.Client, args: argparse.Namespace,
          rng: random.Random) -> tuple[list[str], list[int]]:  # fmt: skip
    inputs: list[dict[str, Any]] = []
    for row in item_inputs(args.items, rng):
        inputs.append({**row, "scope": rng.choice(SCOPES), "parents": [], "authority": 0.9})
    started = time.perf_counter()
    post_items(client, inputs)
    print(f"{args.items:,} items stored in {time.perf_counter() - started:.1f} s")
    ids, instants = [row["id"] for row in inputs], []
    for round_ in range(args.updates):
        time.sleep(0.005)
        instants.append(time.time_ns() // 1_000_000)
        time.sleep(0.005)
        started = time.perf_counter()
        for chunk in batches(ids, 1_000):
            graphql(client, ADJUST, {"ids": list(chunk)})
        print(f"round {round_ + 1}: {args.items:,} updates in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    return ids, [*instants, time.time_ns() // 1_000_000]


def main() -> None:
    args = _args()
    rng = random.Random(args.seed)
    with (
        memexd_server(GRAPH_NAME, keep=args.keep, MEMEXD_EMBEDDING="off") as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        ids, instants = _kept_or_loaded(client, args, rng)
        conn = keep_alive(server)
        points = []
        for _ in range(args.reads):
            variables = {"id": rng.choice(ids), "at": _iso(rng.choice(instants))}
            started = time.perf_counter()
            post_graphql(conn, ITEM_AS_OF, variables)
            points.append((time.perf_counter() - started) * 1000)
        _report(Latencies("itemAsOf (random item, random instant)", points))
        for n, at in enumerate(instants):
            _listing(conn, at, n, len(instants), args, rng)


def _kept_or_loaded(client: httpx.Client, args: argparse.Namespace,
                    rng: random.Random) -> tuple[list[str], list[int]]:  # fmt: skip
    saved = None if args.keep is None else args.keep / "as_of.json"
    if saved is not None and saved.exists():
        kept = json.loads(saved.read_text())
        args.items = len(kept["ids"])
        print(f"{args.items:,} items kept in {args.keep}")
        return kept["ids"], kept["instants"]
    ids, instants = _load(client, args, rng)
    if saved is not None:
        saved.write_text(json.dumps({"ids": ids, "instants": instants}))
    return ids, instants


def _listing(conn: Any, at: int, n: int, count: int, args: argparse.Namespace,
             rng: random.Random) -> None:  # fmt: skip
    # every round changes every item: all of them changed since any instant but the last
    changed = args.items if n < count - 1 else 0
    times, refused = [], 0
    for _ in range(20):
        variables = {"at": _iso(at), "scope": rng.choice(SCOPES)}
        started = time.perf_counter()
        try:
            post_graphql(conn, ITEMS_AS_OF, variables)
        except RuntimeError as exc:
            if "RESOURCE_EXHAUSTED" not in str(exc):
                raise
            refused += 1
            continue
        times.append((time.perf_counter() - started) * 1000)
    label = f"itemsAsOf, instant {n + 1} of {count} ({changed:,} items changed since)"
    if times:
        _report(Latencies(label, times))
    if refused:
        print(f"{label}: RESOURCE_EXHAUSTED {refused} of 20")


def _report(lat: Latencies) -> None:
    print(f"{lat.label}: p50 {lat.p50:.2f} ms, p99 {lat.pct(99):.2f} ms, "
          f"mean {lat.mean:.2f} ms ({len(lat.ms)} requests)")  # fmt: skip


if __name__ == "__main__":
    main()
