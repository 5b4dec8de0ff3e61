"""The embedded engine and the command line, as real processes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from memexd.errors import StartupError, StorageUnavailable
from memexd.graph.embedded import EmbeddedFalkor, responsive
from memexd.graph.falkordb import FalkorStore
from tests.processes import (
    CREATE_ITEMS,
    MEMEXD,
    alive,
    engine_pid,
    graphql,
    item_rows,
    serve,
    wait_dead,
)


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
    assert wait_dead(pid)
    assert not Path(sock).exists()


async def test_an_engine_that_never_answers_times_out_at_start(tmp_path: Path) -> None:
    """A start waits ``start_timeout_s`` (MEMEXD_ENGINE_START_TIMEOUT_S) for
    the engine to answer, then stops it and says so."""
    silent = tmp_path / "silent-engine"
    silent.write_text("#!/bin/sh\nexec sleep 60\n")
    silent.chmod(0o755)
    engine = EmbeddedFalkor(tmp_path / "data", server=silent, module=silent, start_timeout_s=0.5)
    with pytest.raises(StorageUnavailable, match="did not become ready in time"):
        await engine.start()
    pid = engine.pid
    assert pid is not None
    assert wait_dead(pid)


async def test_a_hung_engine_is_killed_restarted_and_a_schema_command_sent_again(
    tmp_path: Path,
) -> None:
    """An engine that stops answering (its process stopped: a deadlocked
    main thread looks the same from outside) is killed after ``hang_s`` and
    restarted; a schema command sent meanwhile is sent again and applied."""
    engine = EmbeddedFalkor(tmp_path, hang_s=1.0)
    store = FalkorStore.connect(unix_socket=await engine.start(), graph="g", engine=engine)
    try:
        hung = engine.pid
        assert hung is not None
        os.kill(hung, signal.SIGSTOP)
        await asyncio.wait_for(store.execute_ddl("CREATE INDEX FOR (n:Note) ON (n.topic)"), 60)
        assert engine.restarts == 1
        assert engine.pid != hung
        assert wait_dead(hung)
        indexes = await store.read("CALL db.indexes() YIELD label, properties RETURN *", {})
        assert [(i["label"], i["properties"]) for i in indexes] == [("Note", ["topic"])]
    finally:
        await store.close()


async def test_a_slow_engine_that_answers_is_left_alone(tmp_path: Path) -> None:
    """Busy is not hung: a ping that is answered keeps the engine alive."""
    engine = EmbeddedFalkor(tmp_path, hang_s=1.0)
    store = FalkorStore.connect(unix_socket=await engine.start(), graph="g", engine=engine)
    try:
        pid = engine.pid
        await store.write("UNWIND range(1, 300000) AS n CREATE (:Note {n: n})", {})
        await asyncio.sleep(2.5)  # two pings or more
        assert (engine.restarts, engine.pid) == (0, pid)
    finally:
        await store.close()


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
    assert alive(engine_pid)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert wait_dead(engine_pid), "the embedded engine outlived memexd"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    url, process = serve(tmp_path / "data")
    yield url, process, tmp_path / "data"
    if process.poll() is None:
        process.kill()
        process.wait()


def _create(url: str, n: int) -> list[str]:
    body = graphql(url, CREATE_ITEMS, i=item_rows(n))
    return [item["id"] for item in body["data"]["createItems"]["items"]]


def _count(url: str) -> int:
    return len(graphql(url, "{ items { id } }")["data"]["items"])


def test_serve_stops_its_engine_on_sigterm(
    served: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, process, data_dir = served
    assert httpx.get(f"{url}/graphql", headers={"accept": "text/html"}).status_code == 200
    _create(url, 3)
    engine = engine_pid(data_dir)
    process.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully, then re-raises the signal it caught
    assert process.wait(timeout=30) in (0, -signal.SIGTERM)
    assert wait_dead(engine)


def test_acknowledged_writes_survive_kill_9(
    served: tuple[str, subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    url, process, data_dir = served
    ids = [i for _ in range(20) for i in _create(url, 5)]
    os.kill(engine_pid(data_dir), signal.SIGKILL)  # the engine first, then memexd
    process.send_signal(signal.SIGKILL)
    process.wait()
    url, again = serve(data_dir)
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


async def test_the_watchdog_s_ping_cancelled_mid_way_ends_at_once(tmp_path: Path) -> None:
    """``stop()`` cancels the watchdog while its ping waits on an engine that
    says nothing: the cancellation ends it within a second or so, and
    closing the half-used connection raises nothing else."""
    silent = str(tmp_path / "silent.sock")
    held: list[asyncio.StreamWriter] = []

    async def accept(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # reads nothing, answers nothing

    server = await asyncio.start_unix_server(accept, path=silent)
    try:
        ping = asyncio.create_task(responsive(silent, 30.0))
        await asyncio.sleep(0.3)
        started = asyncio.get_running_loop().time()
        ping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await ping
        assert asyncio.get_running_loop().time() - started < 3.0
        assert not await responsive(silent, 0.5)  # silence is a hang
    finally:
        for writer in held:
            writer.close()
        server.close()


async def test_a_ping_connection_that_fails_to_close_fails_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As it happened at a suite's end: the watchdog cancelled mid-ping, and
    closing its connection timed out (redis-py raises its TimeoutError):
    stopping the engine must see the cancellation only."""
    silent = str(tmp_path / "silent.sock")

    async def accept(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(60)

    async def failing_close(self: redis.asyncio.Redis) -> None:
        raise redis.exceptions.TimeoutError("Timed out closing connection after 5")

    monkeypatch.setattr(redis.asyncio.Redis, "aclose", failing_close)
    server = await asyncio.start_unix_server(accept, path=silent)
    try:
        ping = asyncio.create_task(responsive(silent, 30.0))
        await asyncio.sleep(0.3)
        ping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await ping
    finally:
        server.close()


async def test_an_engine_slow_to_answer_is_not_hung(tmp_path: Path) -> None:
    """As it happened in CI: the engine took longer than redis-py's own
    timeout (5 s) to answer a ping (a slow fsync on a busy machine), but
    answered within the hang bound; it must not be killed for that."""
    sock = str(tmp_path / "slow.sock")

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(6.0)  # the main thread busy for a while, once
        while data := await reader.read(4096):
            lines = data.split(b"\r\n")
            names = [lines[i + 2].upper() for i, line in enumerate(lines) if line[:1] == b"*"]
            # no RESP3 here: redis-py falls back to RESP2 when HELLO is refused
            writer.write(b"".join(b"-ERR no\r\n" if n == b"HELLO" else b"+OK\r\n" for n in names))
            await writer.drain()

    server = await asyncio.start_unix_server(accept, path=sock)
    try:
        assert await responsive(sock, 20.0)
        assert not await responsive(sock, 2.0)  # past the bound, it is a hang
    finally:
        server.close()


async def test_a_stalled_event_loop_is_not_a_hung_engine(tmp_path: Path) -> None:
    """As it happened in CI: a test blocked the event loop past the hang
    bound while the watchdog's ping was in flight; the engine had answered
    at once and must not be taken for hung (and killed)."""
    engine = EmbeddedFalkor(tmp_path)
    sock = await engine.start()
    try:
        ping = asyncio.create_task(responsive(sock, 1.0))
        await asyncio.sleep(0)  # the ping is asked
        time.sleep(2.0)  # blocks this loop past the bound, as a CPU-bound test does
        assert await ping
    finally:
        await engine.stop()
