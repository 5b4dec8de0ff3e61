"""The live feed through a real ``memexd serve``, with a real WebSocket client:
log order, catch-up then live with no gap or duplicate, filters, grants,
resuming after a dropped connection while writers write, two processes on
one store, slow consumers, heartbeats, bad input and shutdown."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from memexd.access.keys import KeyStore
from tests.engines import Engine
from tests.feed_client import SUBSCRIBE, Client, Writer, client, ids
from tests.processes import serve, stop

QUIET = {"MEMEXD_LOG_LEVEL": "warning"}


def item(scope: str, **fields: Any) -> dict[str, Any]:
    return {"scope": scope, "kind": "k", "content": {"x": 1}, "author": "a", "sourceKind": "o",
            "authority": 0.5, **fields}  # fmt: skip


async def closed_with(feed: Client, timeout: float = 10) -> tuple[list[dict[str, Any]], int]:
    """Every message until the server closes, and its close code (0: none)."""
    seen = []
    try:
        while True:
            seen.append(await feed.recv(timeout))
    except ConnectionClosed as closed:
        frame = closed.rcvd
    return seen, 0 if frame is None else frame.code


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, module_engine: Engine
) -> Iterator[tuple[str, ...]]:
    """One ``memexd serve`` for the module: (url, admin key, key reading g/a/
    only, data directory)."""
    data = tmp_path_factory.mktemp("feed") / "data"
    keys = KeyStore(data / "keys.json")
    _, admin = keys.create("admin", ["admin:"])
    _, reader = keys.create("reader", ["read:g/a/"])
    url, process = serve(data, engine=module_engine, MEMEXD_FEED_HEARTBEAT_S="0.5",
                         MEMEXD_FEED_MAX_SUBSCRIPTIONS="8", **QUIET)  # fmt: skip
    yield url, admin, reader, str(data)
    stop(process)


@pytest.fixture
def writer(server: tuple[str, ...]) -> Writer:
    return Writer(server[0], server[1])


EDGE = """mutation($a: ID!, $b: ID!, $k: String!) { createEdge(input: {from: $a, to: $b, kind: $k,
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""
ALIAS = 'mutation($a: ID!, $b: ID!) { markAlias(a: $a, b: $b, author: "u") { events { id } } }'
CONTRADICT = """mutation($a: ID!, $b: ID!) {
  markContradiction(a: $a, b: $b, author: "u") { edge { edgeId } } }"""
RESOLVE = """mutation($w: ID!, $l: ID!) {
  resolveContradiction(winnerId: $w, loserId: $l, author: "u") { events { id } } }"""
CASCADE = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { retracted } }'
INTENT = "mutation($i: IntentInput!) { createIntent(input: $i) { intent { id } } }"
TASK = "mutation($i: TaskInput!) { createTask(input: $i) { task { id } } }"
START = "mutation($id: ID!) { startTask(id: $id) { task { id } } }"


async def every_kind(writer: Writer, scope: str) -> str:
    """Items, edges, an alias, a resolved contradiction, an intent, a task
    started, a cascade; returns the id of the first event."""
    (a,), (first,) = await writer.create(item(scope))
    (b, c), _ = await writer.create(item(scope, parents=[a]), item(scope))
    await writer.ok(EDGE, a=a, b=c, k="SUPPORTS")
    await writer.ok(ALIAS, a=b, b=c)
    await writer.ok(CONTRADICT, a=c, b=b)
    await writer.ok(RESOLVE, w=c, l=b)
    plan = {"label": "l", "priority": 0.5, "owner": "o", "scope": scope}
    intent = (await writer.ok(INTENT, i=plan))["createIntent"]["intent"]["id"]
    task = {"intentId": intent, "action": "act", "priority": 0.5}
    await writer.ok(START, id=(await writer.ok(TASK, i=task))["createTask"]["task"]["id"])
    await writer.ok(CASCADE, id=a)
    return first


async def test_catch_up_then_live_in_log_order_with_every_event_kind(
    server: tuple[str, ...], writer: Writer
) -> None:
    url, admin = server[0], server[1]
    first = await every_kind(writer, "o/")
    log = await writer.log(first)
    async with client(url, admin) as feed:
        await feed.subscribe("1", after=first)
        assert await feed.events(len(log)) == log  # the same events, in log order
        await feed.nothing_more()
        await feed.subscribe("2")  # no cursor: from now on
        await asyncio.sleep(0.5)
        _, (event,) = await writer.create(item("o/"))
        live = await collect(feed, {"1": 1, "2": 1})
        assert {op: ids(got) for op, got in live.items()} == {"1": [event], "2": [event]}
        await feed.nothing_more()
    assert {e["namespace"] for e in log} == {"memory", "intent", "task"}
    edges = [e["payload"] for e in log if e["type"].startswith("edge.")]
    assert {p["edge"]["kind"] for p in edges} >= {"SUPPORTS", "ALIAS", "CONTRADICTS", "SUPERSEDES"}
    assert "memory.retract" in {p["cause_type"] for p in edges}  # the cascade took edges along
    assert {"memory.updated", "memory.retracted", "intent.created", "task.created"} <= {
        e["type"] for e in log
    }


async def collect(feed: Client, counts: dict[str, int]) -> dict[str, list[dict[str, Any]]]:
    """The events of several subscriptions on one connection, by operation id."""
    got: dict[str, list[dict[str, Any]]] = {op: [] for op in counts}
    while any(len(got[op]) < n for op, n in counts.items()):
        message = await feed.recv()
        assert message["type"] == "next", message
        got[message["id"]].append(message["payload"]["data"]["events"])
    return got


async def test_filters_namespaces_types_scope_prefix_and_items(
    server: tuple[str, ...], writer: Writer
) -> None:
    url, admin = server[0], server[1]
    (x, z), (first, z_made) = await writer.create(item("f/a/x"), item("f/a/z"))
    (y,), (y_made,) = await writer.create(item("f/b/y"))
    await writer.ok(EDGE, a=x, b=y, k="SUPPORTS")  # across scopes
    await writer.ok(EDGE, a=x, b=z, k="SUPPORTS")
    plan = {"label": "l", "priority": 0.5, "owner": "o", "scope": "f/a/"}
    await writer.ok(INTENT, i=plan)
    filters = {
        "scope": {"scopePrefix": "f/b/"},  # y, and the edge with one end there
        "item": {"itemIds": [z]},  # z's own events and the edge touching it
        "types": {"types": ["edge.created"]},
        "namespace": {"namespaces": ["intent"]},
        "both": {"scopePrefix": "f/a/", "types": ["memory.created"]},
        "items": {"itemIds": [y, z], "namespaces": ["memory"], "types": ["edge.created"]},
    }
    expected = {op: await writer.log(first, flt) for op, flt in filters.items()}
    edges = [e["id"] for e in expected["types"]]
    assert len(edges) == 2
    assert ids(expected["scope"]) == [y_made, edges[0]]
    assert ids(expected["item"]) == [z_made, edges[1]]
    assert [e["type"] for e in expected["namespace"]] == ["intent.created"]
    assert ids(expected["both"]) == [z_made]
    assert ids(expected["items"]) == edges
    async with client(url, admin) as feed:
        for op, flt in filters.items():
            await feed.subscribe(op, after=first, f=flt)
        assert await collect(feed, {op: len(e) for op, e in expected.items()}) == expected
        (late_b, late_a), _ = await writer.create(item("f/b/w"), item("f/a/v"))
        live = await collect(feed, {"scope": 1, "both": 1})
        assert [e["payload"]["item"]["id"] for e in live["scope"] + live["both"]] == [
            late_b, late_a
        ]  # fmt: skip
        await feed.nothing_more()


async def test_grants_apply_to_the_feed(server: tuple[str, ...], writer: Writer) -> None:
    url, _, reader, data = server
    (x, z), (first, _) = await writer.create(item("g/a/x"), item("g/a/z"))
    (y,), (y_made,) = await writer.create(item("g/b/y"))
    await writer.ok(EDGE, a=x, b=y, k="SUPPORTS")  # half unreadable: invisible
    await writer.ok(EDGE, a=x, b=z, k="SUPPORTS")
    readable = await Writer(url, reader).log(first)
    assert [e["type"] for e in readable] == ["memory.created", "edge.created"]
    async with client(url, reader) as feed:
        await feed.subscribe("1", after=first)
        assert await feed.events(2) == readable
        await feed.subscribe("2", after=y_made)  # a cursor it cannot read is unknown
        refused = await feed.recv()
        assert refused["type"] == "error"
        assert [e["extensions"]["code"] for e in refused["payload"]] == ["BAD_USER_INPUT"]
        await writer.create(item("g/b/q"))
        await feed.nothing_more(0.6)
        KeyStore(Path(data) / "keys.json").revoke("reader")
        _, code = await closed_with(feed)
        assert code == 4401  # the heartbeat checks the credentials again


async def test_resume_after_dropped_connections_while_writers_write(
    server: tuple[str, ...], writer: Writer
) -> None:
    url, admin = server[0], server[1]
    (_,), (first,) = await writer.create(item("r/"))

    async def write() -> None:
        for _ in range(25):
            await writer.create(*(item("r/") for _ in range(4)))
            await asyncio.sleep(0.01)

    writing = asyncio.create_task(write())
    received: list[dict[str, Any]] = []
    for _ in range(3):  # take some, then drop the connection without a close handshake
        async with client(url, admin) as feed:
            await feed.subscribe("1", after=received[-1]["id"] if received else first)
            received += await feed.events(15)
            feed.ws.transport.abort()
    await writing
    log = await writer.log(first)
    async with client(url, admin) as feed:
        await feed.subscribe("1", after=received[-1]["id"])
        received += await feed.events(len(log) - len(received))
        await feed.nothing_more()
    assert len(log) == 100
    assert ids(received) == ids(log)  # no gap, no duplicate, log order


async def test_two_processes_on_one_store_each_deliver_every_event(
    shared_engine: Engine, tmp_path: Path
) -> None:
    one_url, one = serve(tmp_path / "one", engine=shared_engine, **QUIET)
    two_url, two = serve(tmp_path / "two", engine=shared_engine, **QUIET)
    try:
        writers = [Writer(one_url), Writer(two_url)]
        (_,), (first,) = await writers[0].create(item("p/"))
        async with client(one_url) as feed_one, client(two_url) as feed_two:
            await feed_one.subscribe("1", after=first)
            await feed_two.subscribe("1", after=first)
            for n in range(10):  # each process writes half
                await writers[n % 2].create(item("p/"), item("p/"))
            log = await writers[1].log(first)
            assert len(log) == 20
            assert await feed_one.events(20) == log
            assert await feed_two.events(20) == log
    finally:
        stop(one)
        stop(two)


SUBSCRIBE_IDS = "subscription($after: ID) { events(after: $after) { id } }"
LOG_IDS = "query($after: ID) { events(after: $after) { id } }"


def _send_buffer_max() -> int:
    """The most a TCP send buffer grows to here (Linux ``tcp_wmem``)."""
    try:
        return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return 4 << 20


#: Batches of 20 events of 16 kB: more than the server's buffers can hold
#: (send buffer, transport buffer, the client's small window), the
#: subscription's buffer and the lag allowed.
BATCHES = (_send_buffer_max() + (512 << 10)) // (20 * 16_000) + 4


async def test_a_slow_consumer_is_closed_and_resumes_without_loss(
    tmp_path: Path, graph_engine: Engine
) -> None:
    url, process = serve(tmp_path / "data", engine=graph_engine, MEMEXD_FEED_MAX_LAG="40",
                         MEMEXD_FEED_BUFFER="4", **QUIET)  # fmt: skip
    try:
        writer = Writer(url)
        (_,), (first,) = await writer.create(item("s/"))
        # uncompressed frames, a small window, and the client stops reading: the
        # server's sends block once the kernel's buffers are full (at most 4 MB here)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        async with client(url, sock=sock, compression=None, listen=False) as slow:
            await slow.subscribe("1", after=first)  # with payloads of 16 kB
            slow.ws.transport.pause_reading()
            big = {"x": "y" * 16_000}
            for _ in range(BATCHES):  # batches smaller than the lag allowed
                await writer.create(*(item("s/", content=big) for _ in range(20)))
            slow.ws.transport.resume_reading()
            seen, code = await closed_with(slow)
        assert code == 4413
        log = ids((await writer.ok(LOG_IDS, after=first))["events"])
        got = [m["payload"]["data"]["events"]["id"] for m in seen if m["type"] == "next"]
        # closed before the end; it may have received none at all (a 16 kB
        # frame need not fit the 4 kB receive buffer before the close)
        assert len(got) < len(log) == 20 * BATCHES
        assert got == log[: len(got)]  # what it received is a prefix of the log
        async with client(url) as again:
            await again.subscribe("1", SUBSCRIBE_IDS, after=got[-1] if got else first)
            rest = await again.events(len(log) - len(got))
        assert got + ids(rest) == log
    finally:
        stop(process)


async def test_heartbeats(server: tuple[str, ...]) -> None:
    url, admin = server[0], server[1]
    async with client(url, admin, listen=False) as feed:
        assert json.loads(await asyncio.wait_for(feed.ws.recv(), 3)) == {"type": "ping"}
        await feed.send({"type": "pong"})
        await feed.send({"type": "ping"})  # the client may ping too
        assert await feed.recv() == {"type": "pong"}
        await feed.nothing_more(1.5)  # answering pings keeps it open
        await feed.send({"type": "ping"})
        assert await feed.recv() == {"type": "pong"}
    async with client(url, admin, listen=False) as silent:
        started = asyncio.get_running_loop().time()
        pings, code = await closed_with(Client(silent.ws, answer_pings=False))
        assert code == 4408  # silent for two heartbeats
        assert asyncio.get_running_loop().time() - started < 5
        assert pings[0] == {"type": "ping"}


BAD = [
    ("subscription { events( { id } }", {}),  # syntax
    ("subscription { events { nope } }", {}),  # no such field
    ("subscription { events(after: 5) { id } }", {}),  # not an event id
    (SUBSCRIBE, {"after": "01900000-0000-7000-8000-000000000000"}),  # no such event
    (SUBSCRIBE, {"after": "nope"}),
    (SUBSCRIBE, {"f": {"types": [""]}}),
    (SUBSCRIBE, {"f": {"itemIds": ["x"]}}),
    (SUBSCRIBE, {"f": {"namespaces": ["n"] * 1001}}),
    (SUBSCRIBE, {"f": {"color": "red"}}),
    (SUBSCRIBE, {"f": "memory"}),
]


async def test_bad_input_is_an_error_with_a_code_and_others_are_served(
    server: tuple[str, ...], writer: Writer
) -> None:
    url, admin = server[0], server[1]
    (_,), (first,) = await writer.create(item("b/"))
    async with client(url, admin) as good, client(url, admin) as bad:
        await good.subscribe("1", after=first)
        for n, (query, variables) in enumerate(BAD):
            await bad.subscribe(str(n), query, **variables)
            answer = await bad.recv()
            assert answer["type"] == "error", (query, variables, answer)
            assert answer["id"] == str(n)
            assert [e["extensions"]["code"] for e in answer["payload"]] == ["BAD_USER_INPUT"]
        for n in range(8):  # a connection holds at most 8 operations here
            await bad.subscribe(f"live{n}")
        await bad.subscribe("one too many")
        refused = await bad.recv()
        assert refused["id"] == "one too many"
        assert refused["payload"][0]["extensions"]["code"] == "RESOURCE_EXHAUSTED"
        await bad.send({"id": "live0", "type": "complete"})
        await asyncio.sleep(0.1)
        await bad.subscribe("q", "{ items(limit: 1) { id } }")  # the connection still serves
        assert (await bad.recv())["type"] == "next"
        assert (await bad.recv()) == {"id": "q", "type": "complete"}
        for broken_message in ('{"type": "subscribe"}', "not json", '{"type": "hello"}'):
            async with client(url, admin) as broken:
                await broken.ws.send(broken_message)
                assert (await closed_with(broken))[1] == 4400  # the protocol's answer
        (made,), _ = await writer.create(item("b/"))
        (event,) = await good.events(1)
        assert event["payload"]["item"]["id"] == made
    over_http = await writer.http.post("/graphql", json={"query": SUBSCRIBE})
    assert over_http.status_code == 400
    assert over_http.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_shutdown_completes_subscriptions(tmp_path: Path, graph_engine: Engine) -> None:
    url, process = serve(tmp_path / "data", engine=graph_engine, **QUIET)
    try:
        async with client(url) as feed:
            await feed.subscribe("1")
            await feed.subscribe("2", f={"namespaces": ["task"]})
            await asyncio.sleep(0.5)
            process.send_signal(signal.SIGTERM)
            seen, code = await closed_with(feed)
        assert code == 1001
        assert sorted(m["id"] for m in seen if m["type"] == "complete") == ["1", "2"]
        # uvicorn re-raises the signal once it has shut down cleanly
        assert process.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        stop(process)
    assert process.stderr is not None
    logged = process.stderr.read().decode()
    assert "Traceback" not in logged
    assert "ERROR" not in logged


async def test_job_lifecycle_events_reach_the_feed(server: tuple[str, ...]) -> None:
    """A job's queued, started and completed events, live, to whoever can
    read every scope it reaches (the server's own worker runs it)."""
    url, admin = server[0], server[1]
    # a key of its own: another test of the module revokes the shared reader's
    _, reader = KeyStore(Path(server[3]) / "keys.json").create("jobs-reader", ["read:g/a/"])
    jobs = {"namespaces": ["job"]}
    run = 'mutation($p: String) { runJob(input: {type: DECAY_UPDATE, author: "ops", ' \
          'scopePrefix: $p}) { id } }'  # fmt: skip
    async with client(url, admin) as everything, client(url, reader) as narrow:
        await everything.subscribe("1", f=jobs)
        await narrow.subscribe("1", f=jobs)
        await asyncio.sleep(0.5)
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {admin}"}) as http:
            for prefix in ("g/b/", "g/a/"):
                answer = await http.post(
                    f"{url}/graphql", json={"query": run, "variables": {"p": prefix}}
                )
                assert not answer.json().get("errors"), answer.json()
        seen = await everything.events(6, op="1")
        mine = await narrow.events(3, op="1")
        await narrow.nothing_more(1.0)
    by_job: dict[str, list[str]] = {}
    for event in seen:
        by_job.setdefault(event["payload"]["job"]["id"], []).append(event["type"])
    errors = [e["payload"]["job"]["error"] for e in seen if e["type"] == "job.failed"]
    assert sorted(by_job.values()) == [["job.queued", "job.started", "job.completed"]] * 2, errors
    assert [e["type"] for e in mine] == ["job.queued", "job.started", "job.completed"]
    assert {e["payload"]["job"]["scope_prefix"] for e in mine} == {"g/a/"}
