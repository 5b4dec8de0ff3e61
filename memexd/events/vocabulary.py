"""The event vocabulary: every lifecycle event memexd emits is built here.

Names and payloads follow MemEX (``memory.created``, ``edge.updated``, …).
Commands call these builders; the Cypher tail ``@log_events`` stores what
they return in the same statement as the change, and ``event_props`` /
``event_from_row`` are the one mapping between an event and the graph.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from memexd.ids import new_id
from memexd.memory.model import Edge, Item
from memexd.memory.records import edge_json, item_json, item_json_text, present
from memexd.types import JSONObject, Row

__all__ = [
    "Event",
    "Origin",
    "edge_created",
    "edge_retracted",
    "edge_updated",
    "event_from_row",
    "event_props",
    "lifecycle",
    "memory_created",
    "memory_retracted",
    "memory_retracted_template",
    "memory_updated",
]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a command came from: copied onto every event it emits."""

    trace_id: str | None = None
    cause_id: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    namespace: str
    type: str
    ts: int
    payload: JSONObject
    trace_id: str | None = None
    cause_id: str | None = None
    #: Scope of the item the event concerns, for scope-filtered readers; when
    #: ``None`` the command's statement fills it in from the graph.
    scope: str | None = None
    #: Every scope the event tells about (both ends of an edge): only callers
    #: who can read them all see it. ``None``: the statement fills it in.
    scopes: tuple[str, ...] | None = None
    #: Id of the item or edge the event concerns.
    subject: str | None = None
    #: ``payload`` already serialised, when the command had it at hand.
    payload_json: str | None = field(default=None, compare=False, repr=False)


def _event(
    type_: str,
    payload: JSONObject,
    origin: Origin,
    *,
    subject: str,
    scope: str | None = None,
    scopes: tuple[str, ...] | None = None,
    payload_json: str | None = None,
) -> Event:
    """A new event; the namespace is the type's first segment."""
    return Event(
        id=new_id(),
        namespace=type_.split(".", 1)[0],
        type=type_,
        ts=time.time_ns() // 1_000_000,
        payload=payload,
        trace_id=origin.trace_id,
        cause_id=origin.cause_id,
        scope=scope,
        scopes=scopes,
        subject=subject,
        payload_json=payload_json,
    )


def _why(author: str, reason: str | None) -> JSONObject:
    return {"author": author} if reason is None else {"author": author, "reason": reason}


# ------------------------------------------------------------------ memory.*


def memory_created(
    item: Item, origin: Origin, content_json: str | None = None, meta_json: str | None = None
) -> Event:
    """``content_json`` / ``meta_json``: the item's texts when already serialised."""
    doc = item_json(item)
    text = None if content_json is None else item_json_text(doc, content_json, meta_json)
    return _event(
        "memory.created",
        {"item": doc},
        origin,
        subject=item.id,
        scope=item.scope,
        payload_json=None if text is None else f'{{"item":{text}}}',
    )


def memory_updated(
    item_id: str,
    partial: JSONObject,
    author: str,
    reason: str | None,
    origin: Origin,
    *,
    basis: Any = None,
    scope: str | None = None,
    moved_from: str | None = None,
) -> Event:
    """``moved_from``: the item's scope before, when the update moves it
    (the event then tells about both scopes)."""
    payload: JSONObject = {"item_id": item_id, "partial": partial, **_why(author, reason)}
    if basis is not None:
        payload["basis"] = basis
    scopes = None if scope is None or moved_from in (None, scope) else (moved_from, scope)
    return _event("memory.updated", payload, origin, subject=item_id, scope=scope, scopes=scopes)


def memory_retracted(item_id: str, author: str, reason: str | None, origin: Origin) -> Event:
    return _event(
        "memory.retracted", {"item_id": item_id, **_why(author, reason)}, origin, subject=item_id
    )


def memory_retracted_template(author: str, reason: str | None) -> tuple[str, str]:
    """The ``memory.retracted`` payload text around the item id, for events a
    statement writes about items only it knows (children a cascade absorbs)."""
    text = orjson.dumps({"item_id": "\x00", **_why(author, reason)}).decode()
    head, tail = text.split("\\u0000")
    return head, tail


# ------------------------------------------------------------------ edge.*


def edge_created(edge: Edge, origin: Origin, *, scopes: tuple[str, str] | None = None) -> Event:
    """``scopes``: the scopes of the edge's ends, when the command knows them."""
    return _event("edge.created", {"edge": edge_json(edge)}, origin, subject=edge.edge_id,
                  scope=None if scopes is None else scopes[0], scopes=scopes)  # fmt: skip


def edge_updated(
    edge_id: str,
    partial: JSONObject,
    author: str,
    reason: str | None,
    origin: Origin,
    *,
    scopes: tuple[str, str] | None = None,
) -> Event:
    payload: JSONObject = {"edge_id": edge_id, "partial": partial, **_why(author, reason)}
    return _event("edge.updated", payload, origin, subject=edge_id,
                  scope=None if scopes is None else scopes[0], scopes=scopes)  # fmt: skip


def edge_retracted(edge_id: str, author: str, reason: str | None, origin: Origin) -> Event:
    return _event(
        "edge.retracted", {"edge_id": edge_id, **_why(author, reason)}, origin, subject=edge_id
    )


# ------------------------------------------------------------------ intent.*, task.*


def lifecycle(
    namespace: str, type_: str, cause: str, record: JSONObject, origin: Origin, scope: str
) -> Event:
    """An ``intent.*`` or ``task.*`` event, its payload as MemEX's lifecycle
    event: the namespace, the type, the whole record after the command, and
    the command that caused it (``cause_type``, e.g. ``task.start``)."""
    payload = {"namespace": namespace, "type": type_, namespace: record, "cause_type": cause}
    return _event(type_, payload, origin, subject=str(record["id"]), scope=scope, scopes=(scope,))


# ------------------------------------------------------------------ the graph


def event_props(event: Event) -> dict[str, Any]:
    """The stored properties of an event (absent optionals left out)."""
    props: dict[str, Any] = {
        "id": event.id,
        "namespace": event.namespace,
        "type": event.type,
        "ts": event.ts,
        "payload": event.payload_json or orjson.dumps(event.payload).decode(),
    }
    optional = {
        "trace_id": event.trace_id,
        "cause_id": event.cause_id,
        "scope": event.scope,
        "scopes": None if event.scopes is None else list(event.scopes),
        "subject": event.subject,
    }
    props.update(present(optional))
    return props


def event_from_row(row: Row) -> Event:
    return Event(
        id=row["id"],
        namespace=row["namespace"],
        type=row["type"],
        ts=int(row["ts"]),
        payload=orjson.loads(row["payload"]),
        trace_id=row.get("trace_id"),
        cause_id=row.get("cause_id"),
        scope=row.get("scope"),
        subject=row.get("subject"),
    )
