"""Filter nesting: how the engines' parsers cope, before and after normalisation.

Run: ``.venv/bin/python bench/filter_nesting.py [--depths 2,4,6,8]``

A filter alternating ``not`` and ``or`` to a given depth is printed two ways:
*naive* (each ``not`` wraps its whole sub-filter in ``NOT coalesce((…), false)``,
every part in parentheses: how memexd compiled filters before) and
*normalised* (``memexd.memory.filters``: negations pushed down to single
conditions, parentheses only where precedence needs them). Each text is run
on an empty graph of the embedded FalkorDB (so all the time is parsing and
planning) with a 20 s timeout, and parsed by Neo4j's own front-end
(``@neo4j-cypher/language-support``, the linter's package) as a stand-in for
what a Neo4j server's parser does with the same text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from memexd.graph import Graph
from memexd.graph.embedded import EmbeddedFalkor
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.validation import Limits

ROOT = Path(__file__).resolve().parents[1]
TIMER = ROOT / "tools" / "cypher-lint" / "time.mjs"
TIMEOUT_S = 20.0


def nested(depth: int) -> MemoryFilter:
    flt = MemoryFilter(kind="k1", author="u")
    for level in range(depth):
        flt = (
            MemoryFilter(or_=[flt, MemoryFilter(kind=f"k{level}")])
            if level % 2
            else MemoryFilter(not_=flt)
        )
    return flt


def naive(flt: MemoryFilter) -> str:
    """memexd's former compilation: parts parenthesised, NOT wrapping subtrees."""
    parts = [f"n.kind = '{flt.kind}'"] if flt.kind else []
    parts += [f"n.author = '{flt.author}'"] if flt.author else []
    if flt.not_ is not None:
        parts.append(f"NOT coalesce(({naive(flt.not_)}), false)")
    if flt.or_ is not None:
        parts.append(" OR ".join(f"({naive(o)})" for o in flt.or_))
    return " AND ".join(f"({p})" for p in parts) if len(parts) > 1 else parts[0]


def normalised(flt: MemoryFilter) -> str:
    limits = Limits(max_filter_depth=64, max_filter_terms=10_000)
    fragment = to_cypher(prepare(flt, limits, 0), Graph(_Files()))
    text = fragment.text
    for name, value in fragment.params.items():  # inline for a fair, parameter-free text
        text = text.replace(f"${name}", f"'{value}'")
    return text


class _Files:
    backend = "falkordb"


def query(predicate: str) -> str:
    return f"MATCH (n:Item) WHERE n.retracted = false AND ({predicate}) RETURN n.id LIMIT 10"


async def falkordb_ms(client: aioredis.Redis, text: str) -> str:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(client.execute_command("GRAPH.RO_QUERY", "bench", text), TIMEOUT_S)
    except TimeoutError:
        return f"> {TIMEOUT_S * 1000:,.0f}"
    except Exception as exc:  # an empty graph answers with an error; timing is what counts
        if "timed out" in str(exc).lower():
            return "engine timeout"
    return f"{(time.perf_counter() - started) * 1000:,.1f}"


def neo4j_ms(texts: list[dict[str, str]]) -> dict[str, dict[str, Any]]:
    if shutil.which("node") is None or not (TIMER.parent / "node_modules").is_dir():
        return {}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    done = subprocess.run(["node", str(TIMER), f.name], capture_output=True, text=True, check=True)
    return {row["label"]: row for row in map(json.loads, done.stdout.splitlines())}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="2,4,5,6,8,12,16")
    depths = [int(d) for d in parser.parse_args().depths.split(",")]
    texts = {}
    for d in depths:
        texts[f"naive {d}"] = query(naive(nested(d)))
        texts[f"normalised {d}"] = query(normalised(nested(d)))
    neo4j = neo4j_ms([{"label": k, "text": v} for k, v in texts.items()])
    data_dir = Path(tempfile.mkdtemp(prefix="mxf-", dir="/tmp"))
    engine = EmbeddedFalkor(data_dir, timeout_ms=int(TIMEOUT_S * 1000))
    client = aioredis.Redis(unix_socket_path=await engine.start())
    await client.execute_command("GRAPH.QUERY", "bench", "CREATE (:Other)")
    print("filter nesting: alternating not/or, depth d; ms to run on an empty FalkorDB graph")
    print("(parsing and planning) and to parse + analyse with Neo4j's front-end")
    header = ("filter", "text chars", "max parens", "FalkorDB ms", "Neo4j front-end ms")
    print("  {:<16} {:>10} {:>10} {:>12} {:>19}".format(*header))
    try:
        for label, text in texts.items():
            falkor = await falkordb_ms(client, text)
            if falkor.startswith(">"):  # the engine keeps parsing: restart it for the next
                await client.aclose()
                await engine.stop()
                engine = EmbeddedFalkor(data_dir, timeout_ms=int(TIMEOUT_S * 1000))
                client = aioredis.Redis(unix_socket_path=await engine.start())
            row = neo4j.get(label)
            neo = (
                "n/a"
                if row is None
                else f"{row['ms']:,.1f}" + (" (errors)" if row["errors"] else "")
            )
            print(f"  {label:<16} {len(text):>10,} {_depth(text):>10} {falkor:>12} {neo:>19}")
    finally:
        await client.aclose()
        await engine.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def _depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += char == "("
        depth -= char == ")"
        deepest = max(deepest, depth)
    return deepest


if __name__ == "__main__":
    asyncio.run(main())
