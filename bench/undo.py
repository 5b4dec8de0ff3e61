"""Undo by trace: a whole ingest taken back in one call.

Run: ``.venv/bin/python bench/undo.py [--items N] [--background M]``

A fresh ``memexd serve`` (FalkorDB, embedding off) gets ``--background``
items of other commands, then one ingest of ``--items`` items through a
single ``POST /items`` with its own ``x-trace-id``. The script times
``undoTrace`` as a dry run (the plan: what the trace did, the conflict
check, the retraction plan), then for real (one write), and checks that
every ingested item is retracted and none of the others. The undo's write is
one statement, so the engine's query timeout bounds it (``--timeout-ms``;
memexd's default, 10 s, unless given).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import httpx
from _common import GRAPH_NAME, batches, graphql, item_inputs, memexd_server

UNDO = """mutation($t: ID!, $dry: Boolean) { undoTrace(traceId: $t, author: "bench",
  dryRun: $dry) { retractedItemIds conflicts } }"""
LIVE = "query($ids: [ID!]) { items(filter: {ids: $ids}, limit: 1000) { id } }"


def _post(client: httpx.Client, rows: list[dict[str, object]], trace: str) -> float:
    body = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    started = time.perf_counter()
    answer = client.post("/items", content=body, headers={
        "content-type": "application/x-ndjson", "x-trace-id": trace})  # fmt: skip
    answer.raise_for_status()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--background", type=int, default=20_000)
    parser.add_argument("--timeout-ms", type=int,
                        help="MEMEXD_QUERY_TIMEOUT_MS (the server's: 10,000)")  # fmt: skip
    args = parser.parse_args()
    timeout = {} if args.timeout_ms is None else {"MEMEXD_QUERY_TIMEOUT_MS": str(args.timeout_ms)}
    rng = random.Random(7)
    others = [{**r, "parents": []} for r in item_inputs(args.background, rng)]
    ingest = [{**r, "parents": []} for r in item_inputs(args.items, rng)]
    with (
        memexd_server(
            GRAPH_NAME,
            MEMEXD_EMBEDDING="off",
            MEMEXD_MAX_INGEST_BYTES=str(1 << 30),
            **timeout,
        ) as server,  # fmt: skip
        httpx.Client(base_url=server.base_url, timeout=3600) as client,
    ):
        for chunk in batches(others, 20_000):
            _post(client, list(chunk), f"other-{rng.random()}")
        took = _post(client, ingest, "the-ingest")
        print(f"ingest: {args.items:,} items in one POST /items in {took:.1f} s "
              f"(beside {args.background:,} others)")  # fmt: skip
        for dry in (True, False):
            started = time.perf_counter()
            report = graphql(client, UNDO, {"t": "the-ingest", "dry": dry})["undoTrace"]
            took = time.perf_counter() - started
            print(f"undoTrace {'dry run' if dry else 'write'}: "
                  f"{len(report['retractedItemIds']):,} items in {took:.1f} s, "
                  f"{len(report['conflicts'])} conflicts")  # fmt: skip
        left = sum(len(graphql(client, LIVE, {"ids": [r["id"] for r in chunk]})["items"])
                   for chunk in batches(ingest, 1_000))  # fmt: skip
        kept = sum(len(graphql(client, LIVE, {"ids": [r["id"] for r in chunk]})["items"])
                   for chunk in batches(others, 1_000))  # fmt: skip
        print(f"after: {left:,} of the ingest live (0 expected), {kept:,} of "
              f"{args.background:,} others live")  # fmt: skip


if __name__ == "__main__":
    main()
