"""Resolvers for the event log."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.resolvers.args import Limit
from memexd.schema.common import Info
from memexd.schema.events import Event, EventFilter

__all__ = ["events"]


async def events(
    info: Info,
    filter: Annotated[EventFilter | None, strawberry.argument(description="Which events.")] = None,
    after: Annotated[
        strawberry.ID | None,
        strawberry.argument(description="Only events logged after this event id (a cursor)."),
    ] = None,
    limit: Limit = None,
) -> list[Event]:
    flt = None if filter is None else filter.draft()
    return Event.all(await info.context.memex.events.list(flt, after, limit))
