"""The memory lifecycle at scale: archival, context blocks, access counting,
and the engine memory the lifecycle fields take.

Run: ``.venv/bin/python bench/lifecycle.py [--items 100000] [--contexts 100]
[--access-s 10] [--clients 4]``

A fresh ``memexd serve`` (FalkorDB, embedding off, full-text index on) gets
``--items`` items through ``POST /items`` (the load benches' generator: 16
scopes under four teams). A quarter of them are one tenant's
(``org/acme/core/``); a tenth of the tenant's are stale: ``SESSION`` items
made 200 days ago (decay score 0.001, under the 0.1 threshold), spread over
50 sessions. The script prints:

- the engine memory per item (``used_memory`` before and after the load);
- ``archiveByDecay`` over the tenant: a dry run, then real calls until one
  archives nothing (each archives at most ``MEMEXD_MAX_BATCH``), with the
  wall time, items archived a second, and whether the count is the stale
  count;
- ``context`` p50 / p99 over HTTP for the tenant and a random session,
  newest first and by decay score;
- ``recordAccess`` calls a second from ``--clients`` keep-alive connections
  for ``--access-s`` seconds, 10 random ids a call.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from _common import (
    GRAPH_NAME,
    Latencies,
    item_inputs,
    keep_alive,
    memexd_server,
    post_graphql,
    post_items,
)
from recall_speed import used_memory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.ids import uuid7_at

TENANT = "org/acme/core/"
STALE_DAYS = 200
SESSIONS = 50
DAY = 86_400_000
ARCHIVE = """mutation($dry: Boolean) { archiveByDecay(input: {author: "bench", dryRun: $dry,
  filter: {scopePrefix: "org/acme/core/"}}) { archivedIds skippedIds } }"""
CONTEXT = """query($s: String, $d: Boolean) { context(input: {scopePrefix: "org/acme/core/",
  sessionId: $s, sortByDecay: $d}) { bytes } }"""
RECORD = "mutation($ids: [ID!]!) { recordAccess(ids: $ids) { id } }"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--contexts", type=int, default=100)
    parser.add_argument("--access-s", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    return parser.parse_args()


def inputs(count: int, rng: random.Random) -> tuple[list[dict[str, Any]], int]:
    """The items, and how many are stale in the tenant."""
    rows, stale = item_inputs(count, rng), 0
    old = int(time.time() * 1000) - STALE_DAYS * DAY
    by_id: dict[str, str] = {}
    for row in rows:
        if row["scope"].startswith(TENANT) and rng.random() < 0.1:
            by_id[row["id"]] = uuid7_at(old + stale)
            row.update(id=by_id[row["id"]], lifecycle="SESSION",
                       sessionId=f"s{rng.randrange(SESSIONS)}")  # fmt: skip
            stale += 1
    for row in rows:  # parents named by their new ids
        row["parents"] = [by_id.get(p, p) for p in row["parents"]]
    return rows, stale


def archive(conn: Any, stale: int) -> None:
    started = time.perf_counter()
    dry = post_graphql(conn, ARCHIVE, {"dry": True})["archiveByDecay"]
    print(f"archiveByDecay dry run: {time.perf_counter() - started:.2f} s, would archive "
          f"{len(dry['archivedIds']):,} (at most MEMEXD_MAX_BATCH a call)")  # fmt: skip
    started, archived, calls = time.perf_counter(), 0, 0
    while True:
        got = len(post_graphql(conn, ARCHIVE, {"dry": False})["archiveByDecay"]["archivedIds"])
        calls += 1
        archived += got
        if not got:
            break
    spent = time.perf_counter() - started
    print(f"archiveByDecay: {archived:,} of {stale:,} stale items archived in {calls} calls, "
          f"{spent:.1f} s ({archived / spent:,.0f} items/s)")  # fmt: skip


def contexts(conn: Any, count: int, rng: random.Random) -> None:
    for by_decay in (False, True):
        ms = []
        for _ in range(count):
            started = time.perf_counter()
            post_graphql(conn, CONTEXT, {"s": f"s{rng.randrange(SESSIONS)}", "d": by_decay})
            ms.append((time.perf_counter() - started) * 1000)
        lat = Latencies("context", ms)
        order = "by decay" if by_decay else "newest first"
        print(f"context ({order}): p50 {lat.p50:.1f} ms  p99 {lat.pct(99):.1f} ms")


def access(server: Any, ids: list[str], seconds: float, clients: int) -> None:
    calls = [0] * clients
    stop = time.perf_counter() + seconds

    def client(n: int) -> None:
        conn, rng = keep_alive(server), random.Random(n)
        while time.perf_counter() < stop:
            post_graphql(conn, RECORD, {"ids": rng.sample(ids, 10)})
            calls[n] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = sum(calls)
    print(f"recordAccess: {total / seconds:,.0f} calls/s ({10 * total / seconds:,.0f} "
          f"accesses/s) from {clients} clients, 10 ids a call")  # fmt: skip


def main() -> None:
    args = _args()
    rng = random.Random(7)
    rows, stale = inputs(args.items, rng)
    settings = {"MEMEXD_EMBEDDING": "off", "MEMEXD_TEXT_SEARCH": "true"}
    with (
        memexd_server(GRAPH_NAME, **settings) as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        before = used_memory(server.socket)
        spent = post_items(client, rows)
        print(f"{args.items:,} items in {spent:.1f} s "
              f"({stale:,} stale in {TENANT})")  # fmt: skip
        print(f"engine memory: {(used_memory(server.socket) - before) / args.items:,.0f} B per "
              "item (items, events, full-text index, lifecycle fields)")  # fmt: skip
        conn = keep_alive(server)
        archive(conn, stale)
        contexts(conn, args.contexts, rng)
        access(server, [r["id"] for r in rows[:10_000]], args.access_s, args.clients)


if __name__ == "__main__":
    main()
