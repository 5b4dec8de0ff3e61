"""Traversals that must stay linear in what they reach, over HTTP.

Run: ``.venv/bin/python bench/traversal.py [--engine falkordb|neo4j] [--quick]``
(the embedded FalkorDB by default; Neo4j from ``tools/neo4j``)

Workloads (SPEC §9, issue targets in brackets):
- a diamond lattice 40 levels deep, 2 items per level, each the child of both
  items above (2^40 root-to-leaf paths): supportSet of the deepest item,
  dependents(transitive) of a root, cascadeRetract of a root  [each < 0.5 s]
- a chain of 10,000 items: supportSet of the last, cascadeRetract of the first  [< 2 s]
- an alias group of 10,000 items in a random spanning tree: aliasGroup  [< 1 s]
- a random DAG, 2 parents per item among earlier ones: dependents(transitive)
  of 20 random items at 50k and at 100k items  [time ratio 100k/50k <= 2.3].
  The 20 items sit at the same relative positions at both sizes (item
  floor(f*n) for 20 random fractions f). In such a DAG the descendants of an
  item at a fixed relative position hardly grow with n, so a second probe
  takes 3 of the first 10 items, whose closures span most of the graph: its
  work doubles with n, and its time ratio is the real test of linear growth.
Times are one HTTP request each (query text and JSON decoding included).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from _common import CREATE_ITEMS, batches, graphql
from _targets import engine_server

from memexd.ids import new_id

SUPPORT = "query($id: ID!) { supportSet(id: $id) { id } }"
DEPENDENTS = "query($id: ID!) { dependents(id: $id, transitive: true) { id } }"
CASCADE = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "bench") { retracted } }'
ALIAS = 'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "bench") { events { id } } }'
GROUP = "query($id: ID!) { aliasGroup(id: $id) { id } }"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--quick", action="store_true", help="small sizes, smoke run")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--parts", default="lattice,chain,alias,dag", help="comma-separated workloads to run"
    )
    return parser.parse_args()


def _row(item_id: str, parents: list[str]) -> dict[str, Any]:
    return {"id": item_id, "parents": parents, "scope": "bench", "kind": "k",
            "content": {}, "author": "bench", "sourceKind": "o", "authority": 0.5}  # fmt: skip


def _load(client: httpx.Client, rows: list[dict[str, Any]]) -> None:
    for chunk in batches(rows, 1_000):
        graphql(client, CREATE_ITEMS, {"inputs": list(chunk)})


def _timed(client: httpx.Client, query: str, variables: dict[str, Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    data = graphql(client, query, variables)
    return time.perf_counter() - start, data


def _report(label: str, seconds: float, count: int, target: float) -> None:
    verdict = "met" if seconds < target else "MISSED"
    print(f"  {label:<44} {seconds:7.3f} s  ({count:,} items; target < {target} s: {verdict})")


def lattice(client: httpx.Client, levels: int) -> None:
    """Two lattices, each walked once: on the first the engine also plans
    the statements (Neo4j takes tenths of a second for memexd's larger ones),
    on the second it has them planned, as a server that has run a while."""
    grids = [[[new_id(), new_id()] for _ in range(levels)] for _ in ("first", "again")]
    for grid in grids:
        _load(client, [_row(x, grid[i - 1] if i else [])
                       for i, level in enumerate(grid) for x in level])  # fmt: skip
    print(f"diamond lattice: {levels} levels x 2 items, 2^{levels} root-to-leaf paths")
    for when, grid in zip(("first call", "planned"), grids, strict=True):
        seconds, data = _timed(client, SUPPORT, {"id": grid[-1][0]})
        _report(f"supportSet(deepest), {when}", seconds, len(data["supportSet"]), 0.5)
        seconds, data = _timed(client, DEPENDENTS, {"id": grid[0][0]})
        _report(f"dependents(root, transitive), {when}", seconds, len(data["dependents"]), 0.5)
        seconds, data = _timed(client, CASCADE, {"id": grid[0][0]})
        retracted = len(data["cascadeRetract"]["retracted"])
        _report(f"cascadeRetract(root), {when}", seconds, retracted, 0.5)


def chain(client: httpx.Client, length: int) -> None:
    ids = [new_id() for _ in range(length)]
    _load(client, [_row(x, ids[i - 1 : i]) for i, x in enumerate(ids)])
    print(f"chain: {length:,} items")
    seconds, data = _timed(client, SUPPORT, {"id": ids[-1]})
    _report("supportSet(last)", seconds, len(data["supportSet"]), 2.0)
    seconds, data = _timed(client, CASCADE, {"id": ids[0]})
    _report("cascadeRetract(first)", seconds, len(data["cascadeRetract"]["retracted"]), 2.0)


def alias_group(client: httpx.Client, size: int, rng: random.Random) -> None:
    ids = [new_id() for _ in range(size)]
    _load(client, [_row(x, []) for x in ids])
    for i in range(1, size):
        graphql(client, ALIAS, {"a": ids[i], "b": ids[rng.randrange(i)]})
    print(f"alias group: {size:,} items, random spanning tree of markAlias")
    seconds, data = _timed(client, GROUP, {"id": ids[rng.randrange(size)]})
    _report("aliasGroup(random member)", seconds, len(data["aliasGroup"]), 1.0)


def random_dag(client: httpx.Client, size: int, probes: int, rng: random.Random) -> None:
    ids = [new_id() for _ in range(size)]
    rows = [_row(x, rng.sample(ids[:i], k=min(i, 2))) for i, x in enumerate(ids)]
    half = size // 2
    fractions = [rng.random() for _ in range(probes)]
    print(f"random DAG: 2 parents per item; dependents(transitive) of {probes} items")
    early = [ids[i] for i in rng.sample(range(10), 3)]
    figures: dict[str, list[float]] = {"random": [], "early": []}
    for upto in (half, size):
        _load(client, rows[half if figures["random"] else 0 : upto])
        probe_sets = {"random": [ids[int(f * upto)] for f in fractions], "early": early}
        for name, picks in probe_sets.items():
            total, reached = _sum(lambda i: _timed(client, DEPENDENTS, {"id": i}), picks)
            figures[name].append(total)
            per = total / max(reached, 1) * 1e6
            print(f"  {name:>6} x{len(picks):<2} at {upto:>7,} items: {total:7.3f} s "
                  f"({reached:,} dependents reached, {per:.1f} µs each)")  # fmt: skip
    for name, (small, large) in figures.items():
        ratio = large / small
        verdict = "met" if ratio <= 2.3 else "MISSED"
        print(f"  {name} ratio {size:,}/{half:,}: {ratio:.2f} (target <= 2.3: {verdict})")


def _sum(run: Callable[[str], tuple[float, Any]], items: list[str]) -> tuple[float, int]:
    total, reached = 0.0, 0
    for item in items:
        seconds, data = run(item)
        total += seconds
        reached += len(data["dependents"])
    return total, reached


def main() -> None:
    args = _args()
    rng = random.Random(args.seed)
    scale = 10 if args.quick else 1
    parts = set(args.parts.split(","))
    # linearity is measured past the default walk limit (MEMEXD_TRAVERSAL_MAX_NODES)
    limits = {"MEMEXD_TRAVERSAL_MAX_NODES": "200000"}
    with (
        tempfile.TemporaryDirectory(prefix="memexd-traversal-") as root,
        engine_server(args.engine, Path(root), limits) as (server, _),
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        if "lattice" in parts:
            lattice(client, 40)
        if "chain" in parts:
            chain(client, 10_000 // scale)
        if "alias" in parts:
            alias_group(client, 10_000 // scale, rng)
        if "dag" in parts:
            random_dag(client, 100_000 // scale, 20, rng)


if __name__ == "__main__":
    main()
