"""Lifecycle events (MemEX names and payloads) and the persistent event log."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.ids import check_uuid, new_id
from memexd.memory.model import Event
from memexd.memory.records import event_from_row
from memexd.types import JSONObject

__all__ = ["EventFilter", "EventLog", "Origin", "make_event"]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a command came from: copied onto every event it emits."""

    trace_id: str | None = None
    cause_id: str | None = None


@dataclass(frozen=True, slots=True)
class EventFilter:
    namespaces: Sequence[str] | None = None
    types: Sequence[str] | None = None
    scope_prefix: str | None = None


def make_event(
    type_: str,
    payload: JSONObject,
    origin: Origin,
    *,
    scope: str | None = None,
    subject: str | None = None,
    payload_json: str | None = None,
) -> Event:
    """A new event; the namespace is the type's first segment (``memory.created``)."""
    return Event(
        id=new_id(),
        namespace=type_.split(".", 1)[0],
        type=type_,
        ts=time.time_ns() // 1_000_000,
        payload=payload,
        trace_id=origin.trace_id,
        cause_id=origin.cause_id,
        scope=scope,
        subject=subject,
        payload_json=payload_json,
    )


class EventLog:
    """Reads the log in commit order (a counter bumped inside each write)."""

    def __init__(self, graph: Graph, max_page: int) -> None:
        self.graph = graph
        self.max_page = max_page

    async def list(
        self, flt: EventFilter | None, after: str | None, limit: int | None
    ) -> list[Event]:
        flt = flt or EventFilter()
        if limit is not None and not 0 <= limit <= self.max_page:
            raise BadUserInput(f"must be within [0, {self.max_page}]", field="limit")
        floor = 0
        if after is not None:
            rows = await self.graph.read("event_seq", {"id": check_uuid(after, "after")})
            if not rows:
                raise BadUserInput(f"no event {after}", field="after")
            floor = int(rows[0]["seq"])
        rows = await self.graph.read(
            "event_list",
            {
                "after": floor,
                "namespaces": list(flt.namespaces) if flt.namespaces is not None else None,
                "types": list(flt.types) if flt.types is not None else None,
                "scope_prefix": flt.scope_prefix,
                "limit": self.max_page if limit is None else limit,
            },
        )
        return [event_from_row(row["event"]) for row in rows]
