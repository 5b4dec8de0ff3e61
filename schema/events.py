"""Lifecycle events in GraphQL: the ``Event`` type, its filter and results."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import strawberry
from memexd.schema.common import Info
from strawberry.scalars import JSON

from memexd.events.log import EventFilter as EventFilterRecord
from memexd.events.vocabulary import Event as EventRecord
from memexd.ids import ms_to_datetime

__all__ = ["Event", "EventFilter", "EventsResult"]


@strawberry.type(description="A lifecycle event, as MemEX names it and shapes its payload.")
class Event:
    id: strawberry.ID = strawberry.field(description="UUIDv7; also a cursor for `events(after:)`.")
    namespace: str = strawberry.field(
        description="`memory` (item and edge events, as MemEX), `intent` or `task`."
    )
    type: str = strawberry.field(description="`memory.created`, `edge.updated`, …")
    ts: datetime = strawberry.field(description="When the command ran.")
    trace_id: str | None = strawberry.field(
        description="The request's `x-trace-id` (or W3C `traceparent` trace id)."
    )
    cause_id: str | None = strawberry.field(
        description="What caused the command: the caller's `x-cause-id` header or `causeId`."
    )
    payload: JSON = strawberry.field(
        description="MemEX's lifecycle event: `namespace`, `type`, the whole record after the "
        "change (`item`, `edge`, `intent` or `task`) and `cause_type`, the command."
    )
    author: str | None = strawberry.field(
        default=None, description="Who ran the command (kept beside MemEX's payload)."
    )
    reason: str | None = strawberry.field(default=None, description="Why, if they said.")

    @classmethod
    def of(cls, event: EventRecord) -> Event:
        return cls(
            id=strawberry.ID(event.id),
            namespace=event.namespace,
            type=event.type,
            ts=ms_to_datetime(event.ts),
            trace_id=event.trace_id,
            cause_id=event.cause_id,
            payload=JSON(event.payload),
            author=event.author,
            reason=event.reason,
        )

    @classmethod
    def all(cls, events: Sequence[EventRecord]) -> list[Event]:
        return [cls.of(e) for e in events]

    @classmethod
    async def returned(cls, info: Info, events: Sequence[EventRecord]) -> list[Event]:
        """A command's events. The payloads of its memory.retracted events are
        read from their items (one read), and only when the caller selected
        ``payload``: a cascade of 10,000 items would otherwise build 10,000
        records nobody asked for."""
        if any(e.payload is None for e in events) and _selects(info.selected_fields, "payload"):
            events = await info.context.memex.events.completed(events)
        return cls.all(events)


def _selects(selections: Sequence[Any], name: str) -> bool:
    """Whether ``name`` is selected anywhere below (fragments included)."""
    return any(getattr(s, "name", None) == name or _selects(s.selections, name)
               for s in selections)  # fmt: skip


@strawberry.input(description="Which events to read; all fields AND-combined.")
class EventFilter:
    namespaces: list[str] | None = strawberry.field(
        default=None,
        description="Only these namespaces (`memory` for items and edges, `intent`, `task`).",
    )
    types: list[str] | None = strawberry.field(
        default=None, description="Only these types (`memory.retracted`, …)."
    )
    scope_prefix: str | None = strawberry.field(
        default=None,
        description="Only events telling about a scope that starts with this (an edge "
        "event tells about the scopes of both ends).",
    )
    item_ids: list[strawberry.ID] | None = strawberry.field(
        default=None,
        description="Only events about these items: their own events and those of the "
        "edges touching them.",
    )

    def draft(self) -> EventFilterRecord:
        return EventFilterRecord(self.namespaces, self.types, self.scope_prefix, self.item_ids)


@strawberry.type(description="The events a command emitted.")
class EventsResult:
    events: list[Event] = strawberry.field(description="In the order they were logged.")
