"""A real Neo4j 5.26 for tests, CI and benchmarks: the launcher in
``tools/neo4j`` (embedded Community with Bolt on loopback), built with Maven
on first use and started as a child process.

As a command it starts one and prints how to reach it, for the README's
session: ``python -m tests.neo4j_server --data /tmp/neo4j``.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j

__all__ = ["Neo4jServer", "build", "explain", "operators", "seeks"]

LAUNCHER = Path(__file__).resolve().parents[1] / "tools" / "neo4j"
TARGET = LAUNCHER / "target"
JAR = TARGET / "neo4j-launcher-1.jar"
READY = "memexd-neo4j ready "


class LauncherFailed(RuntimeError):
    """The launcher could not be built or did not become ready."""


def build() -> Path:
    """Build the launcher unless its jar is newer than its sources. Parallel
    test workers take turns on a file lock, so one builds and the rest reuse."""
    TARGET.mkdir(exist_ok=True)
    with (TARGET / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _stale():
            return JAR
        # offline first: once Maven's cache holds the pinned artifacts, no network
        for offline in (["-o"], []):
            done = subprocess.run(
                ["mvn", "-q", "-B", *offline, "package", "-DskipTests"],
                cwd=LAUNCHER, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode == 0:
                return JAR
        raise LauncherFailed(f"mvn package failed:\n{done.stdout[-4000:]}{done.stderr[-2000:]}")


def _stale() -> bool:
    if not JAR.exists() or not (TARGET / "lib").is_dir():
        return True
    sources = [LAUNCHER / "pom.xml", *LAUNCHER.glob("src/**/*.java")]
    return max(p.stat().st_mtime for p in sources) > JAR.stat().st_mtime


@dataclass
class Neo4jServer:
    """One Neo4j process on a data directory. ``start`` again after ``stop``
    or ``kill`` reopens the same database (and its password)."""

    data: Path
    heap_mb: int = 768
    pagecache_mb: int = 256
    tx_timeout_ms: int = 60_000
    tx_memory_mb: int = 1024
    password: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    user: str = "neo4j"
    #: more Neo4j settings, ``name=value`` (``db.checkpoint.interval.time=30s``)
    settings: tuple[str, ...] = ()
    #: 0: any free port at the first start; later starts reuse the port it got
    port: int = 0
    uri: str = ""
    process: subprocess.Popen[str] | None = None
    _log: list[str] = field(default_factory=list)

    def start(self, timeout: float = 180.0) -> str:
        """Start it; return its ``bolt://`` address once it accepts connections."""
        build()
        self.data.mkdir(parents=True, exist_ok=True)
        argv = ["java", f"-Xmx{self.heap_mb}m", f"-Xms{self.heap_mb}m",
                "-cp", f"{JAR}{os.pathsep}{TARGET / 'lib' / '*'}", "memexd.Launcher",
                "--data", str(self.data), "--port", str(self.port),
                "--pagecache", str(self.pagecache_mb),
                "--tx-timeout-ms", str(self.tx_timeout_ms),
                "--tx-memory-mb", str(self.tx_memory_mb),
                *(arg for setting in self.settings for arg in ("--set", setting))]  # fmt: skip
        env = {**os.environ, "MEMEXD_NEO4J_PASSWORD": self.password}
        # stdin stays open for the launcher's lifetime: when this process dies,
        # the pipe closes and the launcher stops too
        self.process = subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.uri = self._await_ready(self.process, timeout)
        self.port = int(self.uri.rsplit(":", 1)[1])
        return self.uri

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else 0

    def stop(self) -> None:
        """SIGTERM: the launcher shuts the database down cleanly."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL, as a crash: the next start recovers from the transaction log."""
        self._end(signal.SIGKILL)

    def env(self) -> dict[str, str]:
        """memexd's settings for this server."""
        return {"MEMEXD_GRAPH_URI": self.uri, "MEMEXD_GRAPH_USER": self.user,
                "MEMEXD_GRAPH_PASSWORD": self.password}  # fmt: skip

    def _end(self, sig: signal.Signals) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdin:
            process.stdin.close()

    def _await_ready(self, process: subprocess.Popen[str], timeout: float) -> str:
        found: list[str] = []
        reader = threading.Thread(target=self._drain, args=(process, found), daemon=True)
        reader.start()
        deadline = time.monotonic() + timeout
        while not found and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not found:
            process.kill()
            raise LauncherFailed("Neo4j did not start:\n" + "".join(self._log[-40:]))
        return found[0]

    def _drain(self, process: subprocess.Popen[str], found: list[str]) -> None:
        # keep reading, so a chatty JVM never blocks on a full pipe
        if process.stdout is None:
            return
        for line in process.stdout:
            if line.startswith(READY) and not found:
                found.append(line[len(READY) :].strip())
            self._log.append(line)
            del self._log[:-200]


def operators(plan: Any) -> list[str]:
    """The operators of a plan or profile the driver returns, depth first."""
    found: list[str] = []
    pending = [plan]
    while pending:
        node = pending.pop()
        if node:
            found.append(str(node["operatorType"]).split("@")[0])
            pending.extend(node.get("children", []))
    return found


def explain(server: Neo4jServer, text: str, params: dict[str, Any]) -> list[str]:
    """The operators of Neo4j's plan for a statement (EXPLAIN), leaves included."""
    return operators(_plan(server, text, params))


def seeks(server: Neo4jServer, text: str, params: dict[str, Any]) -> list[str]:
    """The index seeks of Neo4j's plan for a statement, with their details
    (the index and the predicates it answers)."""
    found, pending = [], [_plan(server, text, params)]
    while pending:
        node = pending.pop()
        if str(node["operatorType"]).startswith("NodeIndex"):
            found.append(str(node.get("args", {}).get("Details", "")))
        pending.extend(node.get("children", []))
    return found


def _plan(server: Neo4jServer, text: str, params: dict[str, Any]) -> Any:
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as db:
        # The server is reused across tests: plan from this graph's statistics,
        # not from whatever an earlier test left sampled.
        db.execute_query("CALL db.prepareForReplanning()")
        return db.execute_query("CYPHER 5 EXPLAIN " + text, params).summary.plan  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="data directory")
    parser.add_argument("--password", help="the neo4j user's password (default: generated)")
    args = parser.parse_args()
    server = Neo4jServer(args.data)
    if args.password:
        server.password = args.password
    server.start()
    for name, value in server.env().items():
        print(f"export {name}={value}")
    print("# Neo4j runs until this command is interrupted (Ctrl-C)", file=sys.stderr)
    sys.stdout.flush()
    stop = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    try:
        signal.sigwait(stop)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
