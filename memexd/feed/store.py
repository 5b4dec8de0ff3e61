"""A graph store that wakes the feed after each write of this process.

The feed reads the log's head on a timer anyway, and on FalkorDB when
another process announces a write (memexd.graph.notices); a local write
only makes it look now.
"""

from __future__ import annotations

from collections.abc import Callable

from memexd.types import GraphStore, Params, Row

__all__ = ["WakingStore"]


class WakingStore:
    """``inner`` as it is, calling ``wake`` after every write (failed ones too:
    a wake-up that finds nothing new costs one read of the head)."""

    def __init__(self, inner: GraphStore, wake: Callable[[], None]) -> None:
        self.inner = inner
        self.backend = inner.backend
        self._wake = wake

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self.inner.read(text, params)

    async def write(self, text: str, params: Params) -> list[Row]:
        try:
            return await self.inner.write(text, params)
        finally:
            self._wake()

    async def execute_ddl(self, text: str) -> None:
        await self.inner.execute_ddl(text)

    async def ping(self) -> None:
        await self.inner.ping()

    async def close(self) -> None:
        await self.inner.close()
