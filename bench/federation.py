"""Federation: resolving entity references against reading the same items directly.

Run: ``.venv/bin/python bench/federation.py [--items N] [--runs R]``

Starts ``memexd serve`` with ``MEMEXD_FEDERATION=true``, creates N items and
times, interleaved over R runs, ``_entities`` with N ``MemoryItem``
representations (what a gateway sends when another subgraph's list names N
items) against ``items(limit: N)`` selecting the same fields. Both read the
items in one database round trip; the difference is the representations'
parsing and checking and the per-reference loader calls.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import httpx
from _common import Latencies, item_inputs, keep_alive, load_items, memexd_server

FIELDS = "id scope kind content authority createdAt"
ENTITIES = f"""query($r: [_Any!]!) {{ _entities(representations: $r) {{
  ... on MemoryItem {{ {FIELDS} }} }} }}"""
ITEMS = f"query($n: Int!) {{ items(limit: $n) {{ {FIELDS} }} }}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with memexd_server(MEMEXD_FEDERATION="true") as server:
        with httpx.Client(base_url=server.base_url, timeout=120) as client:
            load_items(client, item_inputs(args.items, random.Random(7)), 1000)
        connection = keep_alive(server)
        ids = [i["id"] for i in _post(connection, ITEMS, {"n": args.items})["items"]]
        refs = [{"__typename": "MemoryItem", "id": i} for i in ids]
        random.Random(8).shuffle(refs)
        sides = {"_entities": (ENTITIES, {"r": refs}), "items": (ITEMS, {"n": args.items})}
        timings: dict[str, list[float]] = {name: [] for name in sides}
        for run in range(args.runs + 3):  # three warm-up runs
            for name, (query, variables) in sides.items():
                started = time.perf_counter()
                data = _post(connection, query, variables)
                elapsed = (time.perf_counter() - started) * 1000
                found = data["_entities" if name == "_entities" else "items"]
                if len(found) != args.items or None in found:
                    raise RuntimeError(f"{name}: {len(found)} answers, expected {args.items}")
                if run >= 3:
                    timings[name].append(elapsed)
    print(f"federation: {args.items:,} items, {args.runs} interleaved runs per side, "
          "keep-alive HTTP, one client")  # fmt: skip
    for name, ms in timings.items():
        lat = Latencies(name, ms)
        print(f"  {name:<10} p50 {lat.p50:8.2f} ms   p90 {lat.pct(90):8.2f} ms")
    ratio = Latencies("", timings["_entities"]).p50 / Latencies("", timings["items"]).p50
    print(f"  _entities / items p50: {ratio:.2f}x")


def _post(connection: Any, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps({"query": query, "variables": variables})
    connection.request("POST", "/graphql", body, {"content-type": "application/json"})
    answer = json.loads(connection.getresponse().read())
    if answer.get("errors"):
        raise RuntimeError(answer["errors"])
    data: dict[str, Any] = answer["data"]
    return data


if __name__ == "__main__":
    main()
