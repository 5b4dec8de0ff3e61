"""One subscription: the log after a position, read ahead into a bounded buffer.

A reader task reads the events between the subscription's position and the
head (``Feed.head``) from the log, with the caller's grants and filter, into
a buffer of at most ``buffer`` events; the subscriber takes them in order.
Catching up and following live are the same loop, so there is no hand-over
where an event could be missed or repeated.

A subscriber that takes events slower than they are logged falls further and
further behind the head: once it is more than ``max_lag`` log positions
further behind than it was at its closest, it is a slow consumer
(:class:`SlowConsumer`) and must resume from its last event. Catching up from
an old cursor is not falling behind: only the growth of the lag counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable
from enum import Enum
from typing import Protocol

from memexd.errors import MemexError, StorageError
from memexd.events.log import EventLog, LogFilter, Logged
from memexd.feed.settings import FeedSettings

__all__ = ["FeedStream", "Head", "SlowConsumer"]

log = logging.getLogger("memexd.feed")

#: Backoff bounds while the engine cannot be read (seconds).
_RETRY_FIRST, _RETRY_MAX = 0.05, 1.0


class SlowConsumer(MemexError):
    """The subscriber fell too far behind the log; it resumes from its last event."""

    code = "SLOW_CONSUMER"


class Head(Protocol):
    """What a stream needs of its process's feed (:class:`memexd.feed.hub.Feed`,
    which holds the streams: a protocol keeps the two modules out of a circle)."""

    settings: FeedSettings
    #: the last head read, how many times it was read, and whether the feed is closing
    head: int
    reads: int
    closing: bool

    def attach(self, stream: FeedStream) -> None: ...

    def detach(self, stream: FeedStream) -> None: ...

    def page(
        self, events: EventLog, flt: LogFilter, after: int, upto: int, limit: int
    ) -> Awaitable[list[Logged]]: ...


class _State(Enum):
    OPEN = "open"
    DONE = "done"  # the feed is closing: the subscription completes
    SLOW = "slow"


class FeedStream:
    """An async iterator of :class:`Logged` events, in log order."""

    def __init__(self, feed: Head, events: EventLog, flt: LogFilter, position: int) -> None:
        self.feed = feed
        self.events = events
        self._filter = flt
        #: every event up to here has been read (the matching ones are queued or sent)
        self._scanned = position
        self._capacity = feed.settings.buffer
        self._max_lag = feed.settings.max_lag
        self._closest: int | None = None
        #: ``feed.reads`` when reading started: the lag counts from the next read
        self._started_at = 0
        self._queue: deque[Logged] = deque()
        self._state = _State.OPEN
        self._failure: BaseException | None = None
        self._nudged = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- subscriber side

    def __aiter__(self) -> FeedStream:
        return self

    async def __anext__(self) -> Logged:
        if self._task is None:
            self._start()
        while True:
            if self._failure is not None:
                raise self._failure
            if self._state is _State.SLOW:
                raise SlowConsumer(
                    f"more than {self._max_lag} events behind the log: subscribe again "
                    "with `after` set to the last event received"
                )
            if self._state is _State.DONE:
                raise StopAsyncIteration
            if self._queue:
                break
            self._ready.clear()
            await self._ready.wait()
        taken = self._queue.popleft()
        left = len(self._queue)
        if left == 0 or left == self._capacity // 2:  # room for a page again
            self._nudged.set()
        return taken

    async def aclose(self) -> None:
        """Stop reading and forget the subscription (idempotent)."""
        if self._state is _State.OPEN:
            self._state = _State.DONE
        self.feed.detach(self)
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def nudge(self) -> None:
        """The head moved or the feed is closing: look again."""
        self._nudged.set()

    # ---------------------------------------------------------------- reader side

    def _start(self) -> None:
        self._started_at = self.feed.reads
        self.feed.attach(self)
        self._task = asyncio.create_task(self._read(), name="memexd-feed-stream")

    async def _read(self) -> None:
        retry = _RETRY_FIRST
        try:
            while self._state is _State.OPEN:
                self._nudged.clear()
                if self.feed.closing:
                    self._end(_State.DONE)
                    break
                head = self.feed.head
                if self._fell_behind(head):
                    self._end(_State.SLOW)
                    break
                room = self._capacity - len(self._queue)
                if head > self._scanned and (not self._queue or room >= self._capacity // 2):
                    try:
                        await self._fill(head, room)
                    except StorageError as exc:  # the engine restarts: wait, lose nothing
                        log.debug("feed: cannot read the log (%s); retrying", exc.code)
                        await asyncio.sleep(retry)
                        retry = min(retry * 2, _RETRY_MAX)
                        continue
                    retry = _RETRY_FIRST
                    continue
                await self._nudged.wait()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: the subscriber gets it (as INTERNAL), not silence
            self._failure = exc
            self._end(_State.DONE)

    async def _fill(self, head: int, room: int) -> None:
        page = await self.feed.page(self.events, self._filter, self._scanned, head, room)
        self._queue.extend(page)
        # a short page means nothing else matches up to the head
        self._scanned = page[-1].seq if len(page) == room else head
        if page:
            self._ready.set()

    def _fell_behind(self, head: int) -> bool:
        """Whether the lag (head minus what was handed over) grew past ``max_lag``
        beyond the smallest lag seen."""
        if self.feed.reads == self._started_at:
            return False  # the head may be stale: the lag is unknown yet
        delivered = self._queue[0].seq - 1 if self._queue else self._scanned
        lag = max(0, head - delivered)
        self._closest = lag if self._closest is None else min(self._closest, lag)
        return lag - self._closest > self._max_lag

    def _end(self, state: _State) -> None:
        self._state = state
        self._queue.clear()
        self._ready.set()
        self.feed.detach(self)
