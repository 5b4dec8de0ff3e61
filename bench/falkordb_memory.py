"""What each part of an item costs FalkorDB's memory: its indexes, the
full-text index, its properties.

Run: ``.venv/bin/python bench/falkordb_memory.py [--items 200000]``

One ``memexd serve`` on its embedded FalkorDB (embedding off: vectors are
another figure) loads ``--items`` items shaped as ``bench/scale.py`` loads
them, through ``POST /items``. Then the engine's memory (``used_memory``) is
read as each part is taken away, one after the other: each index on items
dropped (the unique constraint on the id stays), the full-text index dropped,
then each property memexd stores beside the item's own fields removed. What
each step frees is what that part costs per item. Memory is counted, not
timed: the figures repeat.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

import httpx
from _common import GRAPH_NAME, MemexdServer, memexd_server, raw_client
from _shapes import Shapes, post_ndjson

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


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    return parser.parse_args()


async def _memory(server: MemexdServer) -> int:
    async with raw_client(server) as db:
        info: dict[str, Any] = await db.connection.info("memory")
        return int(info["used_memory"])


async def _query(server: MemexdServer, text: str) -> None:
    async with raw_client(server) as db:
        await db.select_graph(GRAPH_NAME).query(text)


async def breakdown(server: MemexdServer, items: int) -> None:
    start = await _memory(server)
    print(f"{'memory per item, everything':<44} {start / items:8.0f} B")
    last = start
    steps: list[tuple[str, str]] = [
        (f"index on {p}", f"DROP INDEX FOR (n:Item) ON (n.`{p}`)") for p in INDEXED
    ]
    steps.append(("full-text index on content", "CALL db.idx.fulltext.drop('Item')"))
    steps += [(f"property {p}", f"MATCH (n:Item) SET n.`{p}` = NULL") for p in ADDED]
    for label, text in steps:
        try:
            await _query(server, text)
        except Exception as exc:  # an index the schema does not have: say so
            print(f"{label:<44} {'-':>8}   ({str(exc)[:60]})")
            continue
        now = await _memory(server)
        print(f"{label:<44} {(last - now) / items:8.0f} B")
        last = now
    print(f"{'what is left per item':<44} {last / items:8.0f} B")


def main() -> None:
    args = _args()
    shapes = Shapes(random.Random(12), int(time.time() * 1000))
    with (
        memexd_server(MEMEXD_EMBEDDING="off") as server,
        httpx.Client(base_url=server.base_url, timeout=3600) as client,
    ):
        done = 0
        while done < args.items:
            count = min(50_000, args.items - done)
            post_ndjson(client, shapes.items(count))
            done += count
        asyncio.run(breakdown(server, args.items))


if __name__ == "__main__":
    main()
