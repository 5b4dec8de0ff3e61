"""What a graph per tenant would cost one FalkorDB node (docs/scale-out.md):
``--graphs`` graphs, each with memexd's whole schema (migrations, full-text
and vector indexes) and ``--items`` items, against the same items in one
graph.

Run: ``.venv/bin/python bench/tenant_graphs.py [--graphs 1000 --items 100]``

Prints the engine's memory for the empty schemas (per graph), for the items
(per item, both ways), the time to set up one graph's schema, and point
reads by id (p50/p99, sequential, one connection): in one graph holding
every item, and spread over the tenant graphs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from _targets import memexd_schema

from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore

CREATE = "UNWIND $rows AS row CREATE (n:Item) SET n = row"
READ = "MATCH (n:Item {id: $id}) RETURN n.id AS id, n.scope AS scope, n.content AS content"


def _rows(tenant: int, count: int) -> list[dict[str, Any]]:
    now = int(time.time() * 1000)
    return [{"id": str(uuid.uuid4()), "scope": f"t{tenant}/notes/", "kind": "note",
             "content": f'{{"text": "note {n} of tenant {tenant}"}}', "author": "agent",
             "source_kind": "observation", "authority": 0.5, "conviction": 0.5,
             "importance": 0.5, "created_at": now + n, "scope_root": f"t{tenant}/",
             "lifecycle": "active", "seq": n} for n in range(count)]  # fmt: skip


async def _used(socket: str) -> int:
    client = aioredis.Redis(unix_socket_path=socket)
    try:
        await asyncio.sleep(0.5)  # freed room is given back in the background
        return int((await client.info("memory"))["used_memory"])
    finally:
        await client.aclose()


async def _reads(stores: list[FalkorStore], ids: list[list[str]], count: int) -> list[float]:
    took = []
    for _ in range(count):
        k = random.randrange(len(stores))
        started = time.perf_counter()
        await stores[k].read(READ, {"id": random.choice(ids[k])})
        took.append((time.perf_counter() - started) * 1000)
    return took


def _cuts(took: list[float]) -> str:
    q = statistics.quantiles(took, n=100)
    return f"p50 {q[49]:.3f} ms, p99 {q[98]:.3f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=1000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--reads", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mxt-", dir="/tmp") as scratch:
        engine = EmbeddedFalkor(Path(scratch), fsync="everysec")
        socket = await engine.start()
        try:
            base = FalkorStore.connect(unix_socket=socket, graph="one")
            start = await _used(socket)
            await memexd_schema(base)
            one_schema = await _used(socket) - start
            ids_one: list[str] = []
            for tenant in range(args.graphs):
                rows = _rows(tenant, args.items)
                ids_one += [r["id"] for r in rows]
                await base.write(CREATE, {"rows": rows})
            one_total = await _used(socket) - start
            tenants = [base.with_graph(f"tenant{n}") for n in range(args.graphs)]
            before, started = await _used(socket), time.perf_counter()
            for store in tenants:
                await memexd_schema(store)
            setup = (time.perf_counter() - started) / args.graphs
            schemas = await _used(socket) - before
            ids: list[list[str]] = []
            for n, store in enumerate(tenants):
                rows = _rows(n, args.items)
                ids.append([r["id"] for r in rows])
                await store.write(CREATE, {"rows": rows})
            tenant_total = await _used(socket) - before
            items = args.graphs * args.items
            print(f"{args.graphs} graphs x {args.items} items ({items} items)")
            print(f"  an empty graph with memexd's schema: {schemas / args.graphs / 1024:.1f} KB "
                  f"(one graph's alone: {one_schema / 1024:.1f} KB); "
                  f"set up in {setup * 1000:.0f} ms")  # fmt: skip
            print(f"  per item, one graph: {(one_total - one_schema) / items:.0f} B; "
                  f"a graph per tenant: {(tenant_total - schemas) / items:.0f} B")  # fmt: skip
            print(f"  total, one graph: {one_total / 2**20:.1f} MiB; "
                  f"a graph per tenant: {tenant_total / 2**20:.1f} MiB")  # fmt: skip
            one = await _reads([base], [ids_one], args.reads)
            spread = await _reads(tenants, ids, args.reads)
            print(f"  point reads, one graph: {_cuts(one)}")
            print(f"  point reads spread over {args.graphs} graphs: {_cuts(spread)}")
            await base.close()
        finally:
            await engine.stop()


if __name__ == "__main__":
    asyncio.run(main())
