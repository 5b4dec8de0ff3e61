"""What only Neo4j has, run on a real Neo4j 5.26: selection by URI,
migrations from an empty database, bookmarks, a crash of the engine under a
running memexd (kill -9: nothing acknowledged lost, UNAVAILABLE meanwhile,
recovery when it returns). The behaviour both engines share is tested by
every other file, on both."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import neo4j as driver
import pytest

from memexd.graph import Graph
from memexd.graph.bookmarks import HEADER
from memexd.graph.migrations import discover, migrate
from memexd.graph.neo4j import Neo4jStore
from memexd.graph.open import open_store
from memexd.settings import Settings
from tests import processes as proc
from tests.engines import Engine, Neo4jPool
from tests.neo4j_server import Neo4jServer
from tests.support import CREATE_ITEM, Api

# ---------------------------------------------------------------- selection, migrations


def _drop_everything(server: Neo4jServer) -> None:
    """An empty database: no nodes, no constraints, no indexes of ours."""
    auth = (server.user, server.password)
    with driver.GraphDatabase.driver(server.uri, auth=auth) as db:
        db.execute_query("MATCH (n) DETACH DELETE n")
        for record in db.execute_query("SHOW CONSTRAINTS YIELD name").records:
            db.execute_query(f"DROP CONSTRAINT `{record['name']}`")  # type: ignore[arg-type]
        shown = db.execute_query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'")
        for record in shown.records:
            db.execute_query(f"DROP INDEX `{record['name']}`")  # type: ignore[arg-type]


def _schema(server: Neo4jServer) -> list[tuple[str, ...]]:
    auth = (server.user, server.password)
    with driver.GraphDatabase.driver(server.uri, auth=auth) as db:
        rows = db.execute_query(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, owningConstraint "
            "RETURN name, type, labelsOrTypes, properties, owningConstraint IS NOT NULL AS owned"
        ).records
    return sorted((r["name"], r["type"], str(r["labelsOrTypes"]), str(r["properties"]),
                   str(r["owned"])) for r in rows)  # fmt: skip


@pytest.fixture
def empty(neo4j_pool: Neo4jPool) -> Iterator[Neo4jServer]:
    """A Neo4j server of the pool with an empty database (no schema either)."""
    server = neo4j_pool.lease()
    _drop_everything(server)
    yield server
    neo4j_pool.give_back(server)


async def test_a_bolt_uri_opens_neo4j_and_migrates_an_empty_database(
    empty: Neo4jServer,
) -> None:
    settings = Settings(graph_uri=empty.uri, graph_user=empty.user,
                        graph_password=empty.password)  # type: ignore[arg-type]  # fmt: skip
    store = await open_store(settings)
    try:
        assert isinstance(store, Neo4jStore)
        graph = Graph(store)
        assert [m.version for m in await migrate(graph)] == [m.version for m in discover("neo4j")]
        assert await migrate(graph) == []
        full = _schema(empty)
        assert ("item_id", "RANGE", "['Item']", "['id']", "True") in full
    finally:
        await store.close()


@pytest.mark.parametrize("applied", range(1, len(discover("neo4j"))))
async def test_migrations_from_every_earlier_version(empty: Neo4jServer, applied: int) -> None:
    """A database left at any earlier version migrates to the same schema as
    an empty one does."""
    store = Neo4jStore.connect(empty.uri, user=empty.user, password=empty.password)
    try:
        graph = Graph(store)
        await migrate(graph, upto=discover("neo4j")[applied - 1].version)
        rest = [m.version for m in await migrate(graph)]
        assert rest == [m.version for m in discover("neo4j")[applied:]]
        stepwise = _schema(empty)
        _drop_everything(empty)
        await migrate(graph)
        assert _schema(empty) == stepwise
    finally:
        await store.close()


def test_the_migrate_command_on_neo4j(empty: Neo4jServer, tmp_path: Path) -> None:
    run = [*proc.MEMEXD, "migrate", "--data-dir", str(tmp_path)]
    env = proc.environment(Engine("neo4j", empty))
    first = subprocess.run(run, capture_output=True, text=True, check=True, timeout=120, env=env)
    assert "applied 0001_constraints" in first.stdout
    assert "applied 0011_scope_root" in first.stdout
    second = subprocess.run(run, capture_output=True, text=True, check=True, timeout=120, env=env)
    assert second.stdout.strip() == "no pending migrations"


# ---------------------------------------------------------------- bookmarks


async def test_bookmarks_go_to_the_client_and_back(api: Api) -> None:
    """Each answer carries the bookmarks its transactions left; sent back,
    they make the next request wait for those writes (on a cluster: on a
    follower that has not caught up yet)."""
    item = {"scope": "s", "kind": "k", "content": {}, "author": "a", "sourceKind": "o",
            "authority": 0.5}  # fmt: skip
    sent = {"query": CREATE_ITEM, "variables": {"input": item}}
    written = await api.client.post("/graphql", json=sent)
    assert "errors" not in written.json()
    if api.store.backend != "neo4j":
        assert HEADER.lower() not in written.headers  # FalkorDB has no bookmarks
        return
    token = written.headers[HEADER]
    assert token.startswith("FB:")
    read = await api.client.post("/graphql", json={"query": "{ items { id } }"},
                                 headers={HEADER: token})  # fmt: skip
    assert len(read.json()["data"]["items"]) == 1
    assert read.headers[HEADER] == token  # nothing written since


async def test_bookmarks_that_are_not_ours_are_bad_input(api: Api) -> None:
    for bad in ("FB:" + "x" * 600, " ".join(["FB:a"] * 17), "FB:a;drop"):
        answer = await api.client.post("/graphql", json={"query": "{ items { id } }"},
                                       headers={HEADER: bad})  # fmt: skip
        assert answer.status_code == 400
        assert answer.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    stranger = {HEADER: "FB:garbage"}  # well-formed, but no bookmark Neo4j gave out
    answer = (await api.client.post("/graphql", json={"query": "{ items { id } }"},
                                    headers=stranger)).json()  # fmt: skip
    if api.store.backend == "neo4j":
        assert [e["extensions"]["code"] for e in answer["errors"]] == ["BAD_USER_INPUT"]
    else:
        assert answer == {"data": {"items": []}}  # FalkorDB has no bookmarks to wait for
    await api.alive()


# ---------------------------------------------------------------- the engine crashes


@pytest.fixture
def crashing(tmp_path: Path) -> Iterator[tuple[Neo4jServer, str, subprocess.Popen[bytes]]]:
    """A Neo4j of its own (it gets killed) and a memexd serving on it."""
    server = Neo4jServer(tmp_path / "neo4j", heap_mb=512)
    server.start()
    # A restarting Neo4j takes connections before its database is up and
    # holds their transactions meanwhile (a write waited 8.8 s on a quiet
    # machine): a loaded one passed the 10 s default query limit, which
    # answers RESOURCE_EXHAUSTED. Not what this durability test is about.
    url, process = proc.serve(
        tmp_path / "data", engine=Engine("neo4j", server), MEMEXD_QUERY_TIMEOUT_MS="60000"
    )
    yield server, url, process
    proc.stop(process)
    server.stop()


def test_kill_9_of_neo4j_during_a_write_stream_loses_nothing_acknowledged(
    crashing: tuple[Neo4jServer, str, subprocess.Popen[bytes]],
) -> None:
    """Writes fail UNAVAILABLE while Neo4j is down, resume when it is back,
    and every acknowledged one survived the crash."""
    server, url, process = crashing
    acknowledged: list[str] = []
    failures: list[str] = []
    messages: set[str] = set()
    stop = threading.Event()

    def writer() -> None:
        with httpx.Client(timeout=90) as client:
            while not stop.is_set():
                sent = {"query": proc.CREATE_ITEMS, "variables": {"i": proc.item_rows(5)}}
                try:
                    body = client.post(f"{url}/graphql", json=sent).json()
                except httpx.TransportError:
                    failures.append("transport")
                    continue
                if body.get("errors"):
                    failures.extend(e["extensions"]["code"] for e in body["errors"])
                    messages.update(e["message"] for e in body["errors"])
                    time.sleep(0.05)
                else:
                    acknowledged.extend(x["id"] for x in body["data"]["createItems"]["items"])

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert _until(lambda: len(acknowledged) >= 20), "no write went through"
        server.kill()
        before_kill = len(acknowledged)
        assert _until(lambda: len(failures) > 0), "no request noticed the engine was down"
        server.start()
        assert _until(lambda: len(acknowledged) > before_kill + 20), "writes did not resume"
    finally:
        stop.set()
        thread.join(timeout=60)
    assert set(failures) == {"UNAVAILABLE"}, messages  # in flight at the kill: not acknowledged
    query = "query($f: MemoryFilter) { items(filter: $f, limit: 10000) { id } }"
    found = proc.graphql(url, query, f={"scope": "s"})["data"]["items"]
    assert set(acknowledged) <= {x["id"] for x in found}
    assert httpx.get(f"{url}/healthz").status_code == 200
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read().decode()


def _until(condition: Callable[[], bool], seconds: float = 90) -> bool:
    """Whether ``condition`` came true within ``seconds`` (a loaded machine
    plans a fresh engine's first statements slowly)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


async def test_healthz_follows_neo4j(crashing: tuple[Neo4jServer, str, subprocess.Popen[bytes]],
                                     ) -> None:  # fmt: skip
    server, url, _ = crashing
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok", "backend": "neo4j"}
    server.stop()
    assert httpx.get(f"{url}/healthz").status_code == 503
    server.start()
    assert httpx.get(f"{url}/healthz").status_code == 200
