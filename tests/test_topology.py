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

import pytest
import yaml

from memexd.cli import _parser
from memexd.errors import SettingsError, StorageUnavailable
from memexd.graph import Graph, bookmarks
from memexd.graph.errors import NotReplicated
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import migrate
from memexd.graph.sentinel import parse
from memexd.settings import load_settings
from tests import topology
from tests.processes import MEMEXD

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
