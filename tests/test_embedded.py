"""The embedded engine and the command line, as real processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from memexd.errors import StartupError
from memexd.graph.embedded import EmbeddedFalkor

MEMEXD = [sys.executable, "-m", "memexd.cli"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie has exited; it only waits for its parent to reap it
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def _wait_dead(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_engine_settings_and_clean_stop(tmp_path: Path) -> None:
    engine = EmbeddedFalkor(tmp_path, fsync="always", timeout_ms=1234, memory_mb=64)
    sock = await engine.start()
    client = redis.Redis(unix_socket_path=sock, decode_responses=True)
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert client.config_get("appendfsync") == {"appendfsync": "always"}
    config = dict(client.execute_command("GRAPH.CONFIG", "GET", "*"))
    assert (config["TIMEOUT_MAX"], config["TIMEOUT_DEFAULT"]) == (1234, 1234)
    assert config["QUERY_MEM_CAPACITY"] == 64 * 1024 * 1024
    with pytest.raises(StartupError, match="in use by another memexd"):
        await EmbeddedFalkor(tmp_path, lock_wait_s=0).start()
    pid = engine.pid
    assert pid is not None
    await engine.stop()
    assert _wait_dead(pid)
    assert not Path(sock).exists()


def test_fsync_setting_is_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="MEMEXD_FSYNC"):
        EmbeddedFalkor(tmp_path, fsync="never")


def test_long_data_dirs_get_a_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(EmbeddedFalkor(deep).socket) <= 100


def test_engine_dies_with_a_killed_parent(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from memexd.graph.embedded import EmbeddedFalkor\n"
        "async def main():\n"
        f"    e = EmbeddedFalkor(Path({str(tmp_path)!r}))\n"
        "    await e.start()\n"
        "    print(e.pid, flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    engine_pid = int(parent.stdout.readline())
    assert _alive(engine_pid)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert _wait_dead(engine_pid), "the embedded engine outlived memexd"


def _serve(data_dir: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """``memexd serve`` on a free port, once it answers its health check."""
    port = _free_port()
    env = {**os.environ, "MEMEXD_FSYNC": "always"}
    argv = [*MEMEXD, "serve", "--port", str(port), "--data-dir", str(data_dir)]
    process = subprocess.Popen(argv, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    return url, process


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    url, process = _serve(tmp_path / "data")
    yield url, process, tmp_path / "data"
    if process.poll() is None:
        process.kill()
        process.wait()


def _create(url: str, n: int) -> list[str]:
    query = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
    rows = [{"scope": "s", "kind": "k", "content": {"i": i}, "author": "a", "sourceKind": "o",
             "authority": 0.5} for i in range(n)]  # fmt: skip
    body = httpx.post(f"{url}/graphql", json={"query": query, "variables": {"i": rows}}).json()
    return [item["id"] for item in body["data"]["createItems"]["items"]]


def _count(url: str) -> int:
    body = httpx.post(f"{url}/graphql", json={"query": "{ items { id } }"}).json()
    return len(body["data"]["items"])


def _engine_pid(data_dir: Path) -> int:
    client = redis.Redis(unix_socket_path=str(data_dir / "falkordb.sock"))
    return int(client.info("server")["process_id"])


def test_serve_stops_its_engine_on_sigterm(
    served: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, process, data_dir = served
    assert httpx.get(f"{url}/graphql", headers={"accept": "text/html"}).status_code == 200
    _create(url, 3)
    engine_pid = _engine_pid(data_dir)
    process.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully, then re-raises the signal it caught
    assert process.wait(timeout=30) in (0, -signal.SIGTERM)
    assert _wait_dead(engine_pid)


def test_acknowledged_writes_survive_kill_9(
    served: tuple[str, subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    url, process, data_dir = served
    ids = [i for _ in range(20) for i in _create(url, 5)]
    os.kill(_engine_pid(data_dir), signal.SIGKILL)  # the engine first, then memexd
    process.send_signal(signal.SIGKILL)
    process.wait()
    url, again = _serve(data_dir)
    try:
        assert _count(url) == len(ids) == 100
    finally:
        again.terminate()
        again.wait(timeout=30)


def test_migrate_command(tmp_path: Path) -> None:
    run = [*MEMEXD, "migrate", "--data-dir", str(tmp_path)]
    first = subprocess.run(run, capture_output=True, text=True, check=True, timeout=60)
    assert "applied 0001_indexes" in first.stdout
    assert "applied 0003_counters" in first.stdout
    second = subprocess.run(run, capture_output=True, text=True, check=True, timeout=60)
    assert second.stdout.strip() == "no pending migrations"
