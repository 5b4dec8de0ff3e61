"""The cost of reading scores exactly: the item projection (``@item``, scores
through ``shapes/exact``) against the same fields projected plainly (which
FalkorDB prints with 15 digits), on one embedded engine, in one run.

Run: ``.venv/bin/python bench/projection.py [--items 5000] [--samples 15]``

Each figure is the median of ``--samples`` reads of every item, the two
forms interleaved, through memexd's FalkorDB store (its reply parser
included); both must return every item.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from memexd.graph.cypher import compose
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore

SEED = """UNWIND range(1, $n) AS i
CREATE (:Item {id: toString(i), scope: 's', kind: 'fact', content: '{"text": "t"}',
  author: 'agent:a', source_kind: 'tool', authority: rand(), conviction: rand(),
  importance: rand(), created_at: i, retracted: false, version: 0, seq: i})"""
EXACT = "MATCH (n:Item) RETURN @item(n) AS item"
PLAIN = """MATCH (n:Item) RETURN n {.id, .scope, .kind, .content, .author, .source_kind,
  .parents, .authority, .conviction, .importance, .intent_id, .task_id, .meta,
  .created_at, .retracted, .version, .seq} AS item"""


async def timed(store: FalkorStore, text: str) -> tuple[float, int]:
    start = time.perf_counter()
    rows = await store.read(text, {})
    return (time.perf_counter() - start) * 1000, len(rows)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()
    engine = EmbeddedFalkor(Path(tempfile.mkdtemp(prefix="mxp-", dir="/tmp")), timeout_ms=60_000)
    await engine.start()
    store = FalkorStore.connect(unix_socket=engine.socket, graph="projection")
    try:
        await store.write(SEED, {"n": args.items})
        texts = {"exact": compose(EXACT, "falkordb"), "plain": PLAIN}
        times: dict[str, list[float]] = {name: [] for name in texts}
        for _ in range(args.samples + 1):  # interleaved; the first pair warms up
            for name, text in texts.items():
                ms, rows = await timed(store, text)
                if rows != args.items:
                    raise SystemExit(f"{name}: {rows} rows, not {args.items}")
                times[name].append(ms)
        e_ms, p_ms = (statistics.median(times[name][1:]) for name in texts)
        print(f"{args.items:,} items, median of {args.samples}: exact scores {e_ms:.1f} ms, "
              f"plain {p_ms:.1f} ms ({e_ms / p_ms:.2f}x)")  # fmt: skip
    finally:
        await store.drop()
        await store.close()
        await engine.stop()


if __name__ == "__main__":
    asyncio.run(main())
