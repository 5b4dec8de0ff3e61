"""Faults: engine death, contention, two servers on one data directory,
start-up mistakes, internal errors. Every new operation's failure modes go here."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio

from memexd.errors import Overloaded
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.gate import one_wait
from memexd.graph.neo4j import Neo4jStore
from memexd.server.app import create_app
from memexd.settings import Settings
from memexd.types import GraphStore
from tests import processes as proc
from tests.neo4j_server import Neo4jServer
from tests.support import Api

# ---------------------------------------------------------------- the engine dies


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    data_dir = tmp_path / "data"
    url, process = proc.serve(data_dir)
    yield url, process, data_dir
    proc.stop(process)


def test_engine_death_during_a_write_stream(
    served: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    """Writes resume after the engine is killed, and every acknowledged one is there."""
    url, process, data_dir = served
    acknowledged: list[str] = []
    failures: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        while not stop.is_set():
            body = proc.graphql(url, proc.CREATE_ITEMS, i=proc.item_rows(5))
            if body.get("errors"):
                failures.extend(e["extensions"]["code"] for e in body["errors"])
            else:
                acknowledged.extend(x["id"] for x in body["data"]["createItems"]["items"])

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.5)
    before_kill = len(acknowledged)
    old = proc.engine_pid(data_dir)
    os.kill(old, signal.SIGKILL)
    time.sleep(2.0)
    stop.set()
    thread.join(timeout=30)
    assert before_kill > 0
    assert len(acknowledged) > before_kill + 5, "writes did not resume"
    assert proc.engine_pid(data_dir) != old
    assert set(failures) <= {"UNAVAILABLE"}, failures  # in flight at the kill: not acknowledged
    found = proc.graphql(
        url, "query($f: MemoryFilter) { items(filter: $f, limit: 10000) { id } }",
        f={"scope": "s"},
    )["data"]["items"]  # fmt: skip
    assert set(acknowledged) <= {x["id"] for x in found}
    assert httpx.get(f"{url}/healthz").status_code == 200
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    assert process.stderr is not None
    log = process.stderr.read().decode()
    assert "embedded FalkorDB exited (killed by signal SIGKILL)" in log
    assert "restarted" in log


def test_restarts_leave_no_critical_lines_in_the_engine_log(tmp_path: Path) -> None:
    """FalkorDB logs each constraint command twice in its AOF; replaying the
    copy used to log CRITICAL at every start."""
    data_dir = tmp_path / "data"
    for _ in range(2):
        done = subprocess.run(
            [*proc.MEMEXD, "migrate", "--data-dir", str(data_dir)],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        assert done.returncode == 0
    log = (data_dir / "falkordb.log").read_text()
    assert "CRITICAL" not in log


# ---------------------------------------------------------------- one data directory


def test_a_second_server_on_the_same_data_directory_refuses(
    served: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, process, data_dir = served
    second = subprocess.run(
        [*proc.MEMEXD, "serve", "--port", str(proc.free_port()), "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert second.returncode == 2
    lines = second.stderr.strip().splitlines()
    assert lines == [f"memexd: data directory {data_dir} is in use by another memexd "
                     f"(pid {process.pid})"]  # fmt: skip
    assert httpx.get(f"{url}/healthz").status_code == 200  # the first one is untouched


# ---------------------------------------------------------------- start-up mistakes


def _start(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    argv = [*proc.MEMEXD, "serve", "--data-dir", str(tmp_path / "data"), *args]
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env={**os.environ, **env}
    )


def _one_line(done: subprocess.CompletedProcess[str], says: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("memexd: ")
    assert says in lines[0]
    assert "Traceback" not in done.stderr


def test_start_up_mistakes_are_one_line_each(tmp_path: Path) -> None:
    port = str(proc.free_port())
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", int(port)))
        busy.listen()
        _one_line(_start(tmp_path, "--port", port), f"port {port} on 127.0.0.1 is already in use")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = subprocess.run(
        [*proc.MEMEXD, "serve", "--port", port, "--data-dir", str(blocker / "sub")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    _one_line(done, "cannot use data directory")
    _one_line(_start(tmp_path, "--port", port, MEMEXD_ENGINE_SERVER="/nowhere/redis-server"),
              "no FalkorDB server program at /nowhere/redis-server")  # fmt: skip
    _one_line(_start(tmp_path, "--graph-uri", "mysql://u:hunter2@db/x"), "unsupported scheme")
    _one_line(_start(tmp_path, "--port", port, "--graph-uri", f"falkor://127.0.0.1:{port}"),
              f"cannot reach falkor://127.0.0.1:{port}")  # fmt: skip
    _one_line(_start(tmp_path, MEMEXD_PORT="-1"), "MEMEXD_PORT")
    _one_line(_start(tmp_path, MEMEXD_LOG_LEVEL="loud"), "MEMEXD_LOG_LEVEL")
    _one_line(_start(tmp_path, MEMEXD_MAX_PAGE="many"), "MEMEXD_MAX_PAGE")
    _one_line(_start(tmp_path, "--workers", "0"), "MEMEXD_WORKERS")
    _one_line(_start(tmp_path, MEMEXD_WORKERS="65"), "MEMEXD_WORKERS")
    secret = _start(tmp_path, "--graph-uri", "bolt://neo4j:hunter2@127.0.0.1:notaport")
    _one_line(secret, "MEMEXD_GRAPH_URI")
    assert "hunter2" not in secret.stderr


def test_served_connections_are_guarded(tmp_path: Path) -> None:
    """``memexd serve`` itself drops clients that never finish their headers."""
    url, process = proc.serve(tmp_path / "data", MEMEXD_HEADER_TIMEOUT_S="0.5")
    try:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as idle:
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the rest
            started = time.monotonic()
            answer = idle.recv(1024)
            assert answer.startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 3
        assert httpx.get(f"{url}/healthz").status_code == 200
    finally:
        proc.stop(process)


# ---------------------------------------------------------------- contention


StoreFactory = Callable[[int, int], GraphStore]


@pytest.fixture
def pooled(
    backend: str, engine: EmbeddedFalkor, store: GraphStore, request: pytest.FixtureRequest
) -> StoreFactory:
    """Factory: a store on the test's (empty) graph with its own pool size and wait."""
    if backend == "neo4j":
        server: Neo4jServer = request.getfixturevalue("neo4j")
        return lambda size, wait: Neo4jStore.connect(
            server.uri, user=server.user, password=server.password,
            pool_size=size, pool_wait_ms=wait,
        )  # fmt: skip
    graph = f"g_{uuid.uuid4().hex}"
    return lambda size, wait: FalkorStore.connect(
        unix_socket=engine.socket, graph=graph, pool_size=size, pool_wait_ms=wait
    )


async def test_hundreds_of_concurrent_requests_queue_for_connections(
    pooled: StoreFactory,
) -> None:
    """More queries in flight than connections wait their turn (the pool
    raised at 64 in flight before); past the wait, a clear UNAVAILABLE."""
    responses = await _burst(pooled(4, 30_000), 300)
    assert [r.json() for r in responses] == [{"data": {"items": []}}] * 300


async def test_a_full_pool_answers_unavailable(pooled: StoreFactory) -> None:
    responses = await _burst(pooled(1, 0), 50)
    codes = {e["extensions"]["code"] for r in responses for e in r.json().get("errors", [])}
    assert codes == {"UNAVAILABLE"}
    messages = {e["message"] for r in responses for e in r.json().get("errors", [])}
    assert messages == {
        "every connection to the graph engine is busy (MEMEXD_POOL_SIZE); try again"
    }
    assert any("errors" not in r.json() for r in responses)
    # more work than the server can do: 503, and when to come back
    refused = [r for r in responses if "errors" in r.json()]
    assert {(r.status_code, r.headers["retry-after"]) for r in refused} == {(503, "1")}
    assert {r.status_code for r in responses if r not in refused} == {200}


async def test_a_request_of_many_queries_waits_once_in_all(pooled: StoreFactory) -> None:
    """The pool wait is the request's, not each query's: one that needs
    several round trips through a busy pool still answers within it."""
    store = pooled(1, 300)
    hold = asyncio.Event()
    blocker = asyncio.create_task(_hold(store, hold))
    await asyncio.sleep(0.05)
    started = time.monotonic()
    with one_wait():
        with pytest.raises(Overloaded):
            await store.read("RETURN 1 AS x", {})
        with pytest.raises(Overloaded):
            await store.read("RETURN 1 AS x", {})  # nothing left of the budget
    assert time.monotonic() - started < 0.3 + 0.15
    hold.set()
    await blocker
    await store.close()


async def _hold(store: GraphStore, until: asyncio.Event) -> None:
    """Keep the store's one connection taken until ``until`` is set."""
    gate = store._gate  # type: ignore[attr-defined]
    await gate.enter()
    try:
        await until.wait()
    finally:
        gate.leave()


async def _burst(store: GraphStore, requests: int) -> list[httpx.Response]:
    """``requests`` reads at once through an app on ``store``."""
    transport = httpx.ASGITransport(app=create_app(Settings(), store=store))
    query = {"query": "{ items(limit: 5) { id } }"}
    async with httpx.AsyncClient(transport=transport, base_url="http://memexd") as client:
        try:
            return await asyncio.gather(
                *(client.post("/graphql", json=query) for _ in range(requests))
            )
        finally:
            await store.close()


async def test_concurrent_updates_to_one_item_lose_nothing(api: Api) -> None:
    """Every update merges into what the previous one wrote (compare-and-set)."""
    item = await api.create(content={"start": 0})
    update = """mutation($id: ID!, $c: JSON!) { updateItem(id: $id, patch: {content: $c},
      author: "u") { item { id } } }"""
    writers = [api.ok(update, id=item["id"], c={f"k{i}": i}) for i in range(25)]
    await asyncio.gather(*writers)
    got = await api.ok("query($id: ID!) { item(id: $id) { content } }", id=item["id"])
    assert got["item"]["content"] == {"start": 0, **{f"k{i}": i for i in range(25)}}
    events = await api.ok('{ events(filter: {types: ["memory.updated"]}) { payload } }')
    assert len(events["events"]) == 25


async def test_concurrent_edge_updates_lose_nothing(api: Api) -> None:
    """Each writer changes a different field; every change survives (a write
    that read a stale edge would put the other fields back)."""
    a, b = await api.create(), await api.create()
    create = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
      author: "u", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
    update = """mutation($e: ID!, $p: EdgePatch!) { updateEdge(edgeId: $e, patch: $p,
      author: "u") { edge { edgeId } } }"""
    patches = [{"weight": 0.9}, {"authority": 0.1}, {"meta": {"m": 1}}, {"active": False},
               {"kind": "DERIVED_FROM"}]  # fmt: skip
    for _ in range(4):
        edge = (await api.ok(create, a=a["id"], b=b["id"]))["createEdge"]["edge"]["edgeId"]
        await asyncio.gather(*(api.ok(update, e=edge, p=p) for p in patches * 3))
        read = "query($e: ID!) { edge(edgeId: $e) { weight authority meta active kind } }"
        got = (await api.ok(read, e=edge))["edge"]
        assert got == {"weight": 0.9, "authority": 0.1, "meta": {"m": 1}, "active": False,
                       "kind": "DERIVED_FROM"}  # fmt: skip


# ---------------------------------------------------------------- internal errors


async def test_internal_errors_are_masked(engine: EmbeddedFalkor) -> None:
    """An engine failure that is nobody's input: fixed message, no details."""
    key = f"not_a_graph_{uuid.uuid4().hex}"
    raw = redis.asyncio.Redis(unix_socket_path=engine.socket)
    await raw.set(key, "a plain string where a graph should be")
    store = FalkorStore.connect(unix_socket=engine.socket, graph=key)
    await _answers_internal(store)
    await raw.delete(key)
    await raw.aclose()
    await store.close()


async def test_internal_errors_are_masked_on_neo4j(neo4j: Neo4jServer) -> None:
    """Credentials the engine turns down (rotated under a running service)
    are nobody's input: a fixed message, no details."""
    store = Neo4jStore.connect(neo4j.uri, user=neo4j.user, password="not-the-password")
    await _answers_internal(store)
    await store.close()


async def _answers_internal(store: GraphStore) -> None:
    app = create_app(Settings(), store=store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://memexd"
    ) as client:
        response = await client.post("/graphql", json={"query": "{ items { id } }"})
    error = response.json()["errors"][0]
    assert error["extensions"] == {"code": "INTERNAL"}
    assert error["message"] == "Internal server error."


async def test_a_neo4j_that_is_down_is_unavailable() -> None:
    port = proc.free_port()  # nothing listens there
    dead = Neo4jStore.connect(f"bolt://127.0.0.1:{port}", user="neo4j", password="password")
    await _answers_unavailable(dead)


async def test_an_engine_that_is_down_is_unavailable(tmp_path: Path) -> None:
    engine = EmbeddedFalkor(tmp_path)
    dead = FalkorStore.connect(unix_socket=await engine.start(), graph="g")
    await engine.stop()  # an external engine goes away under a running service
    await _answers_unavailable(dead)


async def _answers_unavailable(dead: GraphStore) -> None:
    app = create_app(Settings(federation=True), store=dead)
    references = """{ _entities(representations: [{__typename: "MemoryItem",
      id: "0190f0f0-0000-7000-8000-000000000000"}]) { ... on MemoryItem { id } } }"""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://memexd"
    ) as client:
        for query in ("{ items { id } }", references):
            response = await client.post("/graphql", json={"query": query})
            error = response.json()["errors"][0]
            assert error["extensions"] == {"code": "UNAVAILABLE"}, query
            assert response.headers["retry-after"] == "1"  # a restart or a failover: soon
    await dead.close()
