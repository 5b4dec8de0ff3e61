"""Resolvers for the live feed (subscriptions)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.events import Event, EventFilter

from memexd.errors import StorageUnavailable
from memexd.feed.stream import FeedStream

__all__ = ["events"]


async def events(
    info: Info,
    filter: Annotated[EventFilter | None, strawberry.argument(description="Which events.")] = None,
    after: Annotated[
        strawberry.ID | None,
        strawberry.argument(
            description="Resume after this logged event id: every later event, then live "
            "ones. Without it, only events logged from now on."
        ),
    ] = None,
) -> AsyncGenerator[Event, None]:
    """The filter and the cursor are checked here, before the first event:
    a bad one is the subscription's ``error`` message."""
    context = info.context
    if context.feed is None:
        raise StorageUnavailable("subscriptions need a running memexd server")
    flt = None if filter is None else filter.draft()
    stream = await context.feed.open(context.memex.events, flt, after)
    return _deliver(stream)


async def _deliver(stream: FeedStream) -> AsyncGenerator[Event, None]:
    try:
        async for logged in stream:
            yield Event.of(logged.event)
    finally:
        await stream.aclose()
