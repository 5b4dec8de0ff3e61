"""Resolvers for the event log."""

from __future__ import annotations

from typing import TypeAlias

import strawberry
from memexd.resolvers import convert
from memexd.schema.inputs import EventFilter
from memexd.schema.types import Event

from memexd.server.context import Context

Info: TypeAlias = strawberry.Info[Context, None]


async def events(
    info: Info,
    filter: EventFilter | None = None,
    after: strawberry.ID | None = None,
    limit: int | None = None,
) -> list[Event]:
    found = await info.context.memex.events.list(convert.event_filter(filter), after, limit)
    return Event.all(found)
