"""Helpers for tests that run memexd and its engine as real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import redis

from tests.engines import Engine

MEMEXD = [sys.executable, "-m", "memexd.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie has exited; it only waits for its parent to reap it
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (every thread's)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    return [pid] + [d for c in children(pid) for d in descendants(c)]


def cmdline(pid: int) -> bytes:
    """The command line of ``pid`` (empty once it has gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def wait_dead(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def serve(
    data_dir: Path, *args: str, port: int | None = None, engine: Engine | None = None, **env: str
) -> tuple[str, subprocess.Popen[bytes]]:
    """``memexd serve`` on a free port, once it answers its health check; on
    ``engine`` (default: the embedded FalkorDB under ``data_dir``)."""
    port = port or free_port()
    environ = environment(engine, **{"MEMEXD_FSYNC": "always", **env})
    argv = [*MEMEXD, "serve", "--port", str(port), "--data-dir", str(data_dir), *args]
    process = subprocess.Popen(argv, env=environ, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, process)
    return url, process


def wait_healthy(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> bool:
    """Whether memexd at ``url`` answered its health check before it exited
    or ``seconds`` passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return True
        except httpx.TransportError:
            time.sleep(0.1)
    return False


def environment(engine: Engine | None = None, **env: str) -> dict[str, str]:
    """The environment for a memexd process on ``engine`` (default: embedded)."""
    return {**os.environ, **(engine.env() if engine else {}), **env}


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def engine_pid(data_dir: Path) -> int:
    client = redis.Redis(unix_socket_path=str(data_dir / "falkordb.sock"))
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def graphql(url: str, query: str, **variables: Any) -> dict[str, Any]:
    response = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = response.json()
    return body


CREATE_ITEMS = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"


def item_rows(n: int, **fields: Any) -> list[dict[str, Any]]:
    return [{"scope": "s", "kind": "k", "content": {"i": i}, "author": "a", "sourceKind": "o",
             "authority": 0.5, **fields} for i in range(n)]  # fmt: skip
