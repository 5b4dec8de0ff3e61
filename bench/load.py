"""Many clients at once: memexd under ``wrk`` beside the stack's own ceilings.

Run: ``.venv/bin/python bench/load.py [--engine falkordb neo4j] [--items 20000]
[--seconds 10] [--connections 8 32 128 512] [--workers N] [--json FILE]``
(needs ``wrk`` and ``redis-benchmark``: ``apt-get install wrk redis-tools``).

For each engine, a fresh ``memexd serve`` with its default settings (or
``--workers``) holds ``--items`` items; ``wrk`` then drives, at each number of
keep-alive connections, point reads (``item(id)`` of random ids), a filtered
top-10, ``createItem``, and a 90/10 mix of the two (each first run
``--warmup`` seconds uncounted: Neo4j's JIT and plan cache warm up), and prints req/s,
p50/p99/max latency and failures (503s, which the connection cap answers
promptly, are counted apart). In the same run, two anchors at 32
connections: a bare ASGI app on the same uvicorn/httptools/uvloop stack in
one process, answering a fixed body of the same size (measured before the
items go in: memexd then embeds them in the background, at low priority,
which would slow the anchor more than memexd), and the raw engine
answering the same point read (``redis-benchmark`` on FalkorDB's socket;
the official async driver on Neo4j). CPU per request is memexd's serving,
the engine's, and memexd's background embedding (its threads at nice 19)
apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import neo4j
from _common import GRAPH_NAME, MemexdServer, item_inputs, load_items
from _targets import engine_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.neo4j_server import Neo4jServer
from tests.processes import cmdline, descendants, free_port

HERE = Path(__file__).resolve().parent
WORKLOADS = ("point", "top10", "create", "mix")
ITEM = "query($id: ID!) { item(id: $id) { id scope kind content authority createdAt } }"
TOP10 = ("query($f: MemoryFilter) { items(filter: $f, sort: [{field: AUTHORITY, order: DESC}], "
         "limit: 10) { id authority } }")  # fmt: skip
TOP10_FILTER = {"scopePrefix": "org/acme/", "kind": "decision"}
CREATE = "mutation($i: MemoryItemInput!) { createItem(input: $i) { item { id } } }"
RAW_ITEM = (
    "MATCH (n:Item {id: $id}) RETURN n.id, n.scope, n.kind, n.content, n.authority, n.created_at"
)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", nargs="+", default=["falkordb", "neo4j"])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--seconds", type=int, default=10, help="per wrk run")
    parser.add_argument("--connections", type=int, nargs="+", default=[8, 32, 128, 512])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    parser.add_argument("--workers", type=int, help="MEMEXD_WORKERS (default: memexd's)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--warmup", type=int, default=5,
                        help="seconds of each workload run first, not counted (Neo4j's JIT "
                             "and plan cache warm up)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args()


# ------------------------------------------------------------------ wrk


LUA = r"""
local ids = {IDS}
local bodies = {
  point = function() return '{"query":' .. {ITEM} .. ',"variables":{"id":"' ..
    ids[math.random(#ids)] .. '"}}' end,
  top10 = function() return {TOP10_BODY} end,
  create = function()
    counter = counter + 1
    return '{"query":' .. {CREATE} .. ',"variables":{"i":{"scope":"load/w","kind":"k",' ..
      '"content":{"n":' .. counter .. ',"t":' .. tid .. '},"author":"bench",' ..
      '"sourceKind":"load","authority":0.5}}}' end,
}
bodies.mix = function()
  if math.random() < 0.9 then return bodies.point() end
  return bodies.create()
end
local make = bodies["{WORKLOAD}"]
local threads = {}
counter = 0
tid = 0
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end
function init(args)
  statuses = {}
  math.randomseed(os.time() + tid * 7919)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  return wrk.format(nil, nil, nil, make())
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 200 and string.find(body, '"errors"', 1, true) then
    statuses["graphql-error"] = (statuses["graphql-error"] or 0) + 1
  end
end
function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for k, v in pairs(thread:get("statuses")) do
      total[tostring(k)] = (total[tostring(k)] or 0) + v
    end
  end
  local parts = {}
  for k, v in pairs(total) do table.insert(parts, '"' .. k .. '":' .. v) end
  io.write("STATUSES {" .. table.concat(parts, ",") .. "}\n")
  io.write(string.format("LATENCY %d %d %d %d\n", latency:percentile(50),
    latency:percentile(99), latency.max, summary.requests))
  local e = summary.errors
  io.write(string.format("ERRORS %d %d %d %d %d\n", e.connect, e.read, e.write, e.timeout,
    e.status))
end
"""


def _lua(workload: str, ids: list[str], folder: Path) -> Path:
    def lua_string(text: str) -> str:
        return "[==[" + json.dumps(text) + "]==]"

    top10 = json.dumps({"query": TOP10, "variables": {"f": TOP10_FILTER}})
    script = (LUA.replace("{IDS}", "{" + ",".join(f'"{i}"' for i in ids) + "}")
              .replace("{ITEM}", lua_string(ITEM)).replace("{CREATE}", lua_string(CREATE))
              .replace("{TOP10_BODY}", "[==[" + top10 + "]==]")
              .replace("{WORKLOAD}", workload))  # fmt: skip
    path = folder / f"{workload}.lua"
    path.write_text(script)
    return path


def wrk(url: str, script: Path, connections: int, seconds: int, threads: int) -> dict[str, Any]:
    """One ``wrk`` run: req/s, p50/p99/max (ms), 503s and other failures."""
    argv = ["wrk", f"-t{min(threads, connections)}", f"-c{connections}", f"-d{seconds}s",
            "--timeout", "10s", "-s", str(script), url]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    statuses = json.loads(_line(out, "STATUSES"))
    p50, p99, top, requests = (int(x) for x in _line(out, "LATENCY").split())
    connect, read, write, timeout, _ = (int(x) for x in _line(out, "ERRORS").split())
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    unavailable = statuses.get("503", 0)
    failed = requests - statuses.get("200", 0) - unavailable + statuses.get("graphql-error", 0)
    return {"req_s": rate, "p50_ms": p50 / 1000, "p99_ms": p99 / 1000, "max_ms": top / 1000,
            "requests": requests, "503": unavailable, "failed": failed,
            "socket_errors": connect + read + write + timeout}  # fmt: skip


def _line(out: str, tag: str) -> str:
    for line in out.splitlines():
        if line.startswith(tag + " "):
            return line[len(tag) + 1 :]
    raise RuntimeError(f"wrk printed no {tag} line:\n{out}")


# ------------------------------------------------------------------ CPU


def _stat(path: str) -> list[str]:
    try:
        return Path(path).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _cpu_s(fields: list[str]) -> float:
    if not fields:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _background_s(pid: int) -> float:
    """CPU seconds of ``pid``'s threads at nice 19: memexd's embedding."""
    tasks = Path(f"/proc/{pid}/task")
    with contextlib.suppress(OSError):
        stats = [_stat(str(t / "stat")) for t in tasks.iterdir()]
        return sum(_cpu_s(f) for f in stats if f and int(f[16]) == 19)
    return 0.0


class Cpu:
    """CPU seconds spent serving by memexd's processes, by its background
    embedding (threads at nice 19), and by the engine."""

    def __init__(self, server: MemexdServer, neo: Neo4jServer | None) -> None:
        self.server, self.neo = server, neo

    def now(self) -> tuple[float, float, float]:
        memexd = embedding = engine = 0.0
        for pid in descendants(self.server.process.pid):
            spent = _cpu_s(_stat(f"/proc/{pid}/stat"))
            if b"redis-server" in cmdline(pid):
                engine += spent
            else:
                background = _background_s(pid)
                memexd += spent - background
                embedding += background
        if self.neo is not None:
            engine += sum(_cpu_s(_stat(f"/proc/{p}/stat")) for p in descendants(self.neo.pid))
        return memexd, embedding, engine


# ------------------------------------------------------------------ anchors


@contextmanager
def bare_app(body_size: int) -> Iterator[str]:
    """A bare ASGI app on memexd's stack, one process, a fixed JSON body."""
    port = free_port()
    argv = [sys.executable, str(HERE / "_bare.py"), str(port), str(body_size)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.post(url, content=b"{}")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait()


def redis_benchmark(socket_path: str, item_id: str, connections: int, requests: int) -> float:
    """The raw engine's point reads per second (``GRAPH.RO_QUERY``)."""
    query = f"CYPHER id='{item_id}' {RAW_ITEM}"
    argv = ["redis-benchmark", "-s", socket_path, "-c", str(connections), "-n", str(requests),
            "--csv", "GRAPH.RO_QUERY", GRAPH_NAME, query, "--compact"]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rows = [r for r in csv.reader(out.splitlines()) if r and r[0] != "test"]
    return float(rows[-1][1])


async def driver_reads(neo: Neo4jServer, ids: list[str], connections: int, seconds: float
                       ) -> float:  # fmt: skip
    """The raw engine's point reads per second over the official async driver."""
    async with neo4j.AsyncGraphDatabase.driver(
        neo.uri, auth=(neo.user, neo.password), max_connection_pool_size=connections
    ) as driver:
        done = 0
        stop = time.monotonic() + seconds

        async def reader() -> None:
            nonlocal done
            rng = random.Random()
            while time.monotonic() < stop:
                await driver.execute_query(RAW_ITEM, id=rng.choice(ids),
                                           routing_=neo4j.RoutingControl.READ)  # fmt: skip
                done += 1

        start = time.monotonic()
        await asyncio.gather(*(reader() for _ in range(connections)))
        return done / (time.monotonic() - start)


# ------------------------------------------------------------------ the run


def seed(server: MemexdServer, inputs: list[dict[str, Any]]) -> list[str]:
    with httpx.Client(base_url=server.base_url, timeout=300) as client:
        load_items(client, inputs, 1_000)
    return [i["id"] for i in random.Random(8).sample(inputs, min(2_000, len(inputs)))]


def run_engine(engine: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    env = {"MEMEXD_LOG_LEVEL": "warning"}
    if args.workers:
        env["MEMEXD_WORKERS"] = str(args.workers)
    report: dict[str, Any] = {"engine": engine, "items": args.items, "runs": {}}
    inputs = item_inputs(args.items, random.Random(7))
    with engine_server(engine, folder, env) as (server, neo):
        # the bare app runs first, while memexd is idle: once items are in,
        # memexd embeds them in the background (at low priority) for minutes
        seed(server, inputs[:1])
        ids = [inputs[0]["id"]]
        body = httpx.post(f"{server.base_url}/graphql",
                          json={"query": ITEM, "variables": {"id": ids[0]}}).content  # fmt: skip
        scripts = {w: _lua(w, ids, folder) for w in WORKLOADS}
        with bare_app(len(body)) as bare:
            anchor = wrk(bare, scripts["point"], 32, args.seconds, args.threads)
        report["bare_asgi@32"] = anchor
        print(_row("bare ASGI", "fixed", 32, anchor), flush=True)
        ids = seed(server, inputs[1:])
        url = f"{server.base_url}/graphql"
        scripts = {w: _lua(w, ids, folder) for w in WORKLOADS}
        cpu = Cpu(server, neo)
        for workload in args.workloads:
            if args.warmup:
                wrk(url, scripts[workload], max(args.connections), args.warmup, args.threads)
            for connections in args.connections:
                before = cpu.now()
                figures = wrk(url, scripts[workload], connections, args.seconds, args.threads)
                spent = [b - a for a, b in zip(before, cpu.now(), strict=True)]
                done = max(figures["requests"], 1)
                figures["memexd_cpu_us"] = spent[0] / done * 1e6
                figures["embedding_cpu_us"] = spent[1] / done * 1e6
                figures["engine_cpu_us"] = spent[2] / done * 1e6
                report["runs"][f"{workload}@{connections}"] = figures
                print(_row(engine, workload, connections, figures), flush=True)
        if neo is None:
            raw = redis_benchmark(server.socket, ids[0], 32, 200_000)
            label = "redis-benchmark"
        else:
            raw = asyncio.run(driver_reads(neo, ids, 32, args.seconds))
            label = "neo4j async driver"
        report["raw_engine@32"] = {"req_s": raw, "by": label}
        print(f"{engine:9} raw engine point reads @32 ({label}): {raw:,.0f}/s", flush=True)
    point = report["runs"].get("point@32")
    if point:
        report["point@32 / bare"] = point["req_s"] / anchor["req_s"]
    for figures in report["runs"].values():
        figures["p99/p50"] = figures["p99_ms"] / max(figures["p50_ms"], 1e-3)
    return report


def _row(engine: str, workload: str, connections: int, f: dict[str, Any]) -> str:
    return (f"{engine:9} {workload:6} @{connections:<4} {f['req_s']:9,.0f} req/s  "
            f"p50 {f['p50_ms']:7.1f} ms  p99 {f['p99_ms']:7.1f} ms  max {f['max_ms']:7.1f} ms  "
            f"503 {f['503']:6}  failed {f['failed']}"
            + (f"  CPU/req: memexd {f['memexd_cpu_us']:4.0f} us, "
               f"engine {f['engine_cpu_us']:4.0f} us, embedding "
               f"{f['embedding_cpu_us']:4.0f} us" if "memexd_cpu_us" in f else ""))  # fmt: skip


def main() -> None:
    args = _args()
    reports = []
    with tempfile.TemporaryDirectory(prefix="mxl-", dir="/tmp") as tmp:
        for engine in args.engine:
            reports.append(run_engine(engine, args, Path(tmp)))
    print()
    for report in reports:
        ratio = report.get("point@32 / bare")
        print(f"{report['engine']}: point reads @32 / bare ASGI @32 = "
              f"{ratio:.3f} (target >= 0.16)" if ratio else report["engine"])  # fmt: skip
        for key in ("point@128", "mix@128"):
            if key in report["runs"]:
                print(f"  {key}: p99/p50 = {report['runs'][key]['p99/p50']:.1f} (target <= 5)")
        for name, figures in report["runs"].items():
            if name.endswith("@512"):
                print(f"  {name}: failed {figures['failed']} (503s: {figures['503']}; "
                      "target: no failure but 503)")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
