"""The engine under a benchmark: a running ``memexd serve`` on it, and the
engine-side figures a run compares memexd with (raw ingest, raw point reads,
the engine's own time for memexd's queries, memory and disk).

``falkordb_target``: memexd's embedded FalkorDB; the raw side talks to the
same engine over its socket (a scratch graph for the raw ingest).
``neo4j_target``: a Neo4j 5.26 from ``tools/neo4j`` (the tests' launcher),
memexd on it over Bolt; the raw side is the official driver, and the raw
ingest goes to a second Neo4j with memexd's schema (Community has one
database per server).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import neo4j
from _common import (
    GRAPH_NAME,
    MemexdServer,
    batches,
    memexd_server,
    raw_client,
    raw_query,
    stored_props,
)

from memexd.graph import Graph
from memexd.graph.embedded import compact_aof
from memexd.graph.falkordb import FalkorStore
from memexd.graph.falkordb_wire import encode_params
from memexd.graph.migrations import migrate
from memexd.graph.neo4j import Neo4jStore
from memexd.memory.filters import MemoryFilter
from memexd.memory.model import SortKey
from memexd.memory.reads import ItemReads
from memexd.memory.validation import Limits
from memexd.recall import ensure_indexes
from memexd.settings import Settings
from memexd.types import GraphStore, Params, Row

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.neo4j_server import Neo4jServer, operators

__all__ = [
    "RAW_CREATE",
    "RAW_ITEM",
    "Target",
    "du",
    "engine_server",
    "falkordb_target",
    "neo4j_target",
]

RAW_CREATE = "UNWIND $rows AS r CREATE (n:Item) SET n = r"
RAW_ITEM = (
    "MATCH (n:Item {id: $id}) RETURN n.id, n.scope, n.kind, n.content, n.authority, n.created_at"
)
#: Items per raw batch, as memexd's requests.
BATCH = 1_000


class Target(Protocol):
    name: str
    server: MemexdServer

    def raw_ingest(self, rows: list[dict[str, Any]]) -> float:
        """Seconds to write ``rows`` by raw batched Cypher, with memexd's schema."""
        ...

    def memory(self) -> int:
        """Bytes the engine holds now."""
        ...

    def disk(self) -> int:
        """Bytes the engine keeps on disk now."""
        ...

    def detail(self) -> str:
        """The engine's own account of its memory, for the record."""
        ...

    def quiet(self) -> str:
        """Settle the engine after the bulk load, before timed reads."""
        ...

    def engine_side(self, flt: MemoryFilter, sort: SortKey) -> tuple[float, bool, str]:
        """The engine's own time (ms, median of 5) for the queries memexd sends
        for a sorted top-10, whether each plan seeks an index, and a plan."""
        ...

    def raw_reads(self, ids: list[str]) -> list[float]:
        """Seconds per raw point read of each id, one after the other."""
        ...

    def ids(self, count: int) -> list[str]:
        """Up to ``count`` ids of items memexd holds."""
        ...


class Recording:
    """A store that runs reads on the real engine and keeps their text."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.sent: list[tuple[str, Params]] = []

    async def read(self, text: str, params: Params) -> list[Row]:
        self.sent.append((text, params))
        return await self.inner.read(text, params)

    async def write(self, text: str, params: Params) -> list[Row]:
        raise RuntimeError("read-only")


async def _record(store: GraphStore, flt: MemoryFilter, sort: SortKey) -> list[tuple[str, Params]]:
    recording = Recording(store)
    try:
        await ItemReads(Graph(recording), Limits.of(Settings())).find(flt, [sort], limit=10)  # type: ignore[arg-type]
    finally:
        await store.close()
    return recording.sent


async def memexd_schema(store: GraphStore) -> None:
    """What ``memexd serve`` sets up on a graph: its migrations, then the
    full-text index as MEMEXD_TEXT_SEARCH says and the vector index, so the
    raw ingest pays for the same indexes as memexd's."""
    await migrate(Graph(store))
    await ensure_indexes(Graph(store), Settings().text_search)


def du(path: Path) -> int:
    """Bytes of the files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ------------------------------------------------------------------ FalkorDB


class FalkorTarget:
    name = "falkordb"

    def __init__(self, server: MemexdServer) -> None:
        self.server = server

    def raw_ingest(self, rows: list[dict[str, Any]]) -> float:
        return asyncio.run(self._raw_ingest(rows))

    async def _raw_ingest(self, rows: list[dict[str, Any]]) -> float:
        store = FalkorStore.connect(unix_socket=self.server.socket, graph="scale_raw")
        try:
            await memexd_schema(store)
            texts = [encode_params({"rows": [stored_props(r) for r in c]}) + RAW_CREATE
                     for c in batches(rows, BATCH)]  # fmt: skip
            async with raw_client(self.server) as db:
                graph = db.select_graph("scale_raw")
                start = time.perf_counter()
                for text in texts:
                    await graph.query(text)
                return time.perf_counter() - start
        finally:
            await store.drop()
            await store.close()

    def memory(self) -> int:
        return int(asyncio.run(self._info("memory"))["used_memory"])

    def disk(self) -> int:
        return du(self.server.data_dir) - du(self.server.data_dir / "memexd.log")

    def detail(self) -> str:
        async def usage() -> Any:
            async with raw_client(self.server) as db:
                return await db.connection.execute_command("GRAPH.MEMORY", "USAGE", GRAPH_NAME)

        return f"GRAPH.MEMORY USAGE (MB): {asyncio.run(usage())}"

    def quiet(self) -> str:
        """Compact the append-only file (an automatic rewrite forks the engine
        and serializes the whole graph: a walk beside one took 0.2 s longer)."""
        start = time.perf_counter()
        asyncio.run(compact_aof(self.server.socket, timeout=600))
        rewrites = asyncio.run(self._info("persistence")).get("aof_rewrites", 0)
        return (f"append-only file compacted in {time.perf_counter() - start:.1f} s "
                f"({rewrites} rewrites so far)")  # fmt: skip

    async def _info(self, section: str) -> dict[str, Any]:
        async with raw_client(self.server) as db:
            info: dict[str, Any] = await db.connection.info(section)
            return info

    def engine_side(self, flt: MemoryFilter, sort: SortKey) -> tuple[float, bool, str]:
        return asyncio.run(self._engine_side(flt, sort))

    async def _engine_side(self, flt: MemoryFilter, sort: SortKey) -> tuple[float, bool, str]:
        store = FalkorStore.connect(unix_socket=self.server.socket, graph=GRAPH_NAME)
        sent = await _record(store, flt, sort)
        async with raw_client(self.server) as db:
            graph = db.select_graph(GRAPH_NAME)
            plans = [str(await graph.explain(encode_params(p) + t)) for t, p in sent]
            runs = []
            for _ in range(5):
                total = 0.0
                for text, params in sent:
                    total += (await graph.ro_query(encode_params(params) + text)).run_time_ms
                runs.append(total)
        plan = " <- ".join(line.strip() for line in plans[0].splitlines()[::-1])
        return statistics.median(runs), all("Index Scan" in p for p in plans), plan

    def raw_reads(self, ids: list[str]) -> list[float]:
        async def run() -> list[float]:
            times = []
            async with raw_client(self.server) as db:
                graph = db.select_graph(GRAPH_NAME)
                for item_id in ids:
                    start = time.perf_counter()
                    await raw_query(graph, RAW_ITEM, {"id": item_id}, read_only=True)
                    times.append(time.perf_counter() - start)
            return times

        return asyncio.run(run())

    def ids(self, count: int) -> list[str]:
        async def run() -> list[str]:
            async with raw_client(self.server) as db:
                graph = db.select_graph(GRAPH_NAME)
                rows = await raw_query(graph, _SOME_IDS, {"n": count}, read_only=True)
            return [r[0] for r in rows]

        return asyncio.run(run())


_SOME_IDS = "MATCH (n:Item) WHERE n.scope STARTS WITH 'tenant:t0' RETURN n.id LIMIT $n"


@contextmanager
def falkordb_target(**settings: str) -> Iterator[FalkorTarget]:
    with memexd_server(**settings) as server:
        yield FalkorTarget(server)


# ------------------------------------------------------------------ Neo4j


class Neo4jTarget:
    name = "neo4j"

    def __init__(self, server: MemexdServer, neo: Neo4jServer, raw: Neo4jServer) -> None:
        self.server = server
        self.neo = neo
        self.raw = raw

    def _driver(self, server: Neo4jServer) -> neo4j.AsyncDriver:
        return neo4j.AsyncGraphDatabase.driver(server.uri, auth=(server.user, server.password),
                                               notifications_min_severity="OFF")  # fmt: skip

    def raw_ingest(self, rows: list[dict[str, Any]]) -> float:
        return asyncio.run(self._raw_ingest(rows))

    async def _raw_ingest(self, rows: list[dict[str, Any]]) -> float:
        store = Neo4jStore.connect(self.raw.uri, user=self.raw.user, password=self.raw.password)
        try:
            await memexd_schema(store)
        finally:
            await store.close()
        payload = [[stored_props(r) for r in c] for c in batches(rows, BATCH)]
        async with self._driver(self.raw) as driver, driver.session() as session:
            start = time.perf_counter()
            for chunk in payload:
                await (await session.run("CYPHER 5 " + RAW_CREATE, rows=chunk)).consume()
            spent = time.perf_counter() - start
            # emptied for the next round, outside the clock
            await (await session.run("MATCH (n:Item) CALL (n) { DETACH DELETE n } "
                                     "IN TRANSACTIONS OF 10000 ROWS")).consume()  # fmt: skip
        return spent

    def memory(self) -> int:
        """The store files once checkpointed: what the page cache holds to
        serve the whole graph from memory (the heap is a fixed setting)."""
        self._checkpointed()
        return du(self.neo.data / "data" / "databases" / "neo4j")

    def disk(self) -> int:
        return du(self.neo.data)

    def _checkpointed(self, timeout: float = 300) -> None:
        """Wait for the next checkpoint to complete (Community has no procedure
        to ask for one; the bench's Neo4j makes one every 20 s)."""
        log = self.neo.data / "logs" / "debug.log"

        def done() -> int:
            return log.read_text(errors="replace").count("checkpoint completed")

        before, deadline = done(), time.monotonic() + timeout
        while done() == before and time.monotonic() < deadline:
            time.sleep(1)

    def detail(self) -> str:
        store = du(self.neo.data / "data" / "databases" / "neo4j")
        logs = du(self.neo.data / "data" / "transactions" / "neo4j")
        return (f"store files {store / 2**20:,.0f} MiB, transaction logs "
                f"{logs / 2**20:,.0f} MiB; JVM heap {self.neo.heap_mb} MiB, "
                f"page cache {self.neo.pagecache_mb} MiB")  # fmt: skip

    def quiet(self) -> str:
        start = time.perf_counter()
        self._checkpointed()
        return f"waited {time.perf_counter() - start:.1f} s for a checkpoint"

    def engine_side(self, flt: MemoryFilter, sort: SortKey) -> tuple[float, bool, str]:
        return asyncio.run(self._engine_side(flt, sort))

    async def _engine_side(self, flt: MemoryFilter, sort: SortKey) -> tuple[float, bool, str]:
        """Time from the engine's own summary of plain runs (PROFILE's
        per-row accounting would inflate it); plans from EXPLAIN."""
        store = Neo4jStore.connect(self.neo.uri, user=self.neo.user, password=self.neo.password)
        sent = await _record(store, flt, sort)
        runs, plans = [], []
        async with self._driver(self.neo) as driver:
            for text, params in sent:
                summary = await self._run(driver, "EXPLAIN " + text, params)
                plans.append(operators(summary.plan))
            for _ in range(5):
                total = 0.0
                for text, params in sent:
                    summary = await self._run(driver, text, params)
                    total += summary.result_available_after or 0
                    total += summary.result_consumed_after or 0
                runs.append(total)
        seeks = all(any(op.startswith("NodeIndex") for op in ops) for ops in plans)
        scans = any({"NodeByLabelScan", "AllNodesScan"} & set(ops) for ops in plans)
        return statistics.median(runs), seeks and not scans, " <- ".join(plans[0][::-1])

    @staticmethod
    async def _run(driver: neo4j.AsyncDriver, text: str, params: Params) -> Any:
        async with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            return await (await session.run("CYPHER 5 " + text, dict(params))).consume()

    def raw_reads(self, ids: list[str]) -> list[float]:
        async def run() -> list[float]:
            times = []
            async with self._driver(self.neo) as driver:
                for item_id in ids:
                    start = time.perf_counter()
                    async with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
                        await (await session.run("CYPHER 5 " + RAW_ITEM, id=item_id)).data()
                    times.append(time.perf_counter() - start)
            return times

        return asyncio.run(run())

    def ids(self, count: int) -> list[str]:
        async def run() -> list[str]:
            async with self._driver(self.neo) as driver, driver.session() as session:
                rows = await (await session.run("CYPHER 5 " + _SOME_IDS, n=count)).data()
            return [r["n.id"] for r in rows]

        return asyncio.run(run())


@contextmanager
def neo4j_target(root: Path, **settings: str) -> Iterator[Neo4jTarget]:
    """Neo4j sized for 1M items on 24 GiB (heap 4 GiB, page cache 4 GiB),
    a smaller one for the raw ingest, and memexd on the first."""
    neo = Neo4jServer(
        root / "neo4j",
        heap_mb=4096,
        pagecache_mb=4096,
        tx_memory_mb=2048,
        settings=("db.checkpoint.interval.time=20s",),
    )
    raw = Neo4jServer(root / "raw", heap_mb=2048, pagecache_mb=1024)
    neo.start()
    try:
        raw.start()
        env = {**neo.env(), **settings}
        with memexd_server(**env) as server:
            yield Neo4jTarget(server, neo, raw)
    finally:
        raw.stop()
        neo.stop()


@contextmanager
def engine_server(engine: str, root: Path, env: dict[str, str]
                  ) -> Iterator[tuple[MemexdServer, Neo4jServer | None]]:  # fmt: skip
    """A ``memexd serve`` with ``env`` on its embedded FalkorDB, or on a
    Neo4j of its own under ``root`` (heap 2 GiB, page cache 1 GiB)."""
    if engine == "falkordb":
        with memexd_server(**env) as server:
            yield server, None
        return
    neo = Neo4jServer(root / "neo4j", heap_mb=2048, pagecache_mb=1024)
    neo.start()
    try:
        with memexd_server(**{**neo.env(), **env}) as server:
            yield server, neo
    finally:
        neo.stop()
