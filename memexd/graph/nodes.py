"""The nodes of a FalkorDB topology, from the wheel's own ``redis-server``
and ``falkordb.so``: a primary, a replica of one, a Sentinel watching one
(``memexd node``; docs/high-availability.md).

Data nodes keep an append-only file fsynced at every write (as the embedded
engine does), sync replicas without waiting (``repl-diskless-sync-delay 0``:
the default holds a new replica back 5 s), and carry the FalkorDB module. A
Sentinel keeps what it learns (the current primary, the other Sentinels) in
its configuration file, so it is written once and read back at a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memexd.graph.embedded import engine_files

__all__ = ["Address", "Node", "address", "data_node", "sentinel_argv", "sentinel_config"]


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def address(text: str) -> Address:
    """``HOST:PORT``; ``ValueError`` saying what is wrong."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"not HOST:PORT: {text!r}")
    return Address(host.strip("[]"), int(port))


@dataclass(frozen=True, slots=True)
class Node:
    """Where a node listens and keeps its files."""

    dir: Path
    port: int
    bind: str = "127.0.0.1"
    password: str | None = None
    #: the name others reach it by, when not its address (a container's)
    announce: str | None = None


def data_node(
    node: Node, *, of: Address | None = None, fsync: str = "always", min_replicas: int = 0
) -> list[str]:
    """The command line of a primary, or of a replica ``of`` a primary."""
    server, module = engine_files()
    argv = [
        server, "--port", str(node.port), "--bind", node.bind, "--dir", str(node.dir),
        "--appendonly", "yes", "--appendfsync", fsync, "--save", "",
        "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
        "--loadmodule", module,
    ]  # fmt: skip
    if of is not None:
        argv += ["--replicaof", of.host, str(of.port)]
    if min_replicas:
        # a primary cut off from its replicas stops taking writes nobody will see
        argv += ["--min-replicas-to-write", str(min_replicas), "--min-replicas-max-lag", "10"]
    if node.password:
        argv += ["--requirepass", node.password, "--masterauth", node.password]
    if node.announce:
        argv += ["--replica-announce-ip", node.announce]
    return argv


def sentinel_config(
    node: Node,
    primary: Address,
    *,
    service: str,
    quorum: int,
    down_after_ms: int,
    failover_timeout_ms: int,
) -> str:
    """A Sentinel's configuration file, watching ``primary`` as ``service``."""
    lines = [
        f"port {node.port}",
        f"bind {node.bind}",
        f'dir "{node.dir}"',
        "sentinel resolve-hostnames yes",
        f"sentinel monitor {service} {primary.host} {primary.port} {quorum}",
        f"sentinel down-after-milliseconds {service} {down_after_ms}",
        f"sentinel failover-timeout {service} {failover_timeout_ms}",
        f"sentinel parallel-syncs {service} 1",
    ]
    if node.password:
        lines += [f"sentinel auth-pass {service} {node.password}", f"requirepass {node.password}"]
    if node.announce:
        lines += [f"sentinel announce-ip {node.announce}", "sentinel announce-hostnames yes"]
    return "\n".join(lines) + "\n"


def sentinel_argv(config: Path) -> list[str]:
    """The command line of a Sentinel reading (and rewriting) ``config``."""
    server, _ = engine_files()
    return [server, str(config), "--sentinel"]
