"""Maintenance jobs at scale: DECAY_UPDATE and CONSOLIDATE wall time and
items/s, and the p99 of point reads while they run against the idle p99.

Run: ``.venv/bin/python bench/jobs_speed.py [--items 1000000]
[--duplicates 0.05] [--reads 2000] [--batch N] [--pause X] [--jobs TYPE…]``

A fresh ``memexd serve`` (FalkorDB, default settings but the embedding model
off: it is not the subject) gets ``--items`` items through ``POST /items``
(the load benches' generator), a ``--duplicates`` share of them copies of
earlier ones (same scope, kind and content, a new id). ``--reads`` point
reads (``item(id)`` of random ids, one keep-alive connection, one after
another) give the idle p50 and p99. Then each job runs through ``runJob``
while the same reads run without pause; the script prints the job's wall
time (``startedAt`` to ``finishedAt``), items/s over every item, and the
reads' p50/p99 during the job with the ratio to the idle p99 (goal: under
2x). CONSOLIDATE must archive exactly the duplicates made.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from datetime import datetime
from typing import Any

import httpx
from _common import (
    GRAPH_NAME,
    Latencies,
    item_inputs,
    keep_alive,
    memexd_server,
    post_graphql,
    post_items,
)

READ = "query($id: ID!) { item(id: $id) { id scope kind content authority } }"
RUN = 'mutation($t: JobType!) { runJob(input: {type: $t, author: "bench"}) { id } }'
JOB = "query($id: ID!) { job(id: $id) { status startedAt finishedAt result error } }"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--duplicates", type=float, default=0.05)
    parser.add_argument("--reads", type=int, default=2_000)
    parser.add_argument("--batch", type=int, help="MEMEXD_JOBS_BATCH (the server's: 250)")
    parser.add_argument("--pause", type=float, help="MEMEXD_JOBS_YIELD (the server's: 1.0)")
    parser.add_argument("--jobs", nargs="+", default=["DECAY_UPDATE", "CONSOLIDATE"],
                        help="the jobs to run, in order")  # fmt: skip
    return parser.parse_args()


def inputs(count: int, share: float, rng: random.Random) -> tuple[list[dict[str, Any]], int]:
    """Items, the last ``share`` of them copies of earlier ones (newer)."""
    twins = int(count * share)
    rows = item_inputs(count - twins, rng)
    more = item_inputs(twins, rng)
    for row in more:
        original = rows[rng.randrange(len(rows))]
        row.update(scope=original["scope"], kind=original["kind"], content=original["content"])
    return rows + more, twins


class Reader:
    """Point reads in a thread until stopped, timed."""

    def __init__(self, server: Any, ids: list[str], rng: random.Random) -> None:
        self.conn, self.ids, self.rng = keep_alive(server), ids, rng
        self.ms: list[float] = []
        self.stop = threading.Event()

    def read(self) -> None:
        started = time.perf_counter()
        post_graphql(self.conn, READ, {"id": self.rng.choice(self.ids)})
        self.ms.append((time.perf_counter() - started) * 1000)

    def run(self, count: int) -> Latencies:
        for _ in range(count):
            self.read()
        return self._done("idle")

    def during(self, work: Any) -> tuple[Any, Latencies]:
        self.ms, self.stop = [], threading.Event()
        thread = threading.Thread(target=self._loop)
        thread.start()
        try:
            outcome = work()
        finally:
            self.stop.set()
            thread.join()
        return outcome, self._done("during")

    def _loop(self) -> None:
        while not self.stop.is_set():
            self.read()

    def _done(self, label: str) -> Latencies:
        done, self.ms = Latencies(label, self.ms), []
        return done


def run_job(server: Any, job_type: str) -> dict[str, Any]:
    conn = keep_alive(server)
    job_id = post_graphql(conn, RUN, {"t": job_type})["runJob"]["id"]
    while True:
        job: dict[str, Any] = post_graphql(conn, JOB, {"id": job_id})["job"]
        if job["status"] not in ("QUEUED", "RUNNING"):
            return job
        time.sleep(0.5)


def seconds(job: dict[str, Any]) -> float:
    started, finished = (datetime.fromisoformat(job[k]) for k in ("startedAt", "finishedAt"))
    return (finished - started).total_seconds()


def _settings(args: argparse.Namespace) -> dict[str, str]:
    settings = {"MEMEXD_EMBEDDING": "off"}
    if args.batch is not None:
        settings["MEMEXD_JOBS_BATCH"] = str(args.batch)
    if args.pause is not None:
        settings["MEMEXD_JOBS_YIELD"] = str(args.pause)
    return settings


def main() -> None:
    args = _args()
    rng = random.Random(11)
    rows, twins = inputs(args.items, args.duplicates, rng)
    with (
        memexd_server(GRAPH_NAME, **_settings(args)) as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        print(f"{args.items:,} items ({twins:,} duplicates) in {post_items(client, rows):.1f} s")
        reader = Reader(server, [r["id"] for r in rows], rng)
        idle = reader.run(args.reads)
        print(f"point reads idle: p50 {idle.p50:.2f} ms  p99 {idle.pct(99):.2f} ms")
        for job_type in args.jobs:
            job, during = reader.during(lambda t=job_type: run_job(server, t))
            if job["status"] != "COMPLETED":
                raise SystemExit(f"{job_type} ended {job['status']}: {job['error']}")
            spent = seconds(job)
            print(f"{job_type}: {spent:.1f} s, {args.items / spent:,.0f} items/s, "
                  f"result {job['result']}; point reads during it ({len(during.ms):,}): "
                  f"p50 {during.p50:.2f} ms  p99 {during.pct(99):.2f} ms "
                  f"({during.pct(99) / idle.pct(99):.2f}x the idle p99)")  # fmt: skip
            if job_type == "CONSOLIDATE" and job["result"]["duplicates"] != twins:
                raise SystemExit(f"archived {job['result']['duplicates']}, made {twins}")


if __name__ == "__main__":
    main()
