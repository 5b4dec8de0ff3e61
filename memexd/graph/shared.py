"""A worker's handle on the embedded engine another process supervises.

With ``memexd serve --workers N`` the parent process starts the embedded
FalkorDB, holds the data directory's lock and restarts the engine when it
dies; each worker only connects to its socket. When a worker finds the engine
down, :meth:`SharedEngine.wait_ready` watches the socket until the parent's
restart answers, as :class:`~memexd.graph.embedded.EmbeddedFalkor` does for the
process that owns it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from memexd.graph.embedded import answers, compact_aof

__all__ = ["SharedEngine", "Supervised"]

#: How often a waiting worker looks at the socket again.
_PROBE_S = 0.05


class Supervised(Protocol):
    """An engine someone brings back when it dies: what a store waits on."""

    @property
    def restarts(self) -> int:
        """How many times the engine was seen coming back, or replaced
        (connections made before point at a dead or demoted process)."""
        ...

    async def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the engine to answer."""
        ...

    async def compact(self) -> None:
        """Rewrite the engine's append-only file from its data."""
        ...

    async def stop(self) -> None:
        """Release the engine (stop it, when this process owns it)."""
        ...


class SharedEngine:
    """The engine on ``socket``, owned and supervised by the parent process."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.restarts = 0

    async def wait_ready(self, timeout: float) -> bool:
        """Wait until the engine answers; a wait that saw it down counts a
        restart, so the store drops connections to the process that died."""
        deadline = time.monotonic() + timeout
        while not await answers(self.socket):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_PROBE_S)
        self.restarts += 1
        return True

    async def compact(self) -> None:
        await compact_aof(self.socket)

    async def stop(self) -> None:
        """Nothing: the parent stops the engine after its workers."""
