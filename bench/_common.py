"""Shared benchmark helpers: a memexd server process, a raw FalkorDB client,
realistic item rows and small statistics.

The server is ``memexd serve`` in a subprocess with a fresh temporary data
directory under /tmp (short enough for the engine's unix socket), so the raw
client can talk to the very same embedded FalkorDB.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from falkordb.asyncio import FalkorDB
from falkordb.asyncio.graph import AsyncGraph

from memexd.graph.falkordb_wire import encode_params
from memexd.ids import id_key, new_id, timestamp_ms
from memexd.memory.model import Item
from memexd.memory.records import item_props

__all__ = [
    "CREATE_ITEMS",
    "GRAPH_NAME",
    "Latencies",
    "MemexdServer",
    "batches",
    "check_graphql",
    "graphql",
    "item_inputs",
    "json_body",
    "keep_alive",
    "load_items",
    "memexd_server",
    "percentile",
    "raw_client",
    "raw_query",
    "stored_props",
]

GRAPH_NAME = "memexd"
#: One batch of items through GraphQL, selecting only the ids.
CREATE_ITEMS = """
mutation CreateItems($inputs: [MemoryItemInput!]!) {
  createItems(inputs: $inputs) { items { id } }
}
"""
_MEMEXD = Path(sys.executable).with_name("memexd")
#: how long a server may take to start (a million-item data dir applying a
#: migration takes longer: BENCH_START_S)
_START_TIMEOUT = float(os.environ.get("BENCH_START_S", "120"))
_STOP_TIMEOUT = 30.0


# --------------------------------------------------------------------------- server


@dataclass(frozen=True, slots=True)
class MemexdServer:
    base_url: str
    data_dir: Path
    process: subprocess.Popen[bytes]

    @property
    def socket(self) -> str:
        """The embedded engine's unix socket (the data dir is short enough)."""
        return str(self.data_dir / "falkordb.sock")

    @property
    def log_file(self) -> Path:
        return self.data_dir / "memexd.log"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def memexd_server(
    graph: str = GRAPH_NAME, keep: Path | None = None, **settings: str
) -> Iterator[MemexdServer]:
    """Run ``memexd serve`` on a free port and a temp data dir; stop it after.
    ``keep``: that data dir instead, kept afterwards (a long load measured
    again later; the engine's socket lives there, so keep its path short).
    ``settings``: extra ``MEMEXD_*`` variables."""
    if keep is None:
        data_dir = Path(tempfile.mkdtemp(prefix="mxb-", dir="/tmp")).resolve()
    else:
        data_dir = keep.resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {**os.environ, "MEMEXD_GRAPH_NAME": graph, **settings}
    if keep is not None:  # a kept load replays its append-only file first
        env.setdefault("MEMEXD_ENGINE_START_TIMEOUT_S", "3600")
    argv = [str(_MEMEXD), "serve", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--data-dir", str(data_dir)]
    with (data_dir / "memexd.log").open("ab") as log:
        process = subprocess.Popen(
            argv, cwd=data_dir, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    server = MemexdServer(f"http://127.0.0.1:{port}", data_dir, process)
    try:
        _wait_healthy(server, _START_TIMEOUT if keep is None else 30 * _START_TIMEOUT)
        yield server
    finally:
        _stop(server)
        if keep is None:
            shutil.rmtree(data_dir, ignore_errors=True)


def _wait_healthy(server: MemexdServer, timeout: float = _START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"memexd exited at start:\n{_tail(server.log_file)}")
        try:
            if httpx.get(f"{server.base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"memexd not healthy after {timeout:.0f} s:\n{_tail(server.log_file)}")


def _stop(server: MemexdServer) -> None:
    """SIGTERM memexd (it stops its engine), then make sure the engine is gone."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    leftover = _wait_engine_gone(server.data_dir)
    for pid in leftover:
        os.kill(pid, signal.SIGTERM)
    if leftover:
        print(f"warning: engine pids {leftover} outlived memexd; sent SIGTERM", file=sys.stderr)


def _engine_pids(data_dir: Path) -> list[int]:
    """Pids of live redis-server processes working in this data dir (``--dir``)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if name == "redis-server" and state != "Z" and cwd == data_dir:
            pids.append(int(entry.name))
    return pids


def _wait_engine_gone(data_dir: Path, grace: float = _STOP_TIMEOUT) -> list[int]:
    deadline = time.monotonic() + grace
    while (pids := _engine_pids(data_dir)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pids


def _tail(path: Path, chars: int = 2000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)"


# --------------------------------------------------------------------------- clients


def graphql(client: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    """POST one GraphQL request; return ``data`` or raise on errors."""
    return check_graphql(client.post("/graphql", json={"query": query, "variables": variables}))


def check_graphql(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"GraphQL failed ({response.status_code}): {body.get('errors')}")
    data: dict[str, Any] = body["data"]
    return data


@asynccontextmanager
async def raw_client(server: MemexdServer) -> AsyncIterator[FalkorDB]:
    """A plain falkordb asyncio client on the server's embedded engine."""
    db = FalkorDB(unix_socket_path=server.socket)
    try:
        yield db
    finally:
        await db.connection.aclose()


async def raw_query(
    graph: AsyncGraph, text: str, params: dict[str, Any] | None = None, *, read_only: bool = False
) -> list[list[Any]]:
    """Run Cypher with parameters sent the way memexd sends them (``CYPHER …`` header)."""
    query = encode_params(params or {}) + text
    result = await (graph.ro_query(query) if read_only else graph.query(query))
    rows: list[list[Any]] = result.result_set
    return rows


# --------------------------------------------------------------------------- data

_TEAMS = ("core", "search", "infra", "research")
_SCOPES = [f"org/acme/{t}/{p}" for t in _TEAMS for p in ("alpha", "beta", "gamma", "delta")]
_KINDS = ["fact", "observation", "decision", "hypothesis", "summary", "preference"]
_AUTHORS = ["agent:planner", "agent:researcher", "agent:coder", "user:alice", "user:bob"]
_SOURCE_KINDS = ["agent", "user", "tool", "document"]
_WORDS = [
    "the", "service", "retries", "failed", "writes", "with", "backoff", "while", "index",
    "rebuild", "runs", "nightly", "and", "latency", "budgets", "stay", "under", "target",
    "for", "most", "regions", "except", "eu",
]  # fmt: skip


def item_inputs(count: int, rng: random.Random) -> list[dict[str, Any]]:
    """GraphQL ``MemoryItemInput`` objects with client-chosen UUIDv7 ids.

    About a third of the items list one or two parents among earlier items.
    """
    inputs: list[dict[str, Any]] = []
    for i in range(count):
        parents = _parents(inputs, rng) if i and rng.random() < 1 / 3 else []
        inputs.append(_input(new_id(), parents, rng))
    return inputs


def _parents(earlier: list[dict[str, Any]], rng: random.Random) -> list[str]:
    picks = {rng.randrange(len(earlier)) for _ in range(rng.choice((1, 2)))}
    return [earlier[p]["id"] for p in sorted(picks)]


def _input(item_id: str, parents: list[str], rng: random.Random) -> dict[str, Any]:
    text = " ".join(rng.choices(_WORDS, k=rng.randint(8, 20)))
    meta: dict[str, Any] = {"env": rng.choice(("prod", "staging")), "session": rng.randrange(500)}
    if rng.random() < 0.5:
        meta["tags"] = rng.sample(["latency", "billing", "search", "infra", "ux"], 2)
    return {
        "id": item_id,
        "scope": rng.choice(_SCOPES),
        "kind": rng.choice(_KINDS),
        "content": {"text": text, "lang": "en", "tokens": len(text.split())},
        "author": rng.choice(_AUTHORS),
        "sourceKind": rng.choice(_SOURCE_KINDS),
        "parents": parents,
        "authority": round(rng.random(), 3),
        "conviction": round(rng.random(), 3),
        "importance": round(rng.random(), 3),
        "meta": meta,
    }


def stored_props(row: dict[str, Any]) -> dict[str, Any]:
    """The node property map memexd stores for this input: ``records.item_props``
    and what the creating statement adds (the scope root, the id key)."""
    item = Item(
        id=row["id"],
        scope=row["scope"],
        kind=row["kind"],
        content=row["content"],
        author=row["author"],
        source_kind=row["sourceKind"],
        authority=float(row["authority"]),
        created_at=timestamp_ms(row["id"]),
        parents=tuple(row["parents"]),
        conviction=row["conviction"],
        importance=row["importance"],
        meta=row["meta"],
    )
    root = row["scope"].split("/", 1)[0]
    return item_props(item) | {"scope_root": root, "id_key": id_key(row["id"])}


def batches(rows: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def json_body(query: str, variables: dict[str, Any]) -> bytes:
    return json.dumps({"query": query, "variables": variables}).encode()


# --------------------------------------------------------------------------- stats


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass(frozen=True, slots=True)
class Latencies:
    """One side's timings, in ms."""

    label: str
    ms: list[float]

    def pct(self, pct: float) -> float:
        return percentile(sorted(self.ms), pct)

    @property
    def p50(self) -> float:
        return self.pct(50)

    @property
    def mean(self) -> float:
        return sum(self.ms) / len(self.ms)


# --------------------------------------------------------------------------- HTTP


def load_items(client: httpx.Client, inputs: Sequence[dict[str, Any]], batch: int) -> None:
    """Create ``inputs`` through ``createItems`` in batches; fail on a short one."""
    for chunk in batches(inputs, batch):
        data = graphql(client, CREATE_ITEMS, {"inputs": list(chunk)})
        if len(data["createItems"]["items"]) != len(chunk):
            raise RuntimeError("createItems returned a short batch")


def keep_alive(server: MemexdServer, timeout: float = 60) -> http.client.HTTPConnection:
    """A keep-alive standard-library connection to the server (httpx adds
    ~0.3 ms a request, which would blur the figures)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=timeout)


def post_items(client: httpx.Client, rows: Sequence[dict[str, Any]]) -> float:
    """Create ``rows`` through ``POST /items`` (NDJSON, 20,000 a request);
    return the seconds it took."""
    started = time.perf_counter()
    for chunk in batches(rows, 20_000):
        body = b"".join(json.dumps(row).encode() + b"\n" for row in chunk)
        answer = client.post("/items", content=body,
                             headers={"content-type": "application/x-ndjson"})  # fmt: skip
        answer.raise_for_status()
    return time.perf_counter() - started


def post_graphql(conn: http.client.HTTPConnection, query: str,
                 variables: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """One GraphQL request on a keep-alive connection; its data (errors raise)."""
    conn.request("POST", "/graphql", json_body(query, variables),
                 {"content-type": "application/json"})  # fmt: skip
    body: dict[str, Any] = json.loads(conn.getresponse().read())
    if body.get("errors"):
        raise RuntimeError(body["errors"])
    data: dict[str, Any] = body["data"]
    return data
