"""Reading the persistent event log in commit order.

Every event has ``seq``, its position in the log: a counter bumped by the
statement that logs it, so positions follow commit order and every event up
to the counter's value (the *head*) is committed. An item's memory.created
event is stored as the item itself until the item changes (docs/events.md,
"Storage"), so a page is read in two parts, merged by position. The event log query reads
pages after a cursor; the live feed (``memexd.feed``) reads between its own
position and the head.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from memexd.errors import BadUserInput
from memexd.events.vocabulary import Event, event_from_row, kept_from_row, retracted_payload
from memexd.graph import Graph
from memexd.ids import creation_event_id
from memexd.memory.reads import ItemReads
from memexd.memory.validation import (
    Limits,
    check_ids,
    check_names,
    check_optional_text,
    check_uuid,
)

__all__ = ["END", "EventFilter", "EventLog", "LogFilter", "Logged"]

#: A position past any the log will reach: "up to the end".
END = 2**62


@dataclass(frozen=True, slots=True)
class EventFilter:
    namespaces: Sequence[str] | None = None
    types: Sequence[str] | None = None
    scope_prefix: str | None = None
    #: events about these items: item events of them, edge events touching them
    item_ids: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class LogFilter:
    """A checked :class:`EventFilter`, as the query's parameters."""

    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Logged:
    """An event with its log position."""

    seq: int
    event: Event


class EventLog:
    """Reads the log in commit order, as the caller (its grants apply)."""

    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def list(
        self, flt: EventFilter | None, after: str | None, limit: int | None
    ) -> list[Event]:
        """Up to ``limit`` events after the event ``after`` (from the start without)."""
        checked = self.check(flt)
        size = self.limits.page(limit)
        floor = 0 if after is None else await self.position(after)
        return [e.event for e in await self.read(checked, floor, END, size)]

    def check(self, flt: EventFilter | None) -> LogFilter:
        """The filter checked whole (``BAD_USER_INPUT`` naming the bad field)."""
        flt = flt or EventFilter()
        items = flt.item_ids
        return LogFilter(
            {
                "namespaces": check_names(flt.namespaces, "filter.namespaces", self.limits),
                "types": check_names(flt.types, "filter.types", self.limits),
                "scope_prefix": check_optional_text(flt.scope_prefix, "filter.scopePrefix"),
                "item_ids": None
                if items is None
                else check_ids(items, "filter.itemIds", max_len=self.limits.max_list),
            }
        )

    async def position(self, cursor: str) -> int:
        """The log position of the event ``cursor``; an event the caller cannot
        read is as unknown as one that never was (``BAD_USER_INPUT``)."""
        cursor = check_uuid(cursor, "after")
        params = {"id": cursor, "item_id": creation_event_id(cursor)}
        rows = await self.graph.read("event_seq", params)
        if not rows:
            raise BadUserInput(f"no event {cursor}", field="after")
        return int(rows[0]["seq"])

    async def head(self) -> int:
        """The position of the last event logged (0 for an empty log)."""
        rows = await self.graph.read("event_head")
        return int(rows[0]["head"]) if rows else 0

    async def completed(self, events: Sequence[Event]) -> builtins.list[Event]:
        """``events`` with the payload of every memory.retracted event a
        command returned (``payload`` ``None``) read from its item, in one read."""
        deferred = [e.subject for e in events if e.payload is None and e.subject]
        if not deferred:
            return builtins.list(events)
        items = await ItemReads(self.graph, self.limits).fetch(deferred, include_retracted=True)
        return [e if e.payload is not None else
                replace(e, payload=retracted_payload(items.get(e.subject or ""), e.cause_type))
                for e in events]  # fmt: skip

    async def read(
        self, flt: LogFilter, after: int, upto: int, limit: int
    ) -> builtins.list[Logged]:
        """The events matching ``flt`` in ``(after, upto]``, the first ``limit`` of them."""
        params = {"after": after, "upto": upto, "limit": limit, **flt.params}
        # Items first: an item changing between the two reads moves its
        # memory.created event from the first read to the second, so it is read
        # twice, not missed (a retracted item never changes again).
        kept = await self.graph.read("event_list_kept", params)
        stored = await self.graph.read("event_list", params)
        page = {int(r["seq"]): kept_from_row(r) for r in kept}
        page.update((int(r["seq"]), event_from_row(r["event"])) for r in stored)
        return [Logged(seq, page[seq]) for seq in sorted(page)[:limit]]
