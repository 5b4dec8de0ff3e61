"""Domain records: plain immutable data, no persistence behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field

from memexd.types import JSONObject

__all__ = ["Direction", "Edge", "Event", "Item", "SortKey"]


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    scope: str
    kind: str
    content: JSONObject
    author: str
    source_kind: str
    authority: float
    created_at: int
    parents: tuple[str, ...] = ()
    conviction: float | None = None
    importance: float | None = None
    intent_id: str | None = None
    task_id: str | None = None
    meta: JSONObject | None = None
    retracted: bool = False


@dataclass(frozen=True, slots=True)
class Edge:
    edge_id: str
    from_id: str
    to_id: str
    kind: str
    author: str
    source_kind: str
    authority: float
    weight: float | None = None
    active: bool = True
    meta: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    namespace: str
    type: str
    ts: int
    payload: JSONObject
    trace_id: str | None = None
    cause_id: str | None = None
    #: Scope of the item the event concerns, for scope-filtered readers.
    scope: str | None = None
    #: Id of the item or edge the event concerns.
    subject: str | None = None
    #: ``payload`` already serialised, when the command had it at hand.
    payload_json: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class SortKey:
    field: str  # authority | conviction | importance | recency
    descending: bool = True


@dataclass(frozen=True, slots=True)
class Direction:
    outgoing: bool = True
    incoming: bool = True

    @classmethod
    def named(cls, name: str) -> Direction:
        return {"FROM": cls(True, False), "TO": cls(False, True)}.get(name, cls())


@dataclass(slots=True)
class Page:
    limit: int | None = None
    offset: int = 0
    sort: list[SortKey] = field(default_factory=list)
