"""The root Subscription type: the live, resumable change feed."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry
from memexd.resolvers import feed as feed_r
from memexd.schema.events import Event

__all__ = ["Subscription"]


@strawberry.type(description="Live streams over graphql-transport-ws on /graphql (docs/feed.md).")
class Subscription:
    events: AsyncGenerator[Event, None] = strawberry.subscription(
        resolver=feed_r.events,
        description="Every logged event after `after`, then live ones, in log order: no gap, "
        "no duplicate. Only events about scopes the caller can read (an edge event: both "
        "ends). A subscriber too far behind is closed with 4413 and resumes with `after`.",
    )
