"""The bound on queries in flight to an engine, shared by every store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from memexd.errors import Overloaded

__all__ = ["Gate", "one_wait"]

#: Seconds the current request has waited at gates so far (unset: no request).
_waited: ContextVar[list[float] | None] = ContextVar("memexd_gate_waited", default=None)


@contextmanager
def one_wait() -> Iterator[None]:
    """Within, waits at gates add up to one ``wait``: a request that runs many
    queries waits at most that long in all, not that long for each."""
    token = _waited.set([0.0])
    try:
        yield
    finally:
        _waited.reset(token)


class Gate:
    """At most ``size`` queries in flight; the others wait, in arrival order,
    up to ``wait`` seconds (per request, inside :func:`one_wait`).

    A semaphore in front of the client's own pool, so that a full pool is
    the same ``UNAVAILABLE`` on every engine: redis-py's blocking pool takes
    a condition variable and a timeout on every query, even when a connection
    is free (a tenth of a point read); the Neo4j driver's wait for a
    connection ends in an error of its own. The queue is here rather than in
    the engine, whose own queue serves in no particular order."""

    def __init__(self, size: int, wait: float) -> None:
        self.free = asyncio.Semaphore(size)
        self.wait = wait

    async def enter(self) -> None:
        if not self.free.locked():
            await self.free.acquire()  # free: returns at once
            return
        waited = _waited.get()
        start = time.monotonic()
        try:
            async with asyncio.timeout(max(0.0, self.wait - (waited[0] if waited else 0.0))):
                await self.free.acquire()
        except TimeoutError:
            raise Overloaded(
                "every connection to the graph engine is busy (MEMEXD_POOL_SIZE); try again"
            ) from None
        finally:
            if waited is not None:
                waited[0] += time.monotonic() - start

    def leave(self) -> None:
        self.free.release()
