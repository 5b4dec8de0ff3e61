"""Acknowledged writes across kills of the engine alone: how many are lost.

Run: ``.venv/bin/python bench/engine_kills.py [--kills 50] [--writers 6]
[--write-ack disk|engine]``

A fresh ``memexd serve`` (embedded FalkorDB, ``MEMEXD_WRITE_ACK`` as given:
``disk`` by default, ``engine`` as memexd acknowledged writes before)
takes writes from ``--writers`` threads at once, in turn ``createItems``
(batches of 20), ``POST /items`` (100 lines) and ``createItem``, each with
client-chosen ids. Every ``--every`` seconds the engine process (not memexd)
is killed with SIGKILL; memexd's supervisor starts it again from its
append-only file. A write counts as acknowledged when its answer says it was
made: ``createItems`` / ``createItem`` without errors, a ``POST /items`` line
with its id. At the end every acknowledged id is looked up: the script prints
how many were acknowledged, how many are missing, how many answers failed
(and how many of those carried an error without ``extensions.code``, which
must be none), and the engine log's "truncated AOF" warnings.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import threading
import time
from collections import Counter
from typing import Any

import httpx
import orjson
import redis
from _common import GRAPH_NAME, item_inputs, memexd_server

CREATE_MANY = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
CREATE_ONE = "mutation($i: MemoryItemInput!) { createItem(input: $i) { item { id } } }"
FOUND = "query($ids: [ID!]!) { items(filter: {ids: $ids}, limit: 500) { id } }"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--every", type=float, default=1.5, help="seconds between kills")
    parser.add_argument("--write-ack", choices=["disk", "engine"], default="disk")
    return parser.parse_args()


class Tally:
    """What the writers were told, shared by their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acknowledged: list[str] = []
        self.failures: Counter[str] = Counter()

    def made(self, ids: list[str]) -> None:
        with self.lock:
            self.acknowledged.extend(ids)

    def failed(self, code: str) -> None:
        with self.lock:
            self.failures[code] += 1


def _codes(body: dict[str, Any]) -> list[str]:
    return [str((e.get("extensions") or {}).get("code", "NO CODE")) for e in body["errors"]]


def _graphql(client: httpx.Client, tally: Tally, query: str, variables: dict[str, Any]) -> Any:
    try:
        response = client.post("/graphql", json={"query": query, "variables": variables})
    except httpx.HTTPError as exc:
        tally.failed(f"transport: {type(exc).__name__}")
        return None
    if response.status_code != 200:
        tally.failed(f"HTTP {response.status_code}")
        return None
    body = response.json()
    if body.get("errors"):
        for code in _codes(body):
            tally.failed(code)
        return None
    return body["data"]


def _post_items(client: httpx.Client, tally: Tally, rows: list[dict[str, Any]]) -> None:
    body = b"".join(orjson.dumps(row) + b"\n" for row in rows)
    try:
        answer = client.post("/items", content=body,
                             headers={"content-type": "application/x-ndjson"})  # fmt: skip
    except httpx.HTTPError as exc:
        tally.failed(f"transport: {type(exc).__name__}")
        return
    if answer.status_code != 200:
        tally.failed(f"HTTP {answer.status_code}")
        return
    lines = [orjson.loads(line) for line in answer.content.splitlines() if line.strip()]
    tally.made([line["id"] for line in lines if "id" in line])
    for line in lines:
        if "error" in line:
            tally.failed(str(line["error"].get("code", "NO CODE")))


def writer(url: str, tally: Tally, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=60) as client:
        turn = 0
        while not stop.is_set():
            kind, turn = turn % 3, turn + 1
            rows = [{**r, "parents": []} for r in item_inputs((20, 100, 1)[kind], rng)]
            if kind == 0:
                data = _graphql(client, tally, CREATE_MANY, {"i": rows})
                if data is not None:
                    tally.made([i["id"] for i in data["createItems"]["items"]])
            elif kind == 1:
                _post_items(client, tally, rows)
            else:
                data = _graphql(client, tally, CREATE_ONE, {"i": rows[0]})
                if data is not None:
                    tally.made([data["createItem"]["item"]["id"]])


def engine_pid(socket: str) -> int | None:
    try:
        with redis.Redis(unix_socket_path=socket, socket_timeout=2) as engine:
            return int(engine.info("server")["process_id"])
    except (redis.RedisError, OSError):
        return None


def kill_engine(socket: str, wait: float = 30.0) -> bool:
    """SIGKILL the engine once it answers (memexd starts it again)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        pid = engine_pid(socket)
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            return True
        time.sleep(0.1)
    return False


def missing(url: str, ids: list[str]) -> list[str]:
    found: set[str] = set()
    with httpx.Client(base_url=url, timeout=120) as client:
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            for _ in range(60):  # the engine may still be loading its log
                body = client.post("/graphql", json={"query": FOUND, "variables": {"ids": part}})
                data = body.json()
                if not data.get("errors"):
                    found |= {i["id"] for i in data["data"]["items"]}
                    break
                time.sleep(1)
            else:
                raise RuntimeError(f"cannot read back: {data['errors']}")
    return [i for i in ids if i not in found]


def main() -> None:
    args = _args()
    settings = {"MEMEXD_WRITE_ACK": args.write_ack, "MEMEXD_EMBEDDING": "off"}
    with memexd_server(GRAPH_NAME, **settings) as server:
        tally, stop = Tally(), threading.Event()
        threads = [threading.Thread(target=writer, args=(server.base_url, tally, stop, n))
                   for n in range(args.writers)]  # fmt: skip
        for thread in threads:
            thread.start()
        killed = 0
        started = time.perf_counter()
        try:
            for _ in range(args.kills):
                time.sleep(args.every)
                killed += kill_engine(server.socket)
        finally:
            time.sleep(args.every)
            stop.set()
            for thread in threads:
                thread.join()
        spent = time.perf_counter() - started
        lost = missing(server.base_url, tally.acknowledged)
        log = (server.data_dir / "falkordb.log").read_text(errors="replace")
        truncated = log.count("Truncating")
    print(f"write ack {args.write_ack}: {killed} engine kills under {args.writers} writers "
          f"in {spent:.0f} s")  # fmt: skip
    print(f"acknowledged {len(tally.acknowledged):,} items, lost {len(lost):,}")
    print(f"failed answers: {sum(tally.failures.values()):,} "
          f"({', '.join(f'{c} {n}' for c, n in tally.failures.most_common()) or 'none'}); "
          f"without a code: {tally.failures['NO CODE']}")  # fmt: skip
    print(f"engine log: {truncated} truncated append-only file(s) loaded")


if __name__ == "__main__":
    main()
