"""The process's view of the log's head, shared by every subscription.

One task reads the head (the position of the last event logged) when a
write of this process wakes it, when another process announces one
(FalkorDB: memexd.graph.notices), and at least every ``poll_s`` for writes
of other processes on the same store; when the head moves, every subscription
is nudged and reads what is new for it from the log itself. So the log is
the truth: a wake-up only makes the next read sooner. Streams that ask for
the same page at once (the same grants, filter, position and head: most
subscribers, once caught up) share one read of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Hashable
from typing import Any, Protocol

from memexd.errors import StorageUnavailable
from memexd.events.log import EventFilter, EventLog, LogFilter, Logged
from memexd.feed.settings import FeedSettings
from memexd.feed.stream import FeedStream

__all__ = ["Drainable", "Feed"]

log = logging.getLogger("memexd.feed")


class Drainable(Protocol):
    """A connection that can complete its subscriptions and close."""

    def drain(self) -> Awaitable[None]: ...


class Feed:
    """Subscriptions of one process: the head they read up to, their
    wake-ups, and their orderly end at shutdown."""

    def __init__(self, settings: FeedSettings) -> None:
        self.settings = settings
        #: the last head read (every event up to it is committed)
        self.head = 0
        #: how many times the head was read: a stream measures its lag only
        #: against a head read after it started (the head is stale while no
        #: one listens)
        self.reads = 0
        #: set at shutdown: streams end, new subscriptions are refused
        self.closing = False
        self.connections: set[Drainable] = set()
        self._streams: set[FeedStream] = set()
        self._wake: asyncio.Event | None = None
        self._watcher: asyncio.Task[None] | None = None
        #: log pages being read, by what was asked (shared by the streams asking)
        self._pages: dict[Hashable, asyncio.Future[list[Logged]]] = {}

    def wake(self) -> None:
        """A write of this process may have logged events: read the head now."""
        if self._wake is not None:
            self._wake.set()

    async def open(
        self, events: EventLog, flt: EventFilter | None, after: str | None
    ) -> FeedStream:
        """A subscription for the caller of ``events``: every event after the
        event ``after`` (after the head now, without one). Checks the filter
        and the cursor; reading starts when the stream is first iterated."""
        if self.closing:
            raise StorageUnavailable("memexd is shutting down: subscribe again elsewhere")
        checked = events.check(flt)
        position = await events.head() if after is None else await events.position(after)
        return FeedStream(self, events, checked, position)

    def attach(self, stream: FeedStream) -> None:
        """Called by a stream when it starts reading. The head is read through
        its log (any caller's will do: reading the head reads no event)."""
        self._streams.add(stream)
        if self._wake is None:
            self._wake = asyncio.Event()
        if self._watcher is None or self._watcher.done():
            watch = self._watch(self._wake, stream.events)
            self._watcher = asyncio.create_task(watch, name="memexd-feed-head")
        self.wake()

    def detach(self, stream: FeedStream) -> None:
        self._streams.discard(stream)

    async def page(
        self, events: EventLog, flt: LogFilter, after: int, upto: int, limit: int
    ) -> list[Logged]:
        """``events.read(flt, after, upto, limit)``, one read for every stream
        asking the same of the same store with the same grants meanwhile (a
        stream that goes away does not cancel it for the others)."""
        graph = events.graph
        key = (graph.store, graph.access.read, _frozen(flt.params), after, upto, limit)
        pending = self._pages.get(key)
        if pending is None:
            pending = asyncio.ensure_future(events.read(flt, after, upto, limit))
            self._pages[key] = pending
            pending.add_done_callback(lambda done: self._read_done(key, done))
        return await asyncio.shield(pending)

    def _read_done(self, key: Hashable, done: asyncio.Future[list[Logged]]) -> None:
        """Forget a page read; its failure is each waiter's (and retrieved
        here, for when every waiter has gone)."""
        self._pages.pop(key, None)
        if not done.cancelled():
            done.exception()

    async def _watch(self, wake: asyncio.Event, events: EventLog) -> None:
        """Read the head while anyone listens; nudge every stream when it moves."""
        failing = False
        while self._streams and not self.closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self.settings.poll_s)
            wake.clear()
            try:
                head = await events.head()
            except Exception as exc:  # the engine restarts: streams wait, nothing is lost
                if not failing:
                    log.warning("feed: cannot read the log's head (%r); retrying", exc)
                failing = True
                continue
            failing = False
            self.reads += 1
            if head > self.head:
                self.head = head
                for stream in list(self._streams):
                    stream.nudge()

    async def drain(self) -> None:
        """Shutdown: end every subscription (each completes) and close every
        connection, waiting at most ``drain_s`` for slow ones."""
        self.closing = True
        for stream in list(self._streams):
            stream.nudge()
        if self.connections:
            pending = [asyncio.ensure_future(c.drain()) for c in list(self.connections)]
            _, late = await asyncio.wait(pending, timeout=self.settings.drain_s)
            for task in late:
                task.cancel()

    async def close(self) -> None:
        """Stop reading the head (after :meth:`drain`, or when the app stops)."""
        self.closing = True
        for stream in list(self._streams):
            stream.nudge()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher


def _frozen(params: dict[str, Any]) -> Hashable:
    """A filter's parameters as a key (its lists as tuples)."""
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))
