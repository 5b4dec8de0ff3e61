"""A million items on one machine, on either engine: ingest, memory and disk,
filters, long walks, point reads.

Run: ``.venv/bin/python bench/scale.py [--engine falkordb|neo4j] [--items N]
[--quick] [--json FILE]``; ``bench/engines.py`` runs it on both engines and
prints them side by side.

One ``memexd serve`` on the engine (the embedded FalkorDB, or a Neo4j 5.26
from ``tools/neo4j``: ``bench/_targets.py``), one run, in this order:

1. **Ingest**: ``--sample`` items through ``createItems`` over HTTP (1,000
   per request) and the same items by raw batched Cypher (``UNWIND $rows AS r
   CREATE (n:Item) SET n = r``, the same property maps, 1,000 per query; on
   FalkorDB a scratch graph with memexd's indexes on the same engine, on
   Neo4j a second server with memexd's schema; the full-text index included
   when MEMEXD_TEXT_SEARCH is on, as by default), and another sample through
   the bulk NDJSON endpoint ``POST /items``: two interleaved rounds of the
   three; items/s and ratios.
2. **Build** the rest of ``--items`` through the NDJSON endpoint: items
   shaped like real use (100 tenants x 10 projects; kinds, authors, source
   kinds; meta with the segmentation keys agent_id / session_id / crew_id;
   a third with parents; creation times over 90 days), then edges of every
   kind, a 10,000-long chain and a 10,000-member alias group.
3. **Memory and disk** per item, events included: FalkorDB's
   ``used_memory`` growth; Neo4j's store files once checkpointed (what its
   page cache holds to serve the graph from memory; the heap is a fixed
   setting); disk: everything the engine keeps (FalkorDB's append-only
   file; Neo4j's store and transaction logs). Then the engine is settled
   (FalkorDB: its append-only file compacted; Neo4j: a checkpoint) so no
   background rewrite runs beside the timed sections.
4. **Filters**: six filter shapes, sorted top-10: HTTP time (median), the
   engine's own execution time for the exact queries memexd sends (FalkorDB:
   its run time; Neo4j: ``PROFILE``'s available + consumed time), and whether
   the plans use an index.
5. **Walks** over HTTP: supportSet / dependents on the chain, aliasGroup on
   the group (the median of three warm calls); cascadeRetract from the first
   item of the chain and of two more chains built for it (a cascade retracts
   its chain: each runs once; the verdict is on the median).
6. **Point read**: ``item(id)`` over keep-alive HTTP vs a raw round trip
   (FalkorDB's client; Neo4j's official driver).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from _common import graphql, keep_alive
from _shapes import (
    SHAPES,
    Shapes,
    add_edges,
    alias_group,
    build,
    chain,
    create_items,
    post_ndjson,
)
from _targets import Target, falkordb_target, neo4j_target

ROUNDS = 2
ITEM = "query($id: ID!) { item(id: $id) { id scope kind content authority createdAt } }"
FIND = """query($f: MemoryFilter, $sort: [SortOption!]) {
  items(filter: $f, sort: $sort, limit: 10) { id } }"""
#: Figures of the run, by name (``--json``).
Report = dict[str, Any]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=50_000, help="items per ingest figure")
    parser.add_argument("--edges", type=int, default=20_000)
    parser.add_argument("--walk", type=int, default=10_000, help="chain and alias group size")
    parser.add_argument("--reads", type=int, default=3_000, help="timed point reads per side")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--quick", action="store_true", help="smoke run: 30k items")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        args.items, args.sample, args.edges, args.walk, args.reads = 30_000, 5_000, 500, 500, 300
    # the ingest figures' items count towards --items (two paths of --sample each)
    args.sample = min(args.sample, (args.items - 2 * args.walk) // 2)
    return args


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


# ------------------------------------------------------------------ sections


def ingest(target: Target, client: httpx.Client, shapes: Shapes, sample: int, out: Report) -> int:
    """The three paths in interleaved rounds (raw, createItems, NDJSON), so a
    slow spell of the machine falls on all three: rates from the total times."""
    per = sample // ROUNDS
    print(f"ingest: {per * ROUNDS:,} items per path in {ROUNDS} interleaved rounds, "
          "1,000 per request/query")  # fmt: skip
    spent = [0.0, 0.0, 0.0]
    for _ in range(ROUNDS):
        graphql_rows, ndjson_rows = shapes.items(per), shapes.items(per)
        times = (target.raw_ingest(graphql_rows), create_items(client, graphql_rows),
                 post_ndjson(client, ndjson_rows))  # fmt: skip
        spent = [a + b for a, b in zip(spent, times, strict=True)]
    paths = [("raw", "raw batched Cypher", None), ("create_items", "createItems over HTTP", 0.25),
             ("post_items", "POST /items (NDJSON) over HTTP", 0.5)]  # fmt: skip
    for n, (key, label, target_ratio) in enumerate(paths):
        rate, ratio = per * ROUNDS / spent[n], spent[0] / spent[n]
        out[f"ingest_{key}_per_s"] = round(rate)
        line = f"  {label:<34} {rate:9,.0f} items/s"
        if target_ratio is not None:
            out[f"ingest_{key}_ratio"] = round(ratio, 2)
            line += (
                f"  {ratio:.2f}x raw (target >= {target_ratio}x: {verdict(ratio >= target_ratio)})"
            )
        print(line)
    return 2 * per * ROUNDS


def memory(target: Target, base: tuple[int, int], items: int, edges: int, out: Report) -> None:
    used, disk = target.memory() - base[0], target.disk() - base[1]
    out["memory_per_item"], out["disk_per_item"] = round(used / items), round(disk / items)
    print(f"memory: the engine grew {used / 2**20:,.0f} MiB for {items:,} items with their "
          f"events and {edges:,} edges: {used / items:,.0f} bytes per item; disk "
          f"{disk / 2**20:,.0f} MiB: {disk / items:,.0f} bytes per item")  # fmt: skip
    print(f"  {target.detail()}")


def filters(target: Target, client: httpx.Client, out: Report) -> None:
    print("filters: sorted top-10 (engine: its own execution time; HTTP: whole request)")
    worst = 0.0
    for label, gql_filter, flt, sort in SHAPES:
        gql_sort = [{"field": sort.field.upper(), "order": "DESC" if sort.descending else "ASC"}]
        times = []
        for _ in range(7):
            start = time.perf_counter()
            graphql(client, FIND, {"f": gql_filter, "sort": gql_sort})
            times.append(time.perf_counter() - start)
        engine_ms, indexed, plan = target.engine_side(flt, sort)
        http_ms = statistics.median(times) * 1000
        worst = max(worst, engine_ms)
        out[f"filter {label}"] = {"engine_ms": round(engine_ms, 2), "http_ms": round(http_ms, 2)}
        print(f"  {label:<48} engine {engine_ms:7.2f} ms  HTTP {http_ms:7.2f} ms  "
              f"index {'yes' if indexed else 'NO'}  ({verdict(engine_ms <= 10)})")  # fmt: skip
        print(f"    plan: {plan}")
    out["filter_engine_worst_ms"] = round(worst, 2)


WALKS = [
    ("supportSet(last of chain)", "query($id: ID!) { supportSet(id: $id) { id } }", -1,
     "supportSet", "chain"),
    ("dependents(first, transitive)",
     "query($id: ID!) { dependents(id: $id, transitive: true) { id } }", 0, "dependents", "chain"),
    ("aliasGroup(a member)", "query($id: ID!) { aliasGroup(id: $id) { id } }", None,
     "aliasGroup", "group"),
]  # fmt: skip


def walks(client: httpx.Client, chain_ids: list[str], group: list[str], out: Report) -> None:
    print(f"walks over HTTP (target <= 0.5 s each), chain and alias group of {len(chain_ids):,}")
    for label, query, at, key, where in WALKS:
        ids = chain_ids if where == "chain" else group
        item_id = ids[len(ids) // 2 if at is None else at]
        runs = []  # the first call, then warm calls
        for _ in range(4):
            start = time.perf_counter()
            data = graphql(client, query, {"id": item_id})
            runs.append(time.perf_counter() - start)
        seconds = statistics.median(runs[1:])
        out[f"walk {key}_s"] = round(seconds, 3)
        print(f"  {label:<34} first call {runs[0]:.3f} s, warm median {seconds:6.3f} s  "
              f"({len(data[key]):,} items; {verdict(seconds <= 0.5)})")  # fmt: skip


def cascades(client: httpx.Client, chains: list[list[str]], out: Report) -> None:
    """A cascade from the first item of each chain (each runs once)."""
    query = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "b") { retracted } }'
    runs, sizes = [], set()
    for ids in chains:
        start = time.perf_counter()
        data = graphql(client, query, {"id": ids[0]})
        runs.append(time.perf_counter() - start)
        sizes.add(len(data["cascadeRetract"]["retracted"]))
    seconds = statistics.median(runs)
    out["walk cascade_s"] = round(seconds, 3)
    each = " / ".join(f"{r:.3f}" for r in runs)
    print(f"  {'cascadeRetract(first of chain)':<34} {len(chains)} chains: {each} s, median "
          f"{seconds:.3f} s  ({', '.join(f'{n:,}' for n in sorted(sizes))} items; "
          f"{verdict(seconds <= 0.5)})")  # fmt: skip


def point_reads(target: Target, ids: list[str], samples: int, rng: random.Random,
                out: Report) -> None:  # fmt: skip
    picks = [rng.choice(ids) for _ in range(samples)]
    conn = keep_alive(target.server)
    http_times = [_http_read(conn, item_id) for item_id in picks]
    conn.close()
    raw_times = target.raw_reads(picks)
    h, r = statistics.median(http_times) * 1000, statistics.median(raw_times) * 1000
    out["point_read_http_ms"], out["point_read_raw_ms"] = round(h, 3), round(r, 3)
    out["point_read_ratio"] = round(h / r, 2)
    print(f"point read p50: HTTP {h:.3f} ms, raw {r:.3f} ms: {h / r:.2f}x (target <= 4x: "
          f"{verdict(h <= 4 * r)})")  # fmt: skip


def _http_read(conn: http.client.HTTPConnection, item_id: str) -> float:
    body = json.dumps({"query": ITEM, "variables": {"id": item_id}})
    start = time.perf_counter()
    conn.request("POST", "/graphql", body, {"content-type": "application/json"})
    reply = conn.getresponse().read()
    seconds = time.perf_counter() - start
    if b'"errors"' in reply:
        raise RuntimeError(reply[:300])
    return seconds


# ------------------------------------------------------------------ main


@contextmanager
def target_of(engine: str) -> Iterator[Target]:
    settings = {"MEMEXD_TRAVERSAL_MAX_NODES": "200000", "MEMEXD_LOG_LEVEL": "warning"}
    if engine == "falkordb":
        with falkordb_target(**settings) as falkor:
            yield falkor
        return
    with tempfile.TemporaryDirectory(prefix="mxb-neo4j-") as root, \
            neo4j_target(Path(root), **settings) as neo:  # fmt: skip
        yield neo


def run(args: argparse.Namespace) -> Report:
    rng = random.Random(args.seed)
    now_ms = int(time.time() * 1000)
    shapes = Shapes(rng, now_ms)
    out: Report = {"engine": args.engine, "items": args.items}
    print(f"== {args.engine}, {args.items:,} items")
    with target_of(args.engine) as target, \
            httpx.Client(base_url=target.server.base_url, timeout=3600) as client:  # fmt: skip
        base = (target.memory(), target.disk())
        made = ingest(target, client, shapes, args.sample, out)
        build(client, shapes, max(0, args.items - made - 2 * args.walk))
        sample_ids = rng.sample(found := target.ids(20_000), min(5_000, len(found)))
        add_edges(client, sample_ids, args.edges, rng)
        chain_ids = chain(client, args.walk, now_ms)
        group = alias_group(client, args.walk, now_ms, rng)
        memory(target, base, args.items, args.edges + 2 * args.walk, out)
        # more chains for the cascade (each cascade runs once), before the
        # timed sections: an engine's first queries after a bulk write are slower
        more = [chain(client, args.walk, now_ms - (2 + k) * args.walk) for k in (1, 2)]
        print(f"settled: {target.quiet()}")
        filters(target, client, out)
        walks(client, chain_ids, group, out)
        cascades(client, [chain_ids, *more], out)
        point_reads(target, sample_ids, args.reads, rng, out)
    return out


def main() -> None:
    args = _args()
    out = run(args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
