"""The bound on queries in flight to an engine, shared by every store."""

from __future__ import annotations

import asyncio

from memexd.errors import StorageUnavailable

__all__ = ["Gate"]


class Gate:
    """At most ``size`` queries in flight; the others wait up to ``wait`` seconds.

    A semaphore in front of the client's own pool, so that a full pool is
    the same ``UNAVAILABLE`` on every engine: redis-py's blocking pool takes
    a condition variable and a timeout on every query, even when a connection
    is free (a tenth of a point read); the Neo4j driver's wait for a
    connection ends in an error of its own."""

    def __init__(self, size: int, wait: float) -> None:
        self.free = asyncio.Semaphore(size)
        self.wait = wait

    async def enter(self) -> None:
        if not self.free.locked():
            await self.free.acquire()  # free: returns at once
            return
        try:
            async with asyncio.timeout(self.wait):
                await self.free.acquire()
        except TimeoutError:
            raise StorageUnavailable(
                "every connection to the graph engine is busy (MEMEXD_POOL_SIZE); try again"
            ) from None

    def leave(self) -> None:
        self.free.release()
