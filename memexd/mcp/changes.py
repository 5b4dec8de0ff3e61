"""Subscriptions to an item's changes (MCP ``subscriptions/listen``, with
``resourceSubscriptions`` of ``memexd://item/{id}`` URIs).

The process reads the event log through the live feed once, as memexd
itself, from the first subscription on; each event about items (an item's
own events, an edge's for both ends) is published to the SDK's bus as "the
item changed", and the SDK sends it to the streams that follow that URI.
The notification carries the URI only: reading the item again goes through
the grants. Following an item needs the right to read it when the stream
opens (an unknown id and an unreadable one are refused alike).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from memexd.core import Memex
from memexd.errors import MemexError, MemoryNotFound, StorageUnavailable
from memexd.events.vocabulary import Event
from memexd.feed.hub import Feed
from memexd.feed.stream import FeedStream
from memexd.mcp.caller import Bind

__all__ = ["ITEM_PREFIX", "ItemChanges", "ListenGuard", "touched"]

log = logging.getLogger("memexd.mcp")

ITEM_PREFIX = "memexd://item/"
#: Items one stream may follow.
MAX_FOLLOWED = 100


def touched(event: Event) -> list[str]:
    """The items an event tells about: an item's own events name it; an
    edge's (``edge.*``, in MemEX's ``memory`` namespace) carry both ends."""
    if event.namespace != "memory":
        return []
    edge = (event.payload or {}).get("edge") if event.type.startswith("edge.") else None
    if isinstance(edge, dict):
        return [str(edge[end]) for end in ("from", "to") if edge.get(end)]
    return [event.subject] if event.subject else []


class ItemChanges:
    def __init__(self, feed: Feed, core: Callable[[], Memex | None]) -> None:
        self.feed = feed
        self.core = core
        self.bus = InMemorySubscriptionBus()
        self._task: asyncio.Task[None] | None = None

    async def follow(self) -> None:
        """Read the log from now on, if not already (a subscription is about
        to open: its stream is opened here so no event after this is missed)."""
        if self._task is not None and not self._task.done():
            return
        memex = self.core()
        if memex is None:
            raise StorageUnavailable("memexd is starting")
        stream = await self.feed.open(memex.events, None, None)
        self._task = asyncio.create_task(self._relay(stream), name="memexd-mcp-changes")

    async def _relay(self, stream: FeedStream) -> None:
        try:
            async for logged in stream:
                for item_id in dict.fromkeys(touched(logged.event)):
                    await self.bus.publish(ResourceUpdated(uri=ITEM_PREFIX + item_id))
        except MemexError as exc:  # the feed ended (shutdown, or this reader fell behind)
            log.info("mcp: item changes stopped (%s); the next subscription restarts them", exc)
        finally:
            await stream.aclose()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class ListenGuard:
    """SDK middleware: a listen stream may follow only items its caller can
    read, and starts :class:`ItemChanges`."""

    def __init__(self, bind: Bind, changes: ItemChanges) -> None:
        self.bind = bind
        self.changes = changes

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "subscriptions/listen" and ctx.request_id is not None:
            await self._check(ctx)
            await self.changes.follow()
        return await call_next(ctx)

    async def _check(self, ctx: ServerRequestContext[Any, Any]) -> None:
        notifications = (ctx.params or {}).get("notifications")
        uris = (
            notifications.get("resourceSubscriptions") if isinstance(notifications, dict) else None
        )
        uris = uris or []
        if not isinstance(uris, list) or len(uris) > MAX_FOLLOWED:
            raise MCPError(INVALID_PARAMS, f"BAD_USER_INPUT: follow at most {MAX_FOLLOWED} items")
        ids = [str(u)[len(ITEM_PREFIX) :] for u in uris]
        if any(not str(u).startswith(ITEM_PREFIX) for u in uris):
            raise MCPError(
                INVALID_PARAMS, f"BAD_USER_INPUT: only {ITEM_PREFIX}{{id}} can be followed"
            )
        try:
            found = await self.bind.of(ctx).memex.item_reads.get_many(ids, include_retracted=True)
            for item_id in ids:
                if item_id not in found:
                    raise MemoryNotFound(item_id)
        except MemexError as exc:
            raise MCPError(INVALID_PARAMS, f"{exc.code}: {exc.message}") from None
