"""Several worker processes on one socket and one engine (``--workers N``).

The supervisor (the process ``memexd serve`` started) binds the socket, opens
and migrates the engine once, then starts N workers, each a fresh interpreter
(``multiprocessing``'s spawn: no event loop or engine connection inherited).
Every worker accepts on the same listening socket and the kernel gives each
connection to one of them; a worker is a whole memexd (grants, keys, the
feed), so any of them can answer any request.

The supervisor:

* keeps the embedded engine: its data directory lock and its restarts
  (workers connect to its socket and wait for it when it comes back);
* starts a worker again when one dies, with back-off;
* on SIGTERM or SIGINT stops the workers, each draining as a single server
  does, then the engine.

Workers die with the supervisor (``PR_SET_PDEATHSIG``), like the engine, so
a ``kill -9`` of the supervisor leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.context import SpawnContext, SpawnProcess
from multiprocessing.synchronize import Event

from memexd.errors import StartupError
from memexd.graph.embedded import die_with_parent
from memexd.server.serve import configure_logging, prepare, run, serve_worker
from memexd.settings import Settings

__all__ = ["supervise"]

log = logging.getLogger("memexd.workers")

#: How long a starting worker may take to listen.
_START_S = 120.0
#: Seconds past the feed's drain a stopping worker gets before it is killed.
_STOP_GRACE_S = 10.0
#: How often the supervisor looks at its workers.
_WATCH_S = 0.2
#: A worker that lived this long before dying is restarted at once.
_STABLE_S = 10.0
_BACKOFF_MAX_S = 5.0


async def supervise(settings: Settings, listener: socket.socket) -> None:
    """Prepare the engine, run ``settings.workers`` workers until a signal
    says stop, then stop them and the engine."""
    store = await prepare(settings)
    try:
        await _Workers(settings, listener).run()
    finally:
        await store.close()


class _Slot:
    """One worker's place: the process in it now, and its restart back-off."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.process: SpawnProcess | None = None
        #: set by the worker once it listens (kept here: the parent's copy
        #: must outlive the child's start, or the semaphore is unlinked)
        self.ready: Event | None = None
        self.started = 0.0
        self.delay = 0.0
        self.due = 0.0


class _Workers:
    def __init__(self, settings: Settings, listener: socket.socket) -> None:
        self._settings = settings
        self._listener = listener
        self._context: SpawnContext = multiprocessing.get_context("spawn")
        self._slots = [_Slot(str(n + 1)) for n in range(settings.workers)]
        self._stop = asyncio.Event()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        try:
            await self._start_all()
            log.info("serving with %d workers", len(self._slots))
            await self._watch()
        finally:
            await self._stop_all()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)

    async def _start_all(self) -> None:
        """Start every worker and wait until each listens; one that dies
        first stops the start with its exit status."""
        for slot in self._slots:
            self._spawn(slot)
        deadline = time.monotonic() + _START_S
        while not all(slot.ready is not None and slot.ready.is_set() for slot in self._slots):
            for slot in self._slots:
                if slot.process is not None and slot.process.exitcode is not None:
                    raise StartupError(
                        f"worker {slot.name} exited as it started ({slot.process.exitcode})"
                    )
            if self._stop.is_set():
                return
            if time.monotonic() > deadline:
                raise StartupError("the workers did not start in time")
            await asyncio.sleep(0.02)

    def _spawn(self, slot: _Slot) -> None:
        slot.ready = self._context.Event()
        args = (self._settings, self._listener, slot.name, slot.ready, os.getpid())
        slot.process = self._context.Process(
            target=_worker, args=args, name=f"memexd-worker-{slot.name}"
        )
        slot.process.start()
        slot.started = time.monotonic()

    async def _watch(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            for slot in self._slots:
                self._revive(slot, now)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), _WATCH_S)

    def _revive(self, slot: _Slot, now: float) -> None:
        """Start a dead worker again, at once if it had lived a while."""
        process = slot.process
        if process is not None and process.exitcode is None:
            return
        if process is not None:
            slot.process = None
            stable = now - slot.started > _STABLE_S
            slot.delay = 0.0 if stable else min(max(slot.delay * 2, 0.1), _BACKOFF_MAX_S)
            slot.due = now + slot.delay
            log.error("worker %s exited (%s); starting it again in %.1f s",
                      slot.name, process.exitcode, slot.delay)  # fmt: skip
        if now >= slot.due:
            self._spawn(slot)

    async def _stop_all(self) -> None:
        processes = [s.process for s in self._slots if s.process is not None]
        for process in processes:
            if process.exitcode is None and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
        deadline = time.monotonic() + self._settings.feed_drain_s + _STOP_GRACE_S
        while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for process in processes:
            if process.exitcode is None:
                log.warning("worker %s did not stop in time; killing it", process.name)
                process.kill()
                process.join()


def _worker(
    settings: Settings, listener: socket.socket, name: str, ready: Event, parent: int
) -> None:
    """A worker process's life: serve until SIGTERM (or the supervisor's death)."""
    die_with_parent()
    if os.getppid() != parent:  # it died before we asked to die with it
        return
    configure_logging(settings)
    run(serve_worker(settings, listener, name, ready.set))
