"""What each part of an item costs FalkorDB's memory: its indexes, the
full-text index, the properties memexd stores beside the item's own fields.

Run: ``.venv/bin/python bench/falkordb_memory.py [--items 100000]``

One ``memexd serve`` on its embedded FalkorDB (embedding off: vectors are
another figure) loads ``--items`` items shaped as ``bench/scale.py`` loads
them, through ``POST /items``; the engine's growth per item is the figure
everything is measured against. Then the items' stored property maps are
read back and written again, by raw batched Cypher, into fresh graphs on the
same engine: one with memexd's whole schema, and one for each part taken
away (an index dropped before the load, the full-text index dropped, a
property left out of the rows). What a part costs per item is the first
graph's growth less the second's. Dropping parts from a loaded graph does
not measure them: FalkorDB keeps freed room and rewrites attribute sets.
Memory is counted, not timed: the figures repeat within a few bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

import httpx
from _common import GRAPH_NAME, MemexdServer, batches, memexd_server, raw_client
from _shapes import Shapes, post_ndjson
from _targets import BATCH, RAW_CREATE, memexd_schema

from memexd.graph.falkordb import FalkorStore
from memexd.graph.falkordb_wire import encode_params

#: Indexes on items that migrations create (the id's backs its constraint).
INDEXED = ["scope", "created_at", "authority", "conviction", "importance", "author",
           "intent_id", "task_id", "kind", "source_kind", "meta.agent_id", "meta.session_id",
           "meta.crew_id", "seq", "retracted_seq", "retracted_event", "scope_root",
           "lifecycle", "priority", "tags", "content_key", "decay_stored", "retracted_at",
           "log_trace", "retracted_trace", "id_key"]  # fmt: skip
#: Properties an item keeps beside its own fields (what memexd adds).
ADDED = ["content_key", "log_trace", "logged_at", "id_key", "scope_root", "lifecycle",
         "priority", "tags", "meta.agent_id", "meta.session_id", "meta.crew_id", "meta.env",
         "seq"]  # fmt: skip
_SCRATCH = "memory_parts"
_PAGE = "MATCH (n:Item) WHERE n.id > $after RETURN n.id, properties(n) ORDER BY n.id LIMIT 10000"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    return parser.parse_args()


async def _used(server: MemexdServer) -> int:
    """``used_memory`` once it stops moving (a deleted graph is freed in
    the background)."""
    async with raw_client(server) as db:
        last = -1
        while True:
            info: dict[str, Any] = await db.connection.info("memory")
            now = int(info["used_memory"])
            if abs(now - last) < 64 * 1024:
                return now
            last = now
            await asyncio.sleep(0.5)


async def _stored(server: MemexdServer) -> list[dict[str, Any]]:
    """Every item's property map as memexd stored it, in id order."""
    rows: list[dict[str, Any]] = []
    async with raw_client(server) as db:
        graph = db.select_graph(GRAPH_NAME)
        after = ""
        while page := (await graph.ro_query(encode_params({"after": after}) + _PAGE)).result_set:
            rows += [props for _, props in page]
            after = page[-1][0]
    return rows


async def _grown(server: MemexdServer, rows: list[dict[str, Any]], undo: str | None) -> int:
    """Bytes a fresh graph with memexd's schema, less ``undo``, grows by
    when ``rows`` are written into it."""
    store = FalkorStore.connect(unix_socket=server.socket, graph=_SCRATCH)
    try:
        await memexd_schema(store)
        async with raw_client(server) as db:
            graph = db.select_graph(_SCRATCH)
            if undo:
                await graph.query(undo)
            start = await _used(server)
            for chunk in batches(rows, BATCH):
                await graph.query(encode_params({"rows": list(chunk)}) + RAW_CREATE)
            return await _used(server) - start
    finally:
        await store.drop()
        await store.close()


def _without(rows: list[dict[str, Any]], prop: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != prop} for r in rows]


async def breakdown(server: MemexdServer, grown: int, items: int) -> None:
    print(f"{'memexd: the engine grew, per item (events too)':<48} {grown / items:7.0f} B")
    rows = await _stored(server)
    whole = await _grown(server, rows, None)
    print(f"{'the items alone, whole schema':<48} {whole / len(rows):7.0f} B")
    parts: list[tuple[str, str | None, list[dict[str, Any]]]] = [
        (f"index on {p}", f"DROP INDEX FOR (n:Item) ON (n.`{p}`)", rows) for p in INDEXED
    ]
    parts.append(("full-text index on content", "CALL db.idx.fulltext.drop('Item')", rows))
    parts += [(f"property {p}", None, _without(rows, p)) for p in ADDED]
    for label, undo, variant in parts:
        try:
            less = await _grown(server, variant, undo)
        except Exception as exc:  # a part this schema does not have: say so
            print(f"{label:<48} {'-':>7}   ({str(exc)[:60]})")
            continue
        print(f"{label:<48} {(whole - less) / len(rows):7.0f} B", flush=True)


def main() -> None:
    args = _args()
    shapes = Shapes(random.Random(12), int(time.time() * 1000))
    with (
        memexd_server(MEMEXD_EMBEDDING="off") as server,
        httpx.Client(base_url=server.base_url, timeout=3600) as client,
    ):
        start = asyncio.run(_used(server))
        done = 0
        while done < args.items:
            count = min(50_000, args.items - done)
            post_ndjson(client, shapes.items(count))
            done += count
        grown = asyncio.run(_used(server)) - start
        asyncio.run(breakdown(server, grown, args.items))


if __name__ == "__main__":
    main()
