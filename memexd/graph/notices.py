"""Writes announced to every memexd on a graph, so each feed looks at once.

A memexd reads the log's head when one of its own writes wakes its feed, and
on a timer (``MEMEXD_FEED_POLL_S``) for the writes of other processes: the
other workers of ``memexd serve --workers N``, other machines. On FalkorDB
each write carries, in its own packet, a ``PUBLISH`` on the graph's channel,
and every memexd listens there and wakes its feed when one comes: a write
through one worker reaches the subscribers of another without waiting for
the timer. The log stays the truth: a notice only makes the next read of the
head sooner, and one missed (while the engine restarts) is caught by the
timer. Neo4j has no such channel: there the timer alone serves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

__all__ = ["Announcing", "follow_writes", "written"]


def written(graph: str) -> str:
    """The channel a graph's writes are announced on."""
    return f"memexd:{graph}:written"


@runtime_checkable
class Announcing(Protocol):
    """A store whose writes are announced, and that can listen for them."""

    def listen_writes(self, wake: Callable[[], None]) -> Awaitable[None]: ...


async def follow_writes(store: object, wake: Callable[[], None]) -> None:
    """Call ``wake`` at every write announced on ``store``'s graph, until
    cancelled; return at once on an engine that announces none."""
    if isinstance(store, Announcing):
        await store.listen_writes(wake)
