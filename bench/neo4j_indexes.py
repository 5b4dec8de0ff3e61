"""What memexd's indexes on items cost Neo4j: ingest time, and each one's store.

Run: ``.venv/bin/python bench/neo4j_indexes.py [--items 20000] [--rounds 5]``

One Neo4j from ``tools/neo4j`` with memexd's schema (its migrations). Items
shaped as ``bench/scale.py`` loads them are written by raw batched Cypher
(``UNWIND $rows AS r CREATE (n:Item) SET n = r``, 1,000 a query, the
properties memexd stores, the scope root too). Ingest time is measured with
only the unique constraint on the id and with every index, alternately,
``--rounds`` times: the medians and their difference, what the indexes cost
a write. (One index at a time moved less than the noise between runs: ±30
µs an item.) Then a second, fresh Neo4j takes the items once, stops (which
writes every page), and each index's files are weighed: bytes per item of
store, which the page cache holds to serve it from memory (an index on a
property these items lack, such as a retracted item's, weighs nothing).
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
from _targets import RAW_CREATE, du, memexd_schema

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
    parser.add_argument("--rounds", type=int, default=5)
    return parser.parse_args()


async def _ingest_us(
    driver: neo4j.AsyncDriver, rows: list[dict[str, Any]], *, keep: bool = False
) -> float:
    """Microseconds per item to write ``rows``, then (unless ``keep``) delete them again."""
    start = time.perf_counter()
    for k in range(0, len(rows), 1_000):
        await driver.execute_query(RAW_CREATE, {"rows": rows[k : k + 1_000]})
    per_item = (time.perf_counter() - start) / len(rows) * 1e6
    if not keep:
        await _wipe(driver)
    return per_item


async def _wipe(driver: neo4j.AsyncDriver) -> None:
    while (await driver.execute_query(WIPE)).records[0]["gone"]:
        pass


async def timed(server: Neo4jServer, rows: list[dict[str, Any]], rounds: int) -> None:
    store = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
    await memexd_schema(store)
    auth = (server.user, server.password)
    async with neo4j.AsyncGraphDatabase.driver(server.uri, auth=auth) as driver:
        shown = (await driver.execute_query(SHOW)).records
        await _ingest_us(driver, rows)  # the JIT warms up
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(rounds):
            for indexed in (False, True):
                for record in shown:
                    if indexed:
                        on = ", ".join(f"n.`{p}`" for p in record["properties"])
                        await store.execute_ddl(
                            f"CREATE INDEX `{record['name']}` IF NOT EXISTS FOR (n:Item) ON ({on})"
                        )
                    else:
                        await driver.execute_query(f"DROP INDEX `{record['name']}` IF EXISTS")
                times[indexed].append(await _ingest_us(driver, rows))
    await store.close()
    bare, full = statistics.median(times[False]), statistics.median(times[True])
    print(
        f"ingest, µs per item (median of {rounds}): only the id's constraint {bare:.1f}, "
        f"every index {full:.1f}: the {len(shown)} indexes add {full - bare:.1f}"
    )


async def _load(server: Neo4jServer, rows: list[dict[str, Any]]) -> list[Any]:
    """memexd's schema and the items, once; the indexes as shown."""
    store = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
    await memexd_schema(store)
    await store.close()
    auth = (server.user, server.password)
    async with neo4j.AsyncGraphDatabase.driver(server.uri, auth=auth) as driver:
        await _ingest_us(driver, rows, keep=True)
        return list((await driver.execute_query(SHOW)).records)


def weighed(server: Neo4jServer, rows: list[dict[str, Any]]) -> None:
    server.start()
    try:
        shown = asyncio.run(_load(server, rows))
    finally:
        server.stop()  # a clean stop writes every page
    print(f"\nstore of each index, bytes per item ({len(rows):,} items)")
    for record in sorted(shown, key=lambda r: -du(_folder(server, r["id"]))):
        size = du(_folder(server, record["id"])) / len(rows)
        print(f"  {record['name']:<28} {', '.join(record['properties']):<32} {size:8.1f}")


def _folder(server: Neo4jServer, index_id: int) -> Path:
    return server.data / RANGE_FILES / str(index_id)


def main() -> None:
    args = _args()
    shapes = Shapes(random.Random(3), int(time.time() * 1000))
    rows = [stored_props(item) for item in shapes.items(args.items)]
    with tempfile.TemporaryDirectory(prefix="mxi-") as root:
        server = Neo4jServer(Path(root) / "timed", heap_mb=2048, pagecache_mb=1024)
        server.start()
        try:
            asyncio.run(timed(server, rows, args.rounds))
        finally:
            server.stop()
        weighed(Neo4jServer(Path(root) / "weighed", heap_mb=2048, pagecache_mb=1024), rows)


if __name__ == "__main__":
    main()
