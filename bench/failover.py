"""Failover and replicated acknowledgements on FalkorDB behind Sentinels
(docs/high-availability.md), in one run:

- the write latency of each acknowledgement setting (p50/p99 over
  sequential ``CREATE``s through memexd's store, on the same topology);
- point reads per second from 16 concurrent readers for ``--seconds``,
  on the primary alone and on two replicas (``MEMEXD_READ_FROM=replicas``),
  with the CPU each read cost this process and each engine;
- failover: a primary, two replicas and three Sentinels (``memexd node``,
  ``--down-after-ms`` as given); the primary is killed (``kill -9``) while a
  writer writes, and the time from the kill to the first acknowledged write
  is timed; over ``--runs`` topologies (median and max), with the count of
  acknowledged writes missing afterwards.

    .venv/bin/python bench/failover.py --runs 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memexd.errors import StorageUnavailable
from memexd.graph.falkordb import FalkorStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests import topology

WRITE = "CREATE (n:N {v: $v}) RETURN n.v AS v"
SETTINGS = {  # name: (durable, replicas)
    "MEMEXD_WRITE_ACK=engine": (False, 0),
    "disk (default)": (True, 0),
    "disk + MEMEXD_WRITE_REPLICAS=1": (True, 1),
    "disk + MEMEXD_WRITE_REPLICAS=2": (True, 2),
}


def _store(nodes: topology.Topology, durable: bool, replicas: int) -> FalkorStore:
    return FalkorStore.connect(uri=nodes.uri(), graph="bench", durable=durable,
                               replicas=replicas, timeout_ms=5_000)  # fmt: skip


async def latencies(nodes: topology.Topology, writes: int) -> None:
    print(f"write latency, {writes} sequential writes each (ms):")
    for name, (durable, replicas) in SETTINGS.items():
        store = _store(nodes, durable, replicas)
        took = []
        for v in range(writes):
            started = time.perf_counter()
            await store.write(WRITE, {"v": v})
            took.append((time.perf_counter() - started) * 1000)
        await store.close()
        cuts = statistics.quantiles(took, n=100)
        print(f"  {name:32} p50 {cuts[49]:6.2f}  p99 {cuts[98]:6.2f}")


def _cpu(pid: int) -> float:
    """Seconds of CPU ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def reads(nodes: topology.Topology, seconds: float) -> None:
    print(f"point reads, 16 readers, {seconds:.0f} s each (CPU per read, µs):")
    seed = _store(nodes, True, 0)
    await seed.write("UNWIND range(1, 1000) AS v CREATE (:R {v: v})", {})
    await seed.write("CREATE INDEX FOR (n:R) ON (n.v)", {})
    await seed.close()
    pids = [(n.role, n.process.pid) for n in nodes.data if n.process is not None]
    for where, replicas in (("primary alone", False), ("two replicas", True)):
        store = FalkorStore.connect(uri=nodes.uri(), graph="bench", read_replicas=replicas)
        before = [_cpu(pid) for _, pid in pids] + [time.process_time()]
        counts = await asyncio.gather(*(_reader(store, seconds) for _ in range(16)))
        after = [_cpu(pid) for _, pid in pids] + [time.process_time()]
        done = sum(counts)
        spent = [(b - a) / done * 1e6 for a, b in zip(before, after, strict=True)]
        engines = ", ".join(
            f"{role} {s:.0f}" for (role, _), s in zip(pids, spent[:-1], strict=True)
        )
        print(f"  {where:14} {done / seconds:7.0f}/s; memexd {spent[-1]:.0f}, {engines}")
        await store.close()


async def _reader(store: FalkorStore, seconds: float) -> int:
    """Point reads one after another for ``seconds``; how many."""
    done, stop = 0, time.monotonic() + seconds
    while time.monotonic() < stop:
        await store.read("MATCH (n:R {v: $v}) RETURN n.v AS v", {"v": done % 1000 + 1})
        done += 1
    return done


async def failover(root: Path) -> tuple[float, int, int]:
    """Seconds from the kill to the next acknowledged write; acknowledged
    writes; how many of them the new primary lacks."""
    nodes = topology.start(root)
    store = _store(nodes, True, 1)
    acknowledged: list[int] = []
    try:
        v, killed_at, old = 0, 0.0, nodes.primary()
        while True:
            v += 1
            if v == 50:
                old.kill()
                killed_at = time.monotonic()
            try:
                await store.write(WRITE, {"v": v})
            except StorageUnavailable:
                await asyncio.sleep(0.02)
                continue
            acknowledged.append(v)
            if killed_at:
                gap = time.monotonic() - killed_at
                break
        reply = (
            nodes.primary()
            .client()
            .execute_command("GRAPH.RO_QUERY", "bench", "MATCH (n:N) RETURN n.v")
        )
        held = {row[0] for row in reply[1]}
        return gap, len(acknowledged), len(set(acknowledged) - held)
    finally:
        await store.close()
        nodes.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--writes", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(f"Sentinels' down-after-milliseconds: {topology.DOWN_AFTER_MS}")
    with tempfile.TemporaryDirectory() as scratch:
        nodes = topology.start(Path(scratch) / "latency")
        try:
            await latencies(nodes, args.writes)
            await reads(nodes, args.seconds)
        finally:
            nodes.stop()
        gaps, lost = [], 0
        for run in range(args.runs):
            gap, acknowledged, missing = await failover(Path(scratch) / f"run-{run}")
            gaps.append(gap)
            lost += missing
            print(f"  run {run + 1}: first write {gap:.2f} s after the kill; "
                  f"{acknowledged} acknowledged, {missing} missing")  # fmt: skip
        print(f"failover over {args.runs} runs: median {statistics.median(gaps):.2f} s, "
              f"max {max(gaps):.2f} s; acknowledged writes lost: {lost}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
