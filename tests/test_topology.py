"""FalkorDB behind Sentinels (docs/high-availability.md): a primary, two
replicas and three Sentinels, each a ``memexd node`` process on loopback;
memexd finds the primary through the Sentinels, follows a failover without
a restart, and under ``MEMEXD_WRITE_REPLICAS`` loses no acknowledged write
when the primary is killed."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from memexd.cli import _parser
from memexd.errors import SettingsError, StorageUnavailable
from memexd.graph import Graph, bookmarks
from memexd.graph.errors import NotReplicated
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import migrate
from memexd.graph.sentinel import parse
from memexd.jobs.run import now_ms
from memexd.settings import load_settings
from tests import topology
from tests.feed_client import CREATE as FEED_CREATE
from tests.feed_client import Writer
from tests.feed_client import client as feed_client
from tests.processes import CREATE_ITEMS, MEMEXD, item_rows, serve, stop

DUMP = ("MATCH (n:N) OPTIONAL MATCH (n)-[r]->(m) "
        "RETURN n.v AS v, type(r) AS t, m.v AS to, properties(n) AS p ORDER BY v, to")  # fmt: skip
#: A node with properties met after memexd's own (its item's, and new ones).
PROPERTIES = ("CREATE (n:N {v: $v, scope: 's/', content: 'text', retracted: false, "
              "seq: $v, fresh_name: 'f', other_name: $v * 2}) RETURN n.v AS v")  # fmt: skip
WRITE = "CREATE (n:N {v: $v}) RETURN n.v AS v"
READ = "MATCH (n:N {v: $v}) RETURN n.v AS v"


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[topology.Topology]:
    started = topology.start(tmp_path)
    yield started
    started.stop()


def _store(nodes: topology.Topology, replicas: int = 1, timeout_ms: int = 5_000) -> FalkorStore:
    return FalkorStore.connect(uri=nodes.uri(), graph="g", durable=True, replicas=replicas,
                               timeout_ms=timeout_ms)  # fmt: skip


def _dump(node: topology.Process) -> list[list[object]]:
    reply = node.client().execute_command("GRAPH.RO_QUERY", "g", DUMP)
    return [list(row) for row in reply[1]]


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("redis+sentinel://h1:26379,h2:26380", "name the primary's service"),
        ("redis+sentinel://h1:port/memexd", "not a port"),
        ("redis+sentinel://:26379/memexd", "without a host"),
        ("redis+sentinel://h1/memexd?tls=1", "unknown option 'tls'"),
    ],
)
def test_a_bad_sentinel_uri_is_one_clear_line(uri: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message) as caught:
        load_settings({"graph_uri": uri}, env_file=None)
    assert caught.value.message.startswith("MEMEXD_GRAPH_URI: ")
    assert uri not in caught.value.message  # it may hold a password


@pytest.mark.parametrize("uri", [None, "bolt://localhost:7687"])
def test_replicated_acknowledgements_need_a_falkordb_with_replicas(uri: str | None) -> None:
    with pytest.raises(SettingsError, match="MEMEXD_WRITE_REPLICAS: needs a FalkorDB"):
        load_settings({"graph_uri": uri, "write_replicas": 1}, env_file=None)


@pytest.mark.parametrize("uri", [None, "redis://localhost:6379", "bolt://localhost:7687"])
def test_reads_from_replicas_need_the_sentinels(uri: str | None) -> None:
    with pytest.raises(SettingsError, match="MEMEXD_READ_FROM: replicas needs a FalkorDB behind"):
        load_settings({"graph_uri": uri, "read_from": "replicas"}, env_file=None)


def test_a_sentinel_uri_names_every_sentinel_and_the_service() -> None:
    given = "redis+sentinel://u:p%40ss@a:1,[::1]:2,c/prod?sentinel_password=s"
    settings = load_settings({"graph_uri": given, "write_replicas": 2}, env_file=None)
    assert (settings.backend, settings.write_replicas) == ("falkordb", 2)
    found = parse(given)
    assert found.sentinels == (("a", 1), ("::1", 2), ("c", 26379))
    assert (found.service, found.username, found.password) == ("prod", "u", "p@ss")
    assert found.sentinel_password == "s"


def test_node_refuses_bad_flags(tmp_path: Path) -> None:
    for flags, said in [
        (["replica", "--of", "nowhere"], "not HOST:PORT"),
        (["sentinel", "--monitor", "127.0.0.1:1", "--quorum", "0"], "--quorum: must be at least 1"),
        (["primary", "--port", "70000"], "--port: not a port"),
    ]:
        argv = ["node", *flags, "--dir", str(tmp_path / "n")]
        if "--port" not in flags:
            argv += ["--port", "7000"]
        done = subprocess.run([*MEMEXD, *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, done
        assert said in done.stderr


async def test_writes_reach_the_primary_and_every_replica_holds_them(
    nodes: topology.Topology,
) -> None:
    """On memexd's schema (its migrations ran with the replicas attached),
    every replica holds every node, property and relationship the primary
    holds: property names are numbered alike (memexd/graph/keys.py)."""
    # every write replicated as its effects (which name properties by number),
    # as FalkorDB replicates a costly write such as createItems
    nodes.primary().client().execute_command("GRAPH.CONFIG", "SET", "EFFECTS_THRESHOLD", 0)
    store = _store(nodes, replicas=2)
    try:
        await migrate(Graph(store))
        for v in range(100):
            await store.write(PROPERTIES, {"v": v})
        await store.write("MATCH (a:N), (b:N) WHERE b.v = a.v + 1 CREATE (a)-[:NEXT]->(b)", {})
        await store.write("MATCH (n:N {v: 0}) RETURN n.v", {})  # and confirmed by both
        primary = _dump(nodes.primary())
        assert len(primary) == 100
        assert primary[0][:2] == [0, "NEXT"]
        assert "retracted: false" in str(primary[0][3])
        for node in nodes.data:
            assert _dump(node) == primary
    finally:
        await store.close()


async def test_a_write_no_replica_confirms_in_time_fails_clearly(
    nodes: topology.Topology,
) -> None:
    store = _store(nodes, replicas=1, timeout_ms=500)
    replicas = [n for n in nodes.data if n is not nodes.primary()]
    try:
        for node in replicas:
            node.kill(signal.SIGSTOP)
        with pytest.raises(NotReplicated, match="may or may not survive") as caught:
            await store.write(WRITE, {"v": 1})
        assert caught.value.code == "UNAVAILABLE"
    finally:
        for node in replicas:
            node.kill(signal.SIGCONT)
        await store.close()


async def test_a_killed_primary_is_followed_and_no_acknowledged_write_is_lost(
    nodes: topology.Topology,
) -> None:
    """Six writers through two stores (two memexd processes' worth); the
    primary is killed under them; every write that was acknowledged is on
    the new primary, and writing resumes without a restart."""
    stores = [_store(nodes), _store(nodes)]
    acknowledged: list[int] = []
    refused: list[str] = []
    killed = asyncio.Event()
    resumed: list[float] = []

    async def writer(n: int) -> None:
        store, v = stores[n % 2], n * 1_000_000
        while len(resumed) < 6:
            v += 1
            try:
                await store.write(WRITE, {"v": v})
            except StorageUnavailable as exc:
                refused.append(exc.code)
                await asyncio.sleep(0.05)
                continue
            acknowledged.append(v)
            if killed.is_set() and time.monotonic() > killed_at[0] + 0.01:
                resumed.append(time.monotonic())
                return

    killed_at = [0.0]
    old = nodes.primary()
    try:
        tasks = [asyncio.create_task(writer(n)) for n in range(6)]
        await asyncio.sleep(1.0)
        old.kill()
        killed_at[0] = time.monotonic()
        killed.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        new = nodes.primary()
        assert new is not old
        held = {row[0] for row in _dump(new)}
        assert set(acknowledged) <= held, sorted(set(acknowledged) - held)[:10]
        assert len(acknowledged) > 12
        assert set(refused) <= {"UNAVAILABLE"}
        assert min(resumed) - killed_at[0] < 20  # the Sentinels' timeout, and some
    finally:
        for store in stores:
            await store.close()


async def test_a_stopped_primary_that_comes_back_takes_no_write(
    nodes: topology.Topology,
) -> None:
    """A primary stopped (SIGSTOP: cut off) is replaced; when it comes back
    the Sentinels make it a replica, and memexd's next writes reach the new
    primary, the old one only as a copy: nothing written is lost, even
    with no replica confirming writes (memexd follows the Sentinels'
    announcement, not the old primary's word)."""
    store = _store(nodes, replicas=0)
    old = nodes.primary()
    try:
        await store.write(WRITE, {"v": 1})
        old.kill(signal.SIGSTOP)
        deadline = time.monotonic() + 30
        while (new := _announced(nodes, old)) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert new is not None
        await asyncio.sleep(0.5)  # the announcement reaches memexd
        old.kill(signal.SIGCONT)  # a primary still, in its own eyes
        for v in range(2, 12):
            await _write_through(store, v)
        while old.client().execute_command("ROLE")[0] != "slave":
            assert time.monotonic() < deadline + 30
            await asyncio.sleep(0.2)
        topology.wait_synced(nodes)
        expected = list(range(1, 12))
        assert [row[0] for row in _dump(new)] == expected
        assert [row[0] for row in _dump(old)] == expected
    finally:
        old.kill(signal.SIGCONT)
        await store.close()


def _announced(nodes: topology.Topology, old: topology.Process) -> topology.Process | None:
    """The new primary, once every Sentinel names it."""
    named = {tuple(s.client().sentinel_get_master_addr_by_name(topology.SERVICE))
             for s in nodes.sentinels}  # fmt: skip
    if len(named) != 1:
        return None
    port = int(named.pop()[1])
    return next((n for n in nodes.data if n.port == port and n is not old), None)


async def _write_through(store: FalkorStore, v: int) -> None:
    """A write, retried while memexd answers UNAVAILABLE (its caller's job)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            await store.write(WRITE, {"v": v})
            return
        except StorageUnavailable:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)


def test_memexd_serves_through_the_sentinels(nodes: topology.Topology, tmp_path: Path) -> None:
    """``memexd serve`` with a Sentinel URI, reading from replicas: migrated,
    writing, and a read that brings back the write's bookmark finds it."""
    url, process = serve(tmp_path / "memexd", MEMEXD_GRAPH_URI=nodes.uri(),
                         MEMEXD_WRITE_REPLICAS="1", MEMEXD_READ_FROM="replicas",
                         MEMEXD_EMBEDDING="off")  # fmt: skip
    try:
        made = httpx.post(f"{url}/graphql", json={"query": CREATE_ITEMS, "variables": {
            "i": item_rows(3)}})  # fmt: skip
        body = made.json()
        assert not body.get("errors"), body
        token = made.headers["memexd-bookmarks"]
        assert token.startswith("falkordb:")
        ids = [item["id"] for item in body["data"]["createItems"]["items"]]
        found = httpx.post(f"{url}/graphql", headers={"Memexd-Bookmarks": token}, json={
            "query": "query($ids: [ID!]!) { items(filter: {ids: $ids}) { id } }",
            "variables": {"ids": ids}}).json()  # fmt: skip
        assert sorted(i["id"] for i in found["data"]["items"]) == sorted(ids)
        assert sum(_calls(node, "graph.RO_QUERY") for node in nodes.data) > 0
    finally:
        stop(process)


async def test_reads_go_to_replicas_and_a_bookmark_reads_its_write(
    nodes: topology.Topology,
) -> None:
    """Reads spread over the replicas; a read that brings back a write's
    bookmark (another memexd's: another store) sees that write, on a
    replica that has it or else on the primary."""
    writer = FalkorStore.connect(uri=nodes.uri(), graph="g", durable=True, read_replicas=True)
    reader = FalkorStore.connect(uri=nodes.uri(), graph="g", durable=True, read_replicas=True)
    try:
        for v in range(20):
            await writer.write(WRITE, {"v": v})
        await asyncio.gather(*(reader.read(READ, {"v": v}) for v in range(20)))
        assert reader.replica_reads == 20
        served = [_calls(node, "graph.RO_QUERY") for node in nodes.data]
        assert served[nodes.data.index(nodes.primary())] == 0
        assert sum(served) == 20
        for v in range(100, 110):
            token = await _written(writer, v)
            assert token.startswith("falkordb:")
            assert await _read_after(reader, token, v) == [{"v": v}]
        # a position no replica has reached: the primary answers
        primary_reads = _calls(nodes.primary(), "graph.RO_QUERY")
        ahead = f"falkordb:{int(token.removeprefix('falkordb:')) + 10**9}"
        assert await _read_after(reader, ahead, 5) == [{"v": 5}]
        assert reader.replica_behind == 1
        assert _calls(nodes.primary(), "graph.RO_QUERY") == primary_reads + 1
    finally:
        await writer.close()
        await reader.close()


async def _written(store: FalkorStore, v: int) -> str:
    """Write ``v``; the bookmark the write left."""
    state, bound = bookmarks.bind(None)
    try:
        await store.write(WRITE, {"v": v})
    finally:
        bookmarks.unbind(bound)
    (token,) = state.latest
    return token


async def _read_after(store: FalkorStore, token: str, v: int) -> list[dict[str, object]]:
    """Read ``v`` as a request that brought back ``token`` does."""
    _, bound = bookmarks.bind(token)
    try:
        return await store.read(READ, {"v": v})
    finally:
        bookmarks.unbind(bound)


def _calls(node: topology.Process, command: str) -> int:
    stats = node.client().info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def test_the_compose_topology_says_what_memexd_node_accepts() -> None:
    """docker-compose.ha.yml (Docker does not run here): every node's command
    parses, and its memexd settings load."""
    compose = yaml.safe_load((Path(__file__).parent.parent / "docker-compose.ha.yml").read_text())
    roles = []
    for service in compose["services"].values():
        if command := service.get("command"):
            assert command[:2] == ["memexd", "node"]
            roles.append(_parser().parse_args(command[1:]).role)
        else:
            settings = {k.removeprefix("MEMEXD_").lower(): v
                        for k, v in service["environment"].items() if "${" not in v}  # fmt: skip
            assert load_settings(settings, env_file=None).write_replicas == 1
    assert sorted(roles) == ["primary", "replica", "replica", "sentinel", "sentinel", "sentinel"]


async def test_the_feed_of_another_memexd_runs_through_a_failover_without_gap_or_duplicate(
    nodes: topology.Topology, tmp_path: Path
) -> None:
    """Writes through one memexd, a subscriber on another; the primary is
    killed halfway: the subscriber gets exactly the events the log holds
    afterwards, in order, and the log holds every acknowledged write's."""
    env = {"MEMEXD_GRAPH_URI": nodes.uri(), "MEMEXD_WRITE_REPLICAS": "1", "MEMEXD_WORKERS": "1",
           "MEMEXD_EMBEDDING": "off", "MEMEXD_LOG_LEVEL": "critical"}  # fmt: skip
    writing, writer_process = serve(tmp_path / "a", **env)
    reading, reader_process = serve(tmp_path / "b", **env)
    writer, acknowledged = Writer(writing), []
    try:
        start = await _log_after(writer, None)
        after = start[-1] if start else None
        async with feed_client(reading) as feed:
            await feed.subscribe("1", after=after)
            old = nodes.primary()
            for n in range(40):
                if n == 20:
                    old.kill()
                acknowledged += await _create_through(writer, n)
            log = await _log_after(writer, after)
            got = [e["id"] for e in await feed.events(len(log))]
            await feed.nothing_more(1.0)
        assert got == log
        assert set(acknowledged) <= set(got)
        assert nodes.primary() is not old
    finally:
        await writer.http.aclose()
        stop(writer_process)
        stop(reader_process)


async def _create_through(writer: Writer, n: int) -> list[str]:
    """Create one item, sending again while the answer is UNAVAILABLE; its
    events' ids once acknowledged."""
    deadline = time.monotonic() + 60
    while True:
        rows = item_rows(1, content={"n": n})
        sent = await writer.http.post("/graphql", json={"query": FEED_CREATE,
                                                        "variables": {"i": rows}})  # fmt: skip
        answer = sent.json()
        if not answer.get("errors"):
            return [e["id"] for e in answer["data"]["createItems"]["events"]]
        assert {e["extensions"]["code"] for e in answer["errors"]} == {"UNAVAILABLE"}, answer
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)


async def _log_after(writer: Writer, after: str | None) -> list[str]:
    """The ids of the log's events after ``after`` (all, when None)."""
    query = "query($a: ID) { events(after: $a, limit: 1000) { id } }"
    return [e["id"] for e in (await writer.ok(query, a=after))["events"]]


async def test_a_killed_replica_comes_back_and_catches_up(nodes: topology.Topology) -> None:
    store = _store(nodes, replicas=1)
    replica = next(n for n in nodes.data if n is not nodes.primary())
    try:
        await store.write(WRITE, {"v": 0})
        replica.kill()
        for v in range(1, 30):
            await store.write(WRITE, {"v": v})  # the other replica confirms them
        replica.spawn()
        topology.wait_answers(replica.port)
        topology.wait_synced(nodes)
        assert _dump(replica) == _dump(nodes.primary())
        assert len(_dump(replica)) == 30
    finally:
        await store.close()


async def test_a_schedule_due_after_a_failover_fires_once(
    nodes: topology.Topology, tmp_path: Path
) -> None:
    """Two memexd on the Sentinels; a schedule made before the primary is
    killed comes due after the failover: one job, run once."""
    env = {"MEMEXD_GRAPH_URI": nodes.uri(), "MEMEXD_WORKERS": "1", "MEMEXD_EMBEDDING": "off",
           "MEMEXD_LOG_LEVEL": "critical", "MEMEXD_JOBS_POLL_S": "0.2",
           "MEMEXD_JOBS_LEASE_S": "1", "MEMEXD_WRITE_REPLICAS": "1"}  # fmt: skip
    servers = [serve(tmp_path / name, **env) for name in ("a", "b")]
    clients = [Writer(url) for url, _ in servers]
    store = FalkorStore.connect(uri=nodes.uri(), graph="memexd")  # memexd's graph
    try:
        made = await clients[0].ok(
            'mutation { createSchedule(input: {name: "d", cron: "0 0 1 1 *", '
            'job: {type: DECAY_UPDATE, author: "ops", dryRun: true}}) { id } }'
        )
        schedule = made["createSchedule"]["id"]
        nodes.primary().kill()
        due = "MATCH (s:Schedule {id: $id}) SET s.next_run_at = $t RETURN s.id"
        while True:  # a year from now, as far as memexd knows: due now, once a primary is back
            try:
                assert await store.write(due, {"id": schedule, "t": now_ms() - 1000})
                break
            except StorageUnavailable:
                await asyncio.sleep(0.1)
        deadline = time.monotonic() + 30
        while not (jobs := await _jobs(clients[1], schedule)) or jobs[0]["status"] != "COMPLETED":
            assert time.monotonic() < deadline, jobs
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)  # every memexd polls ten times more
        assert [j["status"] for j in await _jobs(clients[0], schedule)] == ["COMPLETED"]
    finally:
        await store.close()
        for client in clients:
            await client.http.aclose()
        for _, process in servers:
            stop(process)


async def _jobs(client: Writer, schedule: str) -> list[dict[str, str]]:
    jobs = (await client.ok("{ jobs { id scheduleId status } }"))["jobs"]
    return [j for j in jobs if j["scheduleId"] == schedule]


async def test_six_writers_through_two_memexd_lose_nothing_when_the_primary_is_killed(
    nodes: topology.Topology, tmp_path: Path
) -> None:
    """Six writers, three on each of two ``memexd serve``; the primary is
    killed under them (``MEMEXD_WRITE_REPLICAS=1``): both go on writing
    without a restart, and every item either acknowledged is there."""
    env = {"MEMEXD_GRAPH_URI": nodes.uri(), "MEMEXD_WRITE_REPLICAS": "1", "MEMEXD_WORKERS": "1",
           "MEMEXD_EMBEDDING": "off", "MEMEXD_LOG_LEVEL": "critical"}  # fmt: skip
    servers = [serve(tmp_path / name, **env) for name in ("a", "b")]
    clients = [Writer(url) for url, _ in servers]
    acknowledged: list[str] = []
    killed_at: list[float] = []
    codes: set[str] = set()

    async def writer(client: Writer) -> None:
        after_kill = 0
        while after_kill < 3:
            body = {"query": FEED_CREATE, "variables": {"i": item_rows(2)}}
            sent = await client.http.post("/graphql", json=body)
            answer = sent.json()
            if answer.get("errors"):
                codes.update(e["extensions"]["code"] for e in answer["errors"])
                await asyncio.sleep(0.05)
                continue
            acknowledged.extend(i["id"] for i in answer["data"]["createItems"]["items"])
            after_kill += bool(killed_at)

    try:
        writers = [asyncio.create_task(writer(clients[n % 2])) for n in range(6)]
        await asyncio.sleep(1.0)
        old = nodes.primary()
        old.kill()
        killed_at.append(time.monotonic())
        await asyncio.wait_for(asyncio.gather(*writers), 90)
        assert nodes.primary() is not old
        assert codes <= {"UNAVAILABLE"}
        query = "query($ids: [ID!]!) { items(filter: {ids: $ids}, limit: 1000) { id } }"
        found: set[str] = set()
        for start in range(0, len(acknowledged), 500):
            page = (await clients[1].ok(query, ids=acknowledged[start : start + 500]))["items"]
            found.update(i["id"] for i in page)
        assert found == set(acknowledged), len(set(acknowledged) - found)
    finally:
        for client in clients:
            await client.http.aclose()
        for _, process in servers:
            stop(process)


async def test_a_job_running_through_a_failover_completes_or_ends_interrupted(
    nodes: topology.Topology, tmp_path: Path
) -> None:
    """A job of many batches runs while the primary is killed: it rides
    through the failover (its batches wait for the new primary) and
    completes, or, when a batch's fate was unknown, ends FAILED as
    interrupted with the batches it completed kept; never anything else."""
    env = {"MEMEXD_GRAPH_URI": nodes.uri(), "MEMEXD_WRITE_REPLICAS": "1", "MEMEXD_WORKERS": "1",
           "MEMEXD_EMBEDDING": "off", "MEMEXD_LOG_LEVEL": "critical", "MEMEXD_JOBS_BATCH": "1",
           "MEMEXD_JOBS_POLL_S": "0.2", "MEMEXD_JOBS_LEASE_S": "2"}  # fmt: skip
    url, process = serve(tmp_path / "a", **env)
    client = Writer(url)
    try:
        for _ in range(10):
            await client.ok(FEED_CREATE, i=item_rows(100))
        run = 'mutation { runJob(input: {type: DECAY_UPDATE, author: "ops"}) { id } }'
        job_id = (await client.ok(run))["runJob"]["id"]
        query = "query($id: ID!) { job(id: $id) { status progress result error } }"
        while (job := await _job_or_none(client, query, job_id)) is None or job["progress"] == 0:
            await asyncio.sleep(0.05)
        nodes.primary().kill()
        deadline = time.monotonic() + 60
        while (job := await _job_or_none(client, query, job_id)) is None or job["status"] in (
            "QUEUED", "RUNNING"):  # fmt: skip
            assert time.monotonic() < deadline, job
            await asyncio.sleep(0.2)
        if job["status"] == "COMPLETED":
            assert job["result"]["scored"] == 1000, job
        else:
            assert job["status"] == "FAILED", job
            assert job["error"].startswith("interrupted"), job
            assert 0 < job["progress"] < 1, job
            assert job["result"]["scored"] > 0, job
    finally:
        await client.http.aclose()
        stop(process)


async def _job_or_none(client: Writer, query: str, job_id: str) -> dict[str, Any] | None:
    """The job, or None while memexd answers UNAVAILABLE (the failover)."""
    body = {"query": query, "variables": {"id": job_id}}
    answer = (await client.http.post("/graphql", json=body)).json()
    if answer.get("errors"):
        assert {e["extensions"]["code"] for e in answer["errors"]} == {"UNAVAILABLE"}, answer
        return None
    return answer["data"]["job"]  # type: ignore[no-any-return]
