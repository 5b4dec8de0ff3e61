"""What the scale benchmark loads: items shaped like a fleet's memory, the
ways it loads them over HTTP (``createItems``, ``POST /items``), the edges,
the long chain and the alias group it walks, and the filter shapes it times."""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from typing import Any

import httpx
from _common import CREATE_ITEMS, batches, graphql, json_body

from memexd.ids import uuid7_at
from memexd.memory.filters import MemoryFilter, Range
from memexd.memory.model import SortKey

__all__ = ["BATCH", "SHAPES", "Shapes", "add_edges", "alias_group", "build", "chain",
           "create_items", "post_ndjson"]  # fmt: skip

DAY_MS = 86_400_000
KINDS = ["fact", "observation", "decision", "hypothesis", "summary", "preference"]
SOURCES = ["agent", "user", "tool", "document"]
EDGE_KINDS = ["SUPPORTS", "CONTRADICTS", "SUPERSEDES", "ABOUT", "DERIVED_FROM"]
BATCH = 1_000


class Shapes:
    """Items shaped like a fleet's memory, deterministic per seed."""

    def __init__(self, rng: random.Random, now_ms: int) -> None:
        self.rng = rng
        self.now_ms = now_ms
        self.recent: list[str] = []

    def item(self) -> dict[str, Any]:
        rng = self.rng
        tenant, project = rng.randrange(100), rng.randrange(10)
        created = self.now_ms - int(rng.random() ** 2 * 90 * DAY_MS)  # more recent than not
        item_id = uuid7_at(created)
        parents = rng.sample(self.recent, k=min(len(self.recent), rng.choice((1, 2))))
        if rng.random() > 1 / 3:
            parents = []
        self.recent = [*self.recent[-499:], item_id]
        agent = rng.randrange(2_000)
        return {
            "id": item_id,
            "scope": f"tenant:t{tenant:03d}/project:p{project}/agent:{agent}",
            "kind": rng.choice(KINDS),
            "content": {"text": f"note {rng.getrandbits(48):x} about {rng.choice(KINDS)}",
                        "tokens": rng.randint(5, 80)},
            "author": f"agent:{agent}",
            "sourceKind": rng.choice(SOURCES),
            "parents": parents,
            "authority": round(rng.random(), 4),
            "conviction": round(rng.random(), 4),
            "importance": round(rng.random(), 4),
            "meta": {"agent_id": f"a{agent}", "session_id": f"s{rng.randrange(50_000)}",
                     "crew_id": f"c{rng.randrange(200)}", "env": rng.choice(("prod", "dev"))},
        }  # fmt: skip

    def items(self, count: int) -> list[dict[str, Any]]:
        return [self.item() for _ in range(count)]


def ndjson_lines(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)


def post_ndjson(client: httpx.Client, rows: list[dict[str, Any]]) -> float:
    """Seconds to ingest ``rows`` through ``POST /items``, one request (the
    endpoint streams), its body written before the clock starts as for the
    other paths; every line must succeed."""
    body = ndjson_lines(rows)
    start = time.perf_counter()
    response = client.post("/items", content=body, headers={"content-type": "application/x-ndjson"})
    response.raise_for_status()
    elapsed = time.perf_counter() - start
    failed = [line for line in response.text.splitlines() if '"error"' in line]
    if failed or '"done"' not in response.text.splitlines()[-1]:
        raise RuntimeError(f"NDJSON ingest failed: {failed[:3] or response.text[-300:]}")
    return elapsed


def create_items(client: httpx.Client, rows: list[dict[str, Any]]) -> float:
    bodies = [json_body(CREATE_ITEMS, {"inputs": list(c)}) for c in batches(rows, BATCH)]
    start = time.perf_counter()
    for body in bodies:
        response = client.post(
            "/graphql", content=body, headers={"content-type": "application/json"}
        )
        if response.status_code != 200 or b'"errors"' in response.content:
            raise RuntimeError(f"createItems failed: {response.text[:300]}")
    return time.perf_counter() - start


def build(client: httpx.Client, shapes: Shapes, total: int) -> None:
    start = time.perf_counter()
    done = 0
    while done < total:
        count = min(50_000, total - done)
        post_ndjson(client, shapes.items(count))
        done += count
    print(f"built {total:,} more items in {time.perf_counter() - start:.0f} s (NDJSON)")


def add_edges(client: httpx.Client, ids: list[str], count: int, rng: random.Random) -> None:
    start = time.perf_counter()
    for chunk in batches(range(count), 25):  # the alias limit is 30 per request
        fields = []
        for i in chunk:
            a, b = rng.sample(ids, 2)
            kind = EDGE_KINDS[i % len(EDGE_KINDS)]
            edge = (f'{{from: "{a}", to: "{b}", kind: "{kind}", author: "bench", '
                    'sourceKind: "derived", authority: 0.5, weight: 0.5}')  # fmt: skip
            fields.append(f"e{i}: createEdge(input: {edge}) {{ edge {{ edgeId }} }}")
        graphql(client, "mutation {" + "\n".join(fields) + "}", {})
    print(f"added {count:,} typed edges ({', '.join(EDGE_KINDS)}) in "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip


def chain(client: httpx.Client, size: int, now_ms: int) -> list[str]:
    ids = [uuid7_at(now_ms - size + i) for i in range(size)]
    rows = [{"id": x, "parents": ids[i - 1 : i], "scope": "tenant:chain/p", "kind": "k",
             "content": {}, "author": "bench", "sourceKind": "o", "authority": 0.5}
            for i, x in enumerate(ids)]  # fmt: skip
    post_ndjson(client, rows)
    return ids


def alias_group(client: httpx.Client, size: int, now_ms: int, rng: random.Random) -> list[str]:
    ids = [uuid7_at(now_ms - 2 * size + i) for i in range(size)]
    rows = [{"id": x, "scope": "tenant:alias/p", "kind": "k", "content": {}, "author": "bench",
             "sourceKind": "o", "authority": 0.5} for x in ids]  # fmt: skip
    post_ndjson(client, rows)
    for chunk in batches(range(1, size), 25):
        fields = [f'a{i}: markAlias(a: "{ids[i]}", b: "{ids[rng.randrange(i)]}", author: "b") '
                  "{ events { id } }" for i in chunk]  # fmt: skip
        graphql(client, "mutation {" + "\n".join(fields) + "}", {})
    return ids


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


SINCE_MS = int(time.time() * 1000) - 30 * DAY_MS
SHAPES: list[tuple[str, dict[str, Any], MemoryFilter, SortKey]] = [
    ("one project, by authority",
     {"scope": "tenant:t007/project:p3/agent:17"},
     MemoryFilter(scope="tenant:t007/project:p3/agent:17"), SortKey("authority", True)),
    ("tenant prefix, newest",
     {"scopePrefix": "tenant:t042/"},
     MemoryFilter(scope_prefix="tenant:t042/"), SortKey("recency", True)),
    ("meta agent_id, by importance",
     {"meta": {"agent_id": "a1234"}},
     MemoryFilter(meta={"agent_id": "a1234"}), SortKey("importance", True)),
    ("kind + authority >= 0.8, by authority",
     {"kind": "decision", "range": {"authority": {"min": 0.8}}},
     MemoryFilter(kind="decision", authority=Range(min=0.8)), SortKey("authority", True)),
    ("crew_id + created in the last 30 days, newest",
     {"meta": {"crew_id": "c17"}, "created": {"after": _iso(SINCE_MS)}},
     MemoryFilter(meta={"crew_id": "c17"}, created_after=SINCE_MS), SortKey("recency", True)),
    ("tenant prefix + session_id, by conviction",
     {"scopePrefix": "tenant:t003/", "meta": {"session_id": "s4242"}},
     MemoryFilter(scope_prefix="tenant:t003/", meta={"session_id": "s4242"}),
     SortKey("conviction", True)),
]  # fmt: skip
