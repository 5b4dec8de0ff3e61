"""What each of memexd's indexes on items costs Neo4j's ingest.

Run: ``.venv/bin/python bench/neo4j_indexes.py [--items 20000] [--rounds 3]``

One Neo4j from ``tools/neo4j`` with memexd's schema (its migrations). Items
shaped as ``bench/scale.py`` loads them are written by raw batched Cypher
(``UNWIND $rows AS r CREATE (n:Item) SET n = r``, 1,000 a query, the
properties memexd stores, the scope root too), first with only the unique
constraint on the id, then with the item indexes added back one at a time
(in the order the migrations create them). Each step's cost is the time per
item it adds; every round runs the whole sweep again, and the median of the
rounds is printed. Steps that index a property the items do not have (a
retracted item's, a decayed item's) cost nothing by construction: they show
how large the noise is. Last, the items are written once more with every
index and each index's files are weighed (bytes per item of store, which the
page cache holds to serve them from memory).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import neo4j
from _common import stored_props
from _shapes import Shapes
from _targets import RAW_CREATE, checkpointed, memexd_schema

from memexd.graph.neo4j import Neo4jStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.neo4j_server import Neo4jServer

SHOW = ("SHOW INDEXES YIELD id, name, type, labelsOrTypes, properties, owningConstraint "
        "WHERE type = 'RANGE' AND labelsOrTypes = ['Item'] AND owningConstraint IS NULL "
        "RETURN id, name, properties")  # fmt: skip
RANGE_FILES = Path("data/databases/neo4j/schema/index/range-1.0")
WIPE = "MATCH (n:Item) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS gone"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


async def _ingest_us(
    driver: neo4j.AsyncDriver, rows: list[dict[str, Any]], *, keep: bool = False
) -> float:
    """Microseconds per item to write ``rows``, then (unless ``keep``) delete them again."""
    start = time.perf_counter()
    for k in range(0, len(rows), 1_000):
        await driver.execute_query(RAW_CREATE, {"rows": rows[k : k + 1_000]})
    per_item = (time.perf_counter() - start) / len(rows) * 1e6
    while not keep and (await driver.execute_query(WIPE)).records[0]["gone"]:
        pass
    return per_item


async def sweep(server: Neo4jServer, rows: list[dict[str, Any]], rounds: int) -> None:
    store = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
    await memexd_schema(store)
    auth = (server.user, server.password)
    async with neo4j.AsyncGraphDatabase.driver(server.uri, auth=auth) as driver:
        shown = (await driver.execute_query(SHOW)).records
        indexes = [(r["name"], r["properties"]) for r in shown]
        await _ingest_us(driver, rows)  # the JIT warms up
        steps: dict[str, list[float]] = {"constraint only": []}
        for _ in range(rounds):
            for name, _props in indexes:
                await driver.execute_query(f"DROP INDEX `{name}`")
            last = await _ingest_us(driver, rows)
            steps["constraint only"].append(last)
            for name, props in indexes:
                on = ", ".join(f"n.`{p}`" for p in props)
                await store.execute_ddl(f"CREATE INDEX `{name}` FOR (n:Item) ON ({on})")
                now = await _ingest_us(driver, rows)
                steps.setdefault(f"+ {name} ({', '.join(props)})", []).append(now - last)
                last = now
        _report(steps)
        await _ingest_us(driver, rows, keep=True)
        await asyncio.to_thread(checkpointed, server)  # the indexes' pages on disk
        sizes = {r["name"]: _size(server.data / RANGE_FILES / str(r["id"]))
                 for r in (await driver.execute_query(SHOW)).records}  # fmt: skip
    await store.close()
    print(f"\nstore of each index, bytes per item ({len(rows):,} items)")
    for name, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<40} {size / len(rows):8.1f}")


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _report(steps: dict[str, list[float]]) -> None:
    total = statistics.median(steps.pop("constraint only"))
    print(f"{'constraint only (us per item)':<64} {total:8.1f}")
    for step, costs in steps.items():
        print(f"{step:<64} {statistics.median(costs):+8.1f}")
        total += statistics.median(costs)
    print(f"{'every index (sum of the medians)':<64} {total:8.1f}")


def main() -> None:
    args = _args()
    shapes = Shapes(random.Random(3), int(time.time() * 1000))
    rows = []
    for item in shapes.items(args.items):
        props = stored_props(item)
        props["scope_root"] = item["scope"].split("/", 1)[0]
        rows.append(props)
    with tempfile.TemporaryDirectory(prefix="mxi-") as root:
        server = Neo4jServer(Path(root) / "neo4j", heap_mb=2048, pagecache_mb=1024,
                             settings=("db.checkpoint.interval.time=20s",))  # fmt: skip
        server.start()
        try:
            asyncio.run(sweep(server, rows, args.rounds))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
