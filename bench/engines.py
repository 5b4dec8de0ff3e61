"""Both engines side by side: ``bench/scale.py`` on FalkorDB and on Neo4j,
at each size, in one run, then one table of the figures and their targets.

Run: ``.venv/bin/python bench/engines.py [--items 100000 1000000] [--quick]``

Each engine and size is its own ``scale.py`` process with a fresh engine,
one after the other (never two at once: they would share the 2 cores); its
own report is printed as it goes, and the table at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENGINES = ("falkordb", "neo4j")
#: (figure, label, target, whether the target is a floor) in table order.
ROWS: list[tuple[str, str, float | None, bool]] = [
    ("ingest_raw_per_s", "ingest: raw batched Cypher (items/s)", None, True),
    ("ingest_create_items_per_s", "ingest: createItems (items/s)", None, True),
    ("ingest_create_items_ratio", "  createItems / raw", 0.25, True),
    ("ingest_post_items_per_s", "ingest: POST /items (items/s)", None, True),
    ("ingest_post_items_ratio", "  POST /items / raw", 0.5, True),
    ("point_read_http_ms", "point read p50 over HTTP (ms)", None, False),
    ("point_read_raw_ms", "point read p50 raw round trip (ms)", None, False),
    ("point_read_ratio", "  HTTP / raw", 4.0, False),
    ("filter_engine_worst_ms", "top-10 filters: slowest in the engine (ms)", 10.0, False),
    ("walk supportSet_s", "supportSet, the chain (s)", 0.5, False),
    ("walk dependents_s", "dependents, the chain (s)", 0.5, False),
    ("walk aliasGroup_s", "aliasGroup, the group (s)", 0.5, False),
    ("walk cascade_s", "cascadeRetract, a chain (s)", 0.5, False),
    ("memory_per_item", "memory per item (bytes)", None, False),
    ("disk_per_item", "disk per item (bytes)", None, False),
]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--quick", action="store_true", help="smoke run: 30k items each")
    return parser.parse_args()


def run(engine: str, items: int, quick: bool, out: Path) -> dict[str, Any]:
    argv = [sys.executable, str(HERE / "scale.py"), "--engine", engine, "--items", str(items),
            "--json", str(out), *(["--quick"] if quick else [])]  # fmt: skip
    subprocess.run(argv, check=True, cwd=HERE)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def cell(value: Any, target: float | None, floor: bool) -> str:
    if value is None:
        return "-"
    text = f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"
    if target is None:
        return text
    met = value >= target if floor else value <= target
    return f"{text} {'ok' if met else 'MISSED'}"


def table(reports: list[dict[str, Any]]) -> None:
    heads = [f"{r['engine']} {r['items'] // 1000:,}k" for r in reports]
    print("\n" + f"{'':<44}" + "".join(f"{h:>18}" for h in heads) + "   target")
    for key, label, target, floor in ROWS:
        cells = "".join(f"{cell(r.get(key), target, floor):>18}" for r in reports)
        goal = "" if target is None else f"{'>=' if floor else '<='} {target:g}"
        print(f"{label:<44}{cells}   {goal}")
    for key in (k for k in reports[0] if k.startswith("filter ")):
        line = "".join(f"{r[key]['engine_ms']:>9.2f}/{r[key]['http_ms']:<8.1f}" for r in reports)
        print(f"  {key[7:]:<42}{line}   engine/HTTP ms")


def main() -> None:
    args = _args()
    reports = []
    with tempfile.TemporaryDirectory() as scratch:
        for items in args.items:
            for engine in ENGINES:
                out = Path(scratch) / f"{engine}-{items}.json"
                reports.append(run(engine, items, args.quick, out))
    table(reports)


if __name__ == "__main__":
    main()
