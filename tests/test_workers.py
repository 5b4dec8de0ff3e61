"""``memexd serve --workers N``: N processes on one port over one engine.

Each test reaches every worker (the ``memexd-worker`` response header says
which one answered) and checks what must hold whichever answers: the feed
(every subscriber on every worker gets every event once, in log order), keys
(a revocation stops the key on all of them at once), grants, the engine
coming back after a crash, a worker that dies being replaced, and nothing
outliving the supervisor."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from memexd.access.keys import KeyStore
from tests import processes as proc
from tests.engines import Engine
from tests.feed_client import Writer, client, ids

WORKERS = 3
QUIET = {"MEMEXD_LOG_LEVEL": "warning"}
READ = "query($id: ID!) { item(id: $id) { id } }"


@dataclass
class Served:
    url: str
    process: subprocess.Popen[bytes]
    keys: Path
    admin: str
    data: Path

    def key(self, *grants: str) -> str:
        return KeyStore(self.keys).create(f"k{time.monotonic_ns()}", list(grants))[1]


@pytest.fixture
def served(graph_engine: Engine, tmp_path: Path) -> Iterator[Served]:
    keys = tmp_path / "keys.json"
    _, admin = KeyStore(keys).create("admin", ["admin:"])
    env = {"MEMEXD_KEYS_FILE": str(keys), "MEMEXD_WORKERS": str(WORKERS), **QUIET}
    url, process = proc.serve(tmp_path / "data", engine=graph_engine, **env)
    yield Served(url, process, keys, admin, tmp_path / "data")
    proc.stop(process)


def by_worker(url: str, key: str | None, request: Callable[[httpx.Client], httpx.Response],
              ) -> dict[str, httpx.Response]:  # fmt: skip
    """``request`` over fresh connections until every worker has answered one."""
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    seen: dict[str, httpx.Response] = {}
    deadline = time.monotonic() + 60  # a replaced worker may still be starting
    while time.monotonic() < deadline:
        with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
            response = request(http)
        seen.setdefault(response.headers["memexd-worker"], response)
        if len(seen) == WORKERS:
            return seen
    raise AssertionError(f"only workers {sorted(seen)} answered")


def graphql(query: str, **variables: Any) -> Callable[[httpx.Client], httpx.Response]:
    return lambda http: http.post("/graphql", json={"query": query, "variables": variables})


def item(n: int, scope: str = "w/") -> dict[str, Any]:
    return {"scope": scope, "kind": "k", "content": {"n": n}, "author": "a", "sourceKind": "o",
            "authority": 0.5}  # fmt: skip


def test_every_worker_serves_the_port(served: Served) -> None:
    answers = by_worker(served.url, None, lambda http: http.get("/healthz"))
    assert {r.json()["status"] for r in answers.values()} == {"ok"}
    assert sorted(answers) == [str(n + 1) for n in range(WORKERS)]


async def test_every_subscriber_on_every_worker_gets_every_event_once(served: Served) -> None:
    writer = Writer(served.url, served.admin)
    (_,), (first,) = await writer.create(item(-1))
    feeds: dict[str, Any] = {}
    async with contextlib.AsyncExitStack() as stack:
        deadline = time.monotonic() + 60  # on a busy machine a worker may take a while to accept
        while len(feeds) < WORKERS and time.monotonic() < deadline:
            opened = client(served.url, served.admin)
            feed = await opened.__aenter__()
            worker = feed.ws.response.headers["memexd-worker"]
            if worker in feeds:
                await opened.__aexit__(None, None, None)
                continue
            stack.push_async_exit(opened)
            await feed.subscribe("1", after=first)
            feeds[worker] = feed
        assert len(feeds) == WORKERS

        async def write(n: int) -> None:
            own = Writer(served.url, served.admin)  # its own connections: any worker
            for batch in range(5):
                await own.create(item(10 * n + batch), item(10 * n + batch))

        await asyncio.gather(*(write(n) for n in range(4)))
        log = await writer.log(first)
        assert len(log) == 4 * 5 * 2
        for feed in feeds.values():
            assert ids(await feed.events(len(log))) == ids(log)
            await feed.nothing_more()


def test_a_revoked_key_stops_on_every_worker_at_once(served: Served) -> None:
    key = served.key("read:w/")
    ok = by_worker(served.url, key, graphql("{ items(limit: 1) { id } }"))
    assert {r.status_code for r in ok.values()} == {200}
    assert all("errors" not in r.json() for r in ok.values())
    KeyStore(served.keys).revoke(key.split("_")[1])
    refused = by_worker(served.url, key, graphql("{ items(limit: 1) { id } }"))
    codes = {e["extensions"]["code"] for r in refused.values() for e in r.json()["errors"]}
    assert codes == {"UNAUTHENTICATED"}


def test_grants_hold_on_every_worker(served: Served) -> None:
    reader = served.key("read:w/")
    create = graphql(proc.CREATE_ITEMS, i=[item(1)])
    refused = by_worker(served.url, reader, create)
    codes = {e["extensions"]["code"] for r in refused.values() for e in r.json()["errors"]}
    assert codes == {"FORBIDDEN"}
    writer = served.key("write:w/", "read:w/")
    made = by_worker(served.url, writer, create)
    assert all(r.json()["data"]["createItems"]["items"] for r in made.values())
    elsewhere = graphql(proc.CREATE_ITEMS, i=[item(2, scope="x/")])
    codes = {e["extensions"]["code"] for r in by_worker(served.url, writer, elsewhere).values()
             for e in r.json()["errors"]}  # fmt: skip
    assert codes == {"FORBIDDEN"}
    with httpx.Client(headers={"Authorization": f"Bearer {served.admin}"}) as http:
        listed = http.post(f"{served.url}/graphql", json={"query": "{ items { scope } }"}).json()
    scopes = [i["scope"] for i in listed["data"]["items"]]
    assert set(scopes) == {"w/"}  # none of x/
    assert len(scopes) >= WORKERS


@pytest.mark.engines("falkordb")
def test_the_supervisor_restarts_the_engine_and_every_worker_recovers(served: Served) -> None:
    engine = proc.engine_pid(served.data)
    os.kill(engine, signal.SIGKILL)
    assert proc.wait_dead(engine)
    # a read waits for the restarted engine instead of failing
    back = by_worker(served.url, served.admin, graphql("{ items(limit: 1) { id } }"))
    assert all("errors" not in r.json() for r in back.values()), back
    assert proc.engine_pid(served.data) != engine


@pytest.mark.engines("neo4j")
def test_every_worker_follows_neo4j_down_and_back(served: Served, graph_engine: Engine) -> None:
    server = graph_engine.neo4j
    assert server is not None
    server.kill()
    down = by_worker(served.url, None, lambda http: http.get("/healthz"))
    assert {r.status_code for r in down.values()} == {503}
    server.start()
    back = by_worker(served.url, served.admin, graphql("{ items(limit: 1) { id } }"))
    assert all("errors" not in r.json() for r in back.values()), back


def test_a_worker_that_dies_is_replaced(served: Served) -> None:
    first = by_worker(served.url, None, lambda http: http.get("/healthz"))
    victim = _worker_pids(served.process.pid)
    assert len(victim) == WORKERS
    os.kill(victim[0], signal.SIGKILL)
    assert proc.wait_dead(victim[0])
    again = by_worker(served.url, None, lambda http: http.get("/healthz"))
    assert sorted(again) == sorted(first)
    assert victim[0] not in _worker_pids(served.process.pid)


def test_nothing_outlives_a_killed_supervisor(served: Served) -> None:
    children = _worker_pids(served.process.pid)
    engine = [] if served.process.pid is None else _engine_pids(served.process.pid)
    os.kill(served.process.pid, signal.SIGKILL)
    served.process.wait()
    survivors = [pid for pid in children + engine if not proc.wait_dead(pid, 30)]
    assert survivors == [], [proc.cmdline(pid) for pid in survivors]


@pytest.mark.engines("falkordb")
def test_past_the_cap_every_worker_answers_a_prompt_503(tmp_path: Path) -> None:
    """The cap is the server's, shared among the workers: past it a new
    connection gets 503 with Retry-After at once, whichever worker takes it."""
    cap = 4
    url, process = proc.serve(tmp_path / "data", MEMEXD_WORKERS="2",
                              MEMEXD_MAX_CONNECTIONS=str(cap), **QUIET)  # fmt: skip
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    try:
        answers = []
        for _ in range(3 * cap):
            sock = socket.create_connection(("127.0.0.1", port))
            held.append(sock)
            sock.settimeout(0.3)
            try:
                answers.append(sock.recv(200))
            except TimeoutError:
                answers.append(b"")  # admitted: the server waits for a request
        refused = [a for a in answers if a]
        assert len(answers) - len(refused) <= cap
        assert len(refused) >= 2 * cap
        for answer in refused:
            assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
            assert b"\r\nRetry-After: 1\r\n" in answer, answer
    finally:
        for sock in held:
            sock.close()
        proc.stop(process)


def test_sigterm_stops_workers_and_supervisor_cleanly(served: Served) -> None:
    children = _worker_pids(served.process.pid)
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=60) == 0
    assert all(proc.wait_dead(pid) for pid in children)
    assert served.process.stderr is not None
    assert "Traceback" not in served.process.stderr.read().decode()


def _worker_pids(pid: int) -> list[int]:
    return [c for c in proc.children(pid) if b"spawn_main" in proc.cmdline(c)]


def _engine_pids(pid: int) -> list[int]:
    return [c for c in proc.children(pid) if b"redis-server" in proc.cmdline(c)]


@pytest.mark.engines("falkordb")
async def test_a_write_through_one_worker_wakes_the_feed_of_another(
    graph_engine: Engine, tmp_path: Path
) -> None:
    """Each write is announced on the engine (memexd.graph.notices): with the
    feed's timer at 30 s, a subscriber on one worker still gets an event
    written through another within a second or two."""
    keys = tmp_path / "keys.json"
    _, admin = KeyStore(keys).create("admin", ["admin:"])
    env = {"MEMEXD_KEYS_FILE": str(keys), "MEMEXD_WORKERS": "2", "MEMEXD_FEED_POLL_S": "30",
           **QUIET}  # fmt: skip
    url, process = proc.serve(tmp_path / "data", engine=graph_engine, **env)
    try:
        async with client(url, admin) as feed:
            listening = feed.ws.response.headers["memexd-worker"]
            await feed.subscribe("1")
            await asyncio.sleep(0.5)  # the subscription reads the head first
            elsewhere = by_two(url, admin, listening)
            started = time.monotonic()
            [event] = await feed.events(1)
            assert time.monotonic() - started < 5
            assert event["type"] == "memory.created"
            assert elsewhere.headers["memexd-worker"] != listening
    finally:
        proc.stop(process)


def by_two(url: str, key: str, not_on: str) -> httpx.Response:
    """A createItem answered by a worker other than ``not_on`` (fresh
    connections until one is; the writes that land on ``not_on`` are left
    out by writing nothing there)."""
    create = "mutation($i: MemoryItemInput!) { createItem(input: $i) { item { id } } }"
    for _ in range(100):
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
            who = http.get("/healthz").headers["memexd-worker"]
            if who != not_on:  # the same connection, so the same worker
                return http.post("/graphql", json={"query": create, "variables": {"i": item(1)}})
    raise AssertionError("no other worker answered")
