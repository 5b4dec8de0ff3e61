"""``memexd node``: run one node of a FalkorDB topology (a primary, a
replica of one, or a Sentinel) in the foreground, from the wheel's own
engine (memexd.graph.nodes; docs/high-availability.md). The process becomes
the engine: signals reach it directly, and it stops as a ``redis-server``
does (``SIGTERM``: its log flushed)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

from memexd.errors import BadUserInput
from memexd.graph.nodes import Address, Node, address, data_node, sentinel_argv, sentinel_config

__all__ = ["add_parsers", "run"]

#: A password fit for a command line and a configuration file.
_PASSWORD = re.compile(r"^[!-~]{1,512}$")


def add_parsers(commands: Any) -> list[argparse.ArgumentParser]:
    node = commands.add_parser(
        "node", help="run a FalkorDB primary, replica or Sentinel (high availability)",
        description="Run one node of a FalkorDB topology in the foreground, from the engine "
        "that ships with memexd: a primary, a replica of one, or a Sentinel.",
    )  # fmt: skip
    roles = node.add_subparsers(dest="role", required=True)
    primary = roles.add_parser("primary", help="a primary: takes the writes")
    replica = roles.add_parser("replica", help="a replica: applies a primary's writes")
    replica.add_argument("--of", required=True, metavar="HOST:PORT", help="its primary")
    watch = roles.add_parser("sentinel", help="a Sentinel: promotes a replica if the primary dies")
    watch.add_argument("--monitor", required=True, metavar="HOST:PORT", help="the primary")
    watch.add_argument("--service", default="memexd", help="the primary's name (default memexd)")
    watch.add_argument("--quorum", type=int, default=2, help="Sentinels that must agree (2)")
    watch.add_argument("--down-after-ms", type=int, default=5_000,
                       help="silence before a node counts as down (5000)")  # fmt: skip
    watch.add_argument("--failover-timeout-ms", type=int, default=60_000,
                       help="how long one failover may take (60000)")  # fmt: skip
    for parser in (primary, replica, watch):
        parser.add_argument("--dir", type=Path, required=True, help="its files")
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--bind", default="127.0.0.1", help="address (default 127.0.0.1)")
        parser.add_argument("--password-file", type=Path, help="the nodes' shared password")
        parser.add_argument("--announce", metavar="HOST",
                            help="the name the others reach it by (a container's)")  # fmt: skip
    for parser in (primary, replica):
        parser.add_argument("--fsync", choices=("always", "everysec"), default="always",
                            help="when the log reaches the disk (always)")  # fmt: skip
        parser.add_argument("--min-replicas", type=int, default=0,
                            help="refuse writes while fewer replicas are connected "
                            "(min-replicas-to-write)")  # fmt: skip
    return [node]


def run(args: argparse.Namespace) -> int:
    """Become the node ``args`` describes (never returns but with an error)."""
    node = _node(args)
    if args.role == "sentinel":
        config = node.dir / "sentinel.conf"
        if not config.exists():  # else: what the Sentinel learnt, read back
            config.write_text(sentinel_config(
                node, _address(args.monitor), service=_service(args.service),
                quorum=_positive("--quorum", args.quorum),
                down_after_ms=_positive("--down-after-ms", args.down_after_ms),
                failover_timeout_ms=_positive("--failover-timeout-ms", args.failover_timeout_ms),
            ))  # fmt: skip
        argv = sentinel_argv(config)
    else:
        of = _address(args.of) if args.role == "replica" else None
        replicas = args.min_replicas
        if replicas < 0:
            raise BadUserInput("--min-replicas: not a count")
        argv = data_node(node, of=of, fsync=args.fsync, min_replicas=replicas)
    os.execv(argv[0], argv)  # noqa: S606 - fixed program, argv from validated flags


def _node(args: argparse.Namespace) -> Node:
    if not 0 < args.port < 65536:
        raise BadUserInput(f"--port: not a port: {args.port}")
    password = None
    if args.password_file is not None:
        try:
            password = args.password_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise BadUserInput(f"--password-file: {exc.strerror}") from None
        if not _PASSWORD.match(password):
            raise BadUserInput("--password-file: one line of printable characters, no spaces")
    try:
        args.dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadUserInput(f"--dir: {exc.strerror}") from None
    return Node(args.dir.resolve(), args.port, args.bind, password, args.announce)


def _address(text: str) -> Address:
    try:
        return address(text)
    except ValueError as exc:
        raise BadUserInput(str(exc)) from None


def _service(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise BadUserInput(f"--service: letters, digits, '_', '.', '-' only: {name!r}")
    return name


def _positive(flag: str, value: int) -> int:
    if value < 1:
        raise BadUserInput(f"{flag}: must be at least 1")
    return value
