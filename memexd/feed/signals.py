"""Complete subscriptions before uvicorn drops the connections at shutdown.

uvicorn handles SIGTERM/SIGINT by closing every WebSocket at once (1012)
before the application hears of the shutdown, so no subscription could
complete. Under uvicorn's own signal handlers, the first signal now drains
the feed (each subscription completes, each connection closes with 1001),
then hands the signal to uvicorn; a second signal goes straight through.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from memexd.feed.hub import Feed

__all__ = ["drain_on_exit"]

log = logging.getLogger("memexd.feed")

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
Handler = Callable[[int, FrameType | None], Any]


def drain_on_exit(feed: Feed) -> Callable[[], None]:
    """Put the drain in front of uvicorn's exit handlers, when they are the
    ones installed (``memexd serve``); return what puts them back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    import uvicorn

    loop = asyncio.get_running_loop()
    chained: dict[int, tuple[Handler, Handler]] = {}
    for sig in _SIGNALS:
        previous = signal.getsignal(sig)
        if not callable(previous) or not isinstance(
            getattr(previous, "__self__", None), uvicorn.Server
        ):
            continue
        handler = _handler(feed, loop, previous)
        signal.signal(sig, handler)
        chained[sig] = (previous, handler)

    def restore() -> None:
        for sig, (previous, handler) in chained.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, previous)

    return restore


def _handler(feed: Feed, loop: asyncio.AbstractEventLoop, then: Handler) -> Handler:
    tasks: set[asyncio.Task[None]] = set()

    async def drain_then(signum: int) -> None:
        try:
            await feed.drain()
        except Exception:  # the exit must happen whatever the drain did
            log.exception("feed: draining subscriptions failed")
        then(signum, None)

    def start(signum: int) -> None:
        task = loop.create_task(drain_then(signum), name="memexd-feed-drain")
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def handler(signum: int, frame: FrameType | None) -> None:
        if feed.closing:  # draining already: this one is for uvicorn (force quit)
            then(signum, frame)
            return
        feed.closing = True
        loop.call_soon_threadsafe(start, signum)

    return handler
