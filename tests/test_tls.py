"""TLS to an external FalkorDB (docs/high-availability.md, "TLS"):
``rediss://`` to one node and ``rediss+sentinel://`` to Sentinels and the
nodes they name, the engine's certificate verified against a private CA,
memexd's own certificate for engines that ask for one, and every mistake a
clear line at start. The nodes are real (``memexd node``); the wheel's
``redis-server`` has no TLS, so each sits behind a TLS terminator
(tests/tls.py)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memexd.errors import SettingsError, StartupError
from memexd.graph.open import open_migrated
from memexd.settings import load_settings
from memexd.types import GraphStore
from tests import topology
from tests.processes import CREATE_ITEMS, MEMEXD, free_port, item_rows, serve, stop
from tests.tls import Certificates, Terminator

READ = "query($ids: [ID!]!) { items(filter: {ids: $ids}) { id } }"


@pytest.fixture(scope="module")
def certificates() -> Certificates:
    return Certificates.make()


@pytest.fixture(scope="module")
def files(certificates: Certificates, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The CA memexd trusts, and memexd's own certificate and key."""
    root = tmp_path_factory.mktemp("tls")
    mine = certificates.ca.issue_cert("memexd")
    paths = {"ca": root / "ca.pem", "cert": root / "memexd.pem", "key": root / "memexd.key"}
    certificates.ca.cert_pem.write_to_path(str(paths["ca"]))
    mine.cert_chain_pems[0].write_to_path(str(paths["cert"]))
    mine.private_key_pem.write_to_path(str(paths["key"]))
    return paths


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[topology.Process]:
    root, port = tmp_path_factory.mktemp("node"), free_port()
    argv = [*MEMEXD, "node", "primary", "--dir", str(root), "--port", str(port)]
    started = topology.Process("primary", port, root, argv)
    started.spawn()
    topology.wait_answers(port)
    yield started
    started.kill(signal.SIGTERM)


@pytest.fixture
def secured(node: topology.Process, certificates: Certificates) -> Iterator[Terminator]:
    terminator = Terminator(node.port, certificates.server())
    yield terminator
    terminator.stop()


async def _round_trip(store: GraphStore) -> None:
    """A write and a read back, through the store."""
    made = await store.write("CREATE (n:TlsProbe {v: $v}) RETURN n.v AS v", {"v": 7})
    assert made == [{"v": 7}]
    assert await store.read("MATCH (n:TlsProbe {v: $v}) RETURN count(n) AS n", {"v": 7}) != []


async def _opened(**settings: object) -> GraphStore:
    store, _ = await open_migrated(load_settings({"graph_name": "tls", **settings}, env_file=None))
    return store


def test_memexd_serves_over_tls_to_one_node(
    secured: Terminator, files: dict[str, Path], tmp_path: Path
) -> None:
    url, process = serve(tmp_path, MEMEXD_GRAPH_URI=f"rediss://127.0.0.1:{secured.port}",
                         MEMEXD_GRAPH_TLS_CA=str(files["ca"]), MEMEXD_EMBEDDING="off",
                         MEMEXD_WORKERS="1")  # fmt: skip
    try:
        body = {"query": CREATE_ITEMS, "variables": {"i": item_rows(2)}}
        made = httpx.post(f"{url}/graphql", json=body).json()
        assert not made.get("errors"), made
        ids = [item["id"] for item in made["data"]["createItems"]["items"]]
        found = httpx.post(f"{url}/graphql", json={"query": READ, "variables": {"ids": ids}})
        assert sorted(i["id"] for i in found.json()["data"]["items"]) == sorted(ids)
    finally:
        stop(process)
    assert secured.secured > 0
    assert secured.refused == 0


async def test_an_engine_whose_certificate_memexd_cannot_verify_stops_it_at_start(
    secured: Terminator,
) -> None:
    """Without the private CA, the system's CAs do not vouch for the
    engine: memexd refuses to start, saying why, and sends nothing."""
    with pytest.raises(StartupError, match="certificate verify failed") as caught:
        await _opened(graph_uri=f"rediss://127.0.0.1:{secured.port}")
    assert caught.value.message.startswith(f"cannot reach rediss://127.0.0.1:{secured.port}")
    assert secured.secured == 0


async def test_a_plain_node_is_not_spoken_to_in_the_clear(
    node: topology.Process, files: dict[str, Path]
) -> None:
    with pytest.raises(StartupError, match="cannot reach rediss://"):
        await _opened(graph_uri=f"rediss://127.0.0.1:{node.port}", graph_tls_ca=files["ca"])


async def test_an_engine_that_asks_for_memexd_s_certificate_gets_it(
    node: topology.Process, certificates: Certificates, files: dict[str, Path]
) -> None:
    terminator = Terminator(node.port, certificates.server(clients_must_prove=True))
    uri = f"falkors://127.0.0.1:{terminator.port}"
    try:
        with pytest.raises(StartupError, match="cannot reach falkors://"):
            await _opened(graph_uri=uri, graph_tls_ca=files["ca"])
        assert terminator.refused > 0
        assert terminator.secured == 0
        store = await _opened(graph_uri=uri, graph_tls_ca=files["ca"],
                              graph_tls_cert=files["cert"], graph_tls_key=files["key"])  # fmt: skip
        try:
            await _round_trip(store)
        finally:
            await store.close()
        assert terminator.secured > 0
    finally:
        terminator.stop()


async def test_sentinels_and_the_primary_they_name_over_tls(
    node: topology.Process, certificates: Certificates, files: dict[str, Path], tmp_path: Path
) -> None:
    """The Sentinel is asked over TLS; it names the primary where it checks
    it (in plain, through the terminator that lets plain through), and
    memexd speaks TLS there."""
    primary = Terminator(node.port, certificates.server(), plain_too=True)
    port = free_port()
    argv = [*MEMEXD, "node", "sentinel", "--dir", str(tmp_path), "--port", str(port),
            "--monitor", f"127.0.0.1:{primary.port}", "--service", topology.SERVICE,
            "--quorum", "1", "--down-after-ms", "1000"]  # fmt: skip
    sentinel = topology.Process("sentinel", port, tmp_path, argv)
    sentinel.spawn()
    asked = Terminator(port, certificates.server())
    try:
        topology.wait_answers(port)
        uri = f"rediss+sentinel://127.0.0.1:{asked.port}/{topology.SERVICE}"
        store = await _opened(graph_uri=uri, graph_tls_ca=files["ca"])
        try:
            await _round_trip(store)
        finally:
            await store.close()
        assert asked.secured > 0
        assert primary.secured > 0
        assert asked.refused == 0
        assert primary.refused == 0
    finally:
        asked.stop()
        sentinel.kill(signal.SIGTERM)
        primary.stop()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"graph_uri": "redis://h:6379", "graph_tls_ca": "ca"}, "MEMEXD_GRAPH_TLS_CA: needs a"),
        ({"graph_uri": None, "graph_tls_cert": "cert"}, "MEMEXD_GRAPH_TLS_CERT: needs a"),
        ({"graph_uri": "bolt://h:7687", "graph_tls_ca": "ca"}, "for Neo4j use bolt\\+s://"),
        ({"graph_uri": "rediss://h:6379", "graph_tls_key": "key"}, "without its certificate"),
        ({"graph_uri": "rediss://h:6379", "graph_tls_ca": "missing"}, "MEMEXD_GRAPH_TLS_CA"),
    ],
)
def test_tls_settings_that_cannot_work_are_one_clear_line(
    settings: dict[str, str | None], message: str, files: dict[str, Path], tmp_path: Path
) -> None:
    given = {k: v if v in (None, "missing") or k == "graph_uri" else str(files[v])
             for k, v in settings.items()}  # fmt: skip
    if given.get("graph_tls_ca") == "missing":
        given["graph_tls_ca"] = str(tmp_path / "missing.pem")
    with pytest.raises(SettingsError, match=message):
        load_settings(given, env_file=None)
