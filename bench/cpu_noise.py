"""What any background CPU work does to point reads' p99 on this machine,
with memexd out of the picture: the floor under bench/jobs_speed.py's goal.

Run: ``.venv/bin/python bench/cpu_noise.py [--items 20000] [--reads 3000]
[--burst-ms 3] [--duty 0.1 0.5 1.0]``

A fresh ``memexd serve`` (FalkorDB, the embedding model off) gets
``--items`` items; ``--reads`` point reads (``item(id)``, one keep-alive
connection, one after another, as jobs_speed.py makes them) give the idle
p50 and p99. Then the same reads run while another process, which touches
neither memexd nor its engine, burns the CPU in bursts of ``--burst-ms``
with sleeps between, busy ``--duty`` of the time, once at nice 19 and once
under SCHED_IDLE (the lowest priorities a process can take): the script
prints the reads' p50/p99 and the ratio to the idle p99. A maintenance job
works the same way (a batch, then a pause), except that its work runs in
the engine's own threads, at the priority the reads have.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import time
from multiprocessing.synchronize import Event

import httpx
from _common import GRAPH_NAME, memexd_server, post_items
from jobs_speed import Reader, inputs

POLICIES = ("nice19", "idle")


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--reads", type=int, default=3_000)
    parser.add_argument("--burst-ms", type=float, default=3.0)
    parser.add_argument("--duty", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    return parser.parse_args()


def burn(policy: str, burst_s: float, duty: float, stop: Event) -> None:
    """Busy for ``burst_s``, asleep for as long as makes ``duty``, until stopped."""
    if policy == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(19)
    rest = burst_s * (1 - duty) / duty
    while not stop.is_set():
        started = time.perf_counter()
        while time.perf_counter() - started < burst_s:
            pass
        if rest:
            time.sleep(rest)


def main() -> None:
    args = _args()
    rng = random.Random(11)
    rows, _ = inputs(args.items, 0.0, rng)
    spawn = multiprocessing.get_context("spawn")
    with (
        memexd_server(GRAPH_NAME, MEMEXD_EMBEDDING="off") as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        post_items(client, rows)
        reader = Reader(server, [r["id"] for r in rows], rng)
        idle = reader.run(args.reads)
        print(f"point reads idle: p50 {idle.p50:.2f} ms  p99 {idle.pct(99):.2f} ms")
        for duty in args.duty:
            for policy in POLICIES:
                stop = spawn.Event()
                burner = spawn.Process(target=burn, args=(policy, args.burst_ms / 1000, duty, stop))
                burner.start()
                time.sleep(0.2)
                during = reader.run(args.reads)
                stop.set()
                burner.join()
                print(f"{args.burst_ms:g} ms bursts, {duty:.0%} busy, {policy}: "
                      f"p50 {during.p50:.2f} ms  p99 {during.pct(99):.2f} ms "
                      f"({during.pct(99) / idle.pct(99):.2f}x the idle p99)")  # fmt: skip


if __name__ == "__main__":
    main()
