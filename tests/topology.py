"""A FalkorDB topology on loopback for the tests: a primary, replicas and
Sentinels, each a ``memexd node`` process (short timeouts: a failover in a
few seconds)."""

from __future__ import annotations

import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.processes import MEMEXD, free_port

#: The Sentinels' name for the primary.
SERVICE = "memexd"
#: How long a silent primary goes before the Sentinels count it down.
DOWN_AFTER_MS = 1_000


@dataclass
class Process:
    role: str
    port: int
    dir: Path
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None

    def spawn(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        log = (self.dir / "node.log").open("ab")
        self.process = subprocess.Popen(self.argv, stdout=log, stderr=log,
                                        stdin=subprocess.DEVNULL)  # fmt: skip

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            if sig in (signal.SIGKILL, signal.SIGTERM):
                self.process.wait(20)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True, socket_timeout=10)


@dataclass
class Topology:
    nodes: list[Process] = field(default_factory=list)

    @property
    def sentinels(self) -> list[Process]:
        return [n for n in self.nodes if n.role == "sentinel"]

    @property
    def data(self) -> list[Process]:
        return [n for n in self.nodes if n.role != "sentinel"]

    def uri(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    def primary(self) -> Process:
        """The data node that says it is the primary now."""
        for node in self.data:
            try:
                if node.client().execute_command("ROLE")[0] == "master":
                    return node
            except redis.RedisError:
                continue
        raise AssertionError("no primary")

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.kill(signal.SIGTERM)


def wait_answers(port: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                return
        except redis.RedisError:
            time.sleep(0.05)
    raise AssertionError(f"nothing answers on port {port}")


def start(root: Path, replicas: int = 2, sentinels: int = 3) -> Topology:
    """A primary, ``replicas`` replicas and ``sentinels`` Sentinels, running."""
    topology = Topology()
    primary_port = free_port()
    for n in range(1 + replicas):
        port = primary_port if n == 0 else free_port()
        role = "primary" if n == 0 else "replica"
        argv = [*MEMEXD, "node", role, "--dir", str(root / f"data-{n}"), "--port", str(port)]
        if n:
            argv += ["--of", f"127.0.0.1:{primary_port}"]
        topology.nodes.append(Process(role, port, root / f"data-{n}", argv))
    for n in range(sentinels):
        port = free_port()
        argv = [*MEMEXD, "node", "sentinel", "--dir", str(root / f"sentinel-{n}"),
                "--port", str(port), "--monitor", f"127.0.0.1:{primary_port}",
                "--service", SERVICE, "--quorum", str(min(2, sentinels)),
                "--down-after-ms", str(DOWN_AFTER_MS), "--failover-timeout-ms", "5000"]  # fmt: skip
        topology.nodes.append(Process("sentinel", port, root / f"sentinel-{n}", argv))
    try:
        # the data nodes synced first: a Sentinel then learns the replicas
        # from its first look at the primary, not 10 s later
        for group in (topology.data, topology.sentinels):
            for node in group:
                node.spawn()
            for node in group:
                wait_answers(node.port)
            wait_synced(topology, sentinels=group is topology.sentinels)
    except BaseException:
        topology.stop()
        raise
    return topology


def wait_synced(topology: Topology, seconds: float = 30.0, *, sentinels: bool = True) -> None:
    """Until every replica is connected and the Sentinels (if ``sentinels``)
    know them all and each other."""
    want = len(topology.data) - 1
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        info = topology.primary().client().info("replication")
        online = sum(1 for k, v in info.items() if k.startswith("slave")
                     and isinstance(v, dict) and v.get("state") == "online")  # fmt: skip
        watching = topology.sentinels if sentinels else []
        known = [len(s.client().sentinel_slaves(SERVICE)) for s in watching]
        peers = [len(s.client().sentinel_sentinels(SERVICE)) for s in watching]
        others = len(watching) - 1
        if online == want and all(k == want for k in known) and all(p == others for p in peers):
            return
        time.sleep(0.1)
    raise AssertionError("the replicas did not sync")
