"""Reading the persistent event log in commit order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memexd.errors import BadUserInput
from memexd.events.vocabulary import Event, event_from_row
from memexd.graph import Graph
from memexd.memory.validation import (
    Limits,
    check_limit,
    check_names,
    check_optional_text,
    check_uuid,
)

__all__ = ["EventFilter", "EventLog"]


@dataclass(frozen=True, slots=True)
class EventFilter:
    namespaces: Sequence[str] | None = None
    types: Sequence[str] | None = None
    scope_prefix: str | None = None


class EventLog:
    """Reads the log in commit order (a counter bumped inside each write)."""

    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def list(
        self, flt: EventFilter | None, after: str | None, limit: int | None
    ) -> list[Event]:
        flt = flt or EventFilter()
        page = self.limits.max_page
        params = {
            "namespaces": check_names(flt.namespaces, "filter.namespaces", self.limits),
            "types": check_names(flt.types, "filter.types", self.limits),
            "scope_prefix": check_optional_text(flt.scope_prefix, "filter.scopePrefix"),
            "limit": page if limit is None else check_limit(limit, "limit", maximum=page),
        }
        floor = 0
        if after is not None:
            rows = await self.graph.read("event_seq", {"id": check_uuid(after, "after")})
            if not rows:
                raise BadUserInput(f"no event {after}", field="after")
            floor = int(rows[0]["seq"])
        rows = await self.graph.read("event_list", {"after": floor, **params})
        return [event_from_row(row["event"]) for row in rows]
