"""The event vocabulary: every lifecycle event memexd emits is built here.

Names and payloads follow MemEX (``memory.created``, ``edge.updated``, …).
Commands call these builders; the Cypher tail ``@log_events`` stores what
they return in the same statement as the change, and ``event_props`` /
``event_from_row`` are the one mapping between an event and the graph.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from memexd.errors import StorageError
from memexd.ids import creation_event_id, new_id
from memexd.memory.model import Edge, Item
from memexd.memory.records import edge_json, item_from_row, item_json, item_json_text, present
from memexd.types import JSONObject, Row

__all__ = [
    "CREATION_MARKS",
    "MEMORY_RETRACTED",
    "TRACE_ID",
    "Event",
    "Origin",
    "Why",
    "created_from_row",
    "creation_marks",
    "creation_record",
    "edge_created",
    "edge_retracted",
    "edge_updated",
    "event_from_row",
    "event_props",
    "job_changed",
    "kept_from_row",
    "lifecycle",
    "memory_archived",
    "memory_created",
    "memory_purged",
    "memory_retracted",
    "memory_updated",
    "retracted_payload",
    "retraction_from_row",
    "retraction_marks",
]


#: What a trace or cause id may be: a short plain token (anything else a
#: caller sends is never stored).
TRACE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


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
    #: ``None`` only in a memory.retracted event a command returns: its record
    #: is its item, which never changes once retracted, so it is read from the
    #: item when asked for (:func:`retracted_payload`) instead of built for
    #: every item a cascade retracts.
    payload: JSONObject | None
    trace_id: str | None = None
    cause_id: str | None = None
    #: Who ran the command and why (memexd's audit trail; MemEX's payloads
    #: leave them out, so they are kept beside the payload, not in it).
    author: str | None = None
    reason: str | None = None
    #: Scope of the item the event concerns, for scope-filtered readers; when
    #: ``None`` the command's statement fills it in from the graph.
    scope: str | None = None
    #: Every scope the event tells about (both ends of an edge): only callers
    #: who can read them all see it. ``None``: the statement fills it in.
    scopes: tuple[str, ...] | None = None
    #: Id of the item, edge, intent or task the event concerns.
    subject: str | None = None
    #: The items the event is about (the item; both ends of an edge; none for
    #: intents and tasks): the feed's ``itemIds`` filter matches on them.
    item_ids: tuple[str, ...] = ()
    #: ``payload`` already serialised, when the command had it at hand.
    payload_json: str | None = field(default=None, compare=False, repr=False)
    #: A payload left for later (memory.retracted)'s cause type, when not
    #: its usual one (an undo's retractions are ``trace.undo``).
    cause_type: str | None = None


@dataclass(frozen=True, slots=True)
class Why:
    """The command's author and reason, recorded beside the payload."""

    author: str | None = None
    reason: str | None = None


def _event(
    type_: str,
    cause: str,
    key: str,
    record: JSONObject,
    origin: Origin,
    why: Why,
    *,
    subject: str,
    scope: str | None = None,
    scopes: tuple[str, ...] | None = None,
    record_json: str | None = None,
    item_ids: tuple[str, ...] = (),
    event_id: str | None = None,
    ts: int | None = None,
) -> Event:
    """A new event whose payload is MemEX's lifecycle event: the namespace,
    the type, the whole record (``key``: item, edge, intent or task) and the
    command that caused it. Item and edge events share MemEX's ``memory``
    namespace. ``event_id`` / ``ts``: given for an event whose id and time
    are known (a memory.created event); otherwise a new id, and now."""
    namespace = _namespace(key)
    payload = _payload(type_, cause, key, record)
    text = None if record_json is None else _payload_text(namespace, type_, key, record_json, cause)
    return Event(
        id=new_id() if event_id is None else event_id,
        namespace=namespace,
        type=type_,
        ts=time.time_ns() // 1_000_000 if ts is None else ts,
        payload=payload,
        trace_id=origin.trace_id,
        cause_id=origin.cause_id,
        author=why.author,
        reason=why.reason,
        scope=scope,
        scopes=scopes,
        subject=subject,
        item_ids=item_ids,
        payload_json=text,
    )


def _namespace(key: str) -> str:
    return "memory" if key in ("item", "edge") else key


def _payload(type_: str, cause: str, key: str, record: JSONObject) -> JSONObject:
    """MemEX's lifecycle event around a record."""
    return {"namespace": _namespace(key), "type": type_, key: record, "cause_type": cause}


def _payload_text(namespace: str, type_: str, key: str, record_json: str, cause: str) -> str:
    """MemEX's lifecycle event as text, around a record already serialised."""
    return (f'{{"namespace":"{namespace}","type":"{type_}","{key}":{record_json},'
            f'"cause_type":"{cause}"}}')  # fmt: skip


# ------------------------------------------------------------------ memory.*


def memory_created(
    item: Item,
    origin: Origin,
    content_json: str | None = None,
    meta_json: str | None = None,
    *,
    ts: int,
) -> Event:
    """An item's memory.created event: its id is the item's (:func:`creation_event_id`),
    its author the item's. ``content_json`` / ``meta_json``: the item's texts
    when already serialised; ``ts``: when the command created it."""
    doc = item_json(item)
    text = None if content_json is None else item_json_text(doc, content_json, meta_json)
    return _event("memory.created", "memory.create", "item", doc, origin, Why(item.author),
                  subject=item.id, scope=item.scope, record_json=text, item_ids=(item.id,),
                  event_id=creation_event_id(item.id), ts=ts)  # fmt: skip


#: What an item node keeps of its memory.created event, beyond the item
#: itself, in the order :func:`creation_marks` gives them.
CREATION_MARKS = ("logged_at", "log_trace", "log_cause")


def creation_marks(item: Item, origin: Origin, ts: int) -> list[Any]:
    """What an item node keeps of its memory.created event, beyond the item
    itself, by position (:data:`CREATION_MARKS`; ``None`` is not kept): the
    event is not a node of its own while the item is as created
    (docs/events.md, "Storage"). Its position is the item's ``seq``, its id
    derived from the item's; the time is kept only when it is not the
    item's ``created_at`` (an id given by the caller), the trace and cause
    only when the command had them."""
    return [None if ts == item.created_at else ts, origin.trace_id, origin.cause_id]


def creation_record(item: Item) -> dict[str, Any]:
    """The stored properties of ``item``'s memory.created event when it becomes
    a node of its own (the item is about to change; ``item`` is as created):
    all but its time, trace and cause, which the statement moves over from
    the item node with its position (``@log_creation``)."""
    props = event_props(memory_created(item, Origin(), ts=0))
    del props["ts"]
    props["scopes"] = [item.scope]
    return props


def created_from_row(row: Row) -> Event:
    """The memory.created event of an item read with ``@item`` beside its
    marks (``ts``, ``trace_id``, ``cause_id``), as ``cypher/event_list_kept`` returns it."""
    item = item_from_row(row["item"])
    ts = item.created_at if row.get("ts") is None else int(row["ts"])
    return memory_created(item, Origin(row.get("trace_id"), row.get("cause_id")), ts=ts)


def memory_updated(
    item: Item,
    origin: Origin,
    why: Why,
    *,
    moved_from: str | None = None,
) -> Event:
    """The whole item after the update. ``moved_from``: its scope before, when
    the update moves it (the event then tells about both scopes)."""
    scopes = None if moved_from in (None, item.scope) else (str(moved_from), item.scope)
    return _event("memory.updated", "memory.update", "item", item_json(item), origin, why,
                  subject=item.id, scope=item.scope, scopes=scopes,
                  item_ids=(item.id,))  # fmt: skip


#: The type of the event whose record is read from its item (see Event.payload).
MEMORY_RETRACTED = "memory.retracted"
#: memory.retracted's type and cause: built here and, from its item, when read.
_RETRACTED = (MEMORY_RETRACTED, "memory.retract")


def memory_retracted(
    item_id: str, scope: str, origin: Origin, why: Why, ts: int, *, event_id: str | None = None,
    cause: str | None = None,
) -> Event:  # fmt: skip
    """The whole item as it was when retracted: its payload is left to
    :func:`retracted_payload`, from the item once it is retracted. The item
    keeps the event (:func:`retraction_marks`,
    :func:`retraction_from_row`; docs/events.md, "Storage"). ``event_id``:
    drawn already (``memexd.memory.retraction.RetractionEvents``); ``cause``:
    the command's cause type, when not ``memory.retract``."""
    return Event(id=event_id or new_id(), namespace="memory", type=MEMORY_RETRACTED, ts=ts,
                 payload=None, trace_id=origin.trace_id, cause_id=origin.cause_id,
                 author=why.author, reason=why.reason, scope=scope, scopes=(scope,),
                 subject=item_id, item_ids=(item_id,),
                 cause_type=None if cause == _RETRACTED[1] else cause)  # fmt: skip


def retracted_payload(item: Item | None, cause: str | None = None) -> JSONObject:
    """A memory.retracted event's payload, from its retracted item (a
    retracted item keeps what it held when retracted) and the cause type
    it kept when not ``memory.retract``."""
    if item is None:  # the log and the graph disagree
        raise StorageError("a memory.retracted event without its item")
    return _payload(_RETRACTED[0], cause or _RETRACTED[1], "item", item_json(item))


def memory_archived(item: Item, origin: Origin, why: Why, archived: bool) -> Event:
    """``memory.archived`` / ``memory.unarchived`` (memexd's, SPEC §11): the
    whole item, as the other memory events carry it; nothing about it changed
    but whether reads see it."""
    type_, cause = (("memory.archived", "memory.archive") if archived
                    else ("memory.unarchived", "memory.unarchive"))  # fmt: skip
    return _event(type_, cause, "item", item_json(item), origin, why, subject=item.id,
                  scope=item.scope, scopes=(item.scope,), item_ids=(item.id,))  # fmt: skip


def memory_purged(item: Item, origin: Origin, why: Why) -> Event:
    """``memory.purged`` (memexd's, SPEC §13): the item is gone for good, and
    with it every event that held its content; this one keeps only what it
    was (id, scope, kind, created_at), never its content."""
    record = {"id": item.id, "scope": item.scope, "kind": item.kind,
              "created_at": item.created_at}  # fmt: skip
    return _event("memory.purged", "memory.purge", "item", record, origin, why,
                  subject=item.id, scope=item.scope, scopes=(item.scope,),
                  item_ids=(item.id,))  # fmt: skip


# ------------------------------------------------------------------ edge.*


def _ends(edge: Edge) -> tuple[str, str]:
    """An edge event is about both items the edge joins."""
    return (edge.from_id, edge.to_id)


def edge_created(
    edge: Edge, origin: Origin, *, scopes: tuple[str, str] | None = None, why: Why | None = None
) -> Event:
    """``scopes``: the scopes of the edge's ends, when the command knows them."""
    return _event("edge.created", "edge.create", "edge", edge_json(edge), origin,
                  why or Why(edge.author), subject=edge.edge_id,
                  scope=None if scopes is None else scopes[0], scopes=scopes,
                  item_ids=_ends(edge))  # fmt: skip


def edge_updated(
    edge: Edge, origin: Origin, why: Why, *, scopes: tuple[str, str] | None = None
) -> Event:
    """The whole edge after the update."""
    return _event("edge.updated", "edge.update", "edge", edge_json(edge), origin, why,
                  subject=edge.edge_id, scope=None if scopes is None else scopes[0],
                  scopes=scopes, item_ids=_ends(edge))  # fmt: skip


def edge_retracted(
    edge: Edge,
    origin: Origin,
    why: Why,
    *,
    cause: str = "edge.retract",
    scopes: tuple[str, str] | None = None,
    ts: int | None = None,
) -> Event:
    """The whole edge as it was. ``cause``: ``memory.retract`` when the edge
    goes because an item it touches was retracted (``ts``: its command's time)."""
    return _event("edge.retracted", cause, "edge", edge_json(edge), origin, why,
                  subject=edge.edge_id, scope=None if scopes is None else scopes[0],
                  scopes=scopes, item_ids=_ends(edge), ts=ts)  # fmt: skip


# ------------------------------------------------------------------ intent.*, task.*


def lifecycle(
    namespace: str, type_: str, cause: str, record: JSONObject, origin: Origin, scope: str
) -> Event:
    """An ``intent.*`` or ``task.*`` event: the whole record after the
    command, and the command that caused it (``cause_type``, e.g. ``task.start``)."""
    return _event(type_, cause, namespace, record, origin, Why(), subject=str(record["id"]),
                  scope=scope, scopes=(scope,))  # fmt: skip


# ------------------------------------------------------------------ job.*


def job_changed(type_: str, cause: str, record: JSONObject, author: str,
                scopes: tuple[str, ...]) -> Event:  # fmt: skip
    """A ``job.*`` event (memexd's, SPEC §13: queued, started, completed,
    failed, cancelled): the whole job record after the change. ``scopes``:
    every scope the job reaches; only callers who can read them all see it."""
    return _event(type_, cause, "job", record, Origin(), Why(author), subject=str(record["id"]),
                  scope=scopes[0], scopes=scopes)  # fmt: skip


# ------------------------------------------------------------------ the graph


def event_props(event: Event) -> dict[str, Any]:
    """The stored properties of an event (absent optionals left out)."""
    props: dict[str, Any] = {
        "id": event.id,
        "namespace": event.namespace,
        "type": event.type,
        "ts": event.ts,
    }
    if event.payload is None:  # a memory.retracted event: its item keeps it, never a node
        raise ValueError(f"{event.type} {event.id} is kept on its item, not stored as a node")
    props["payload"] = event.payload_json or orjson.dumps(event.payload).decode()
    optional = {
        "trace_id": event.trace_id,
        "cause_id": event.cause_id,
        "author": event.author,
        "reason": event.reason,
        "scope": event.scope,
        "scopes": None if event.scopes is None else list(event.scopes),
        "subject": event.subject,
        # left out when empty: an empty list is no property on either engine
        "item_ids": list(event.item_ids) or None,
    }
    props.update(present(optional))
    return props


def retraction_marks(event: Event) -> JSONObject:
    """What a retracted item keeps of its memory.retracted event, besides the
    event's id and position (the same for every item of one command)."""
    cause = event.cause_type if event.payload is None else event.payload.get("cause_type")
    return present({"retracted_at": event.ts, "retracted_by": event.author,
                    "retracted_reason": event.reason, "retracted_trace": event.trace_id,
                    "retracted_cause": event.cause_id,
                    # kept only when not the usual (an undo's retractions)
                    "retracted_cause_type": None if cause == _RETRACTED[1] else cause})  # fmt: skip


def retraction_from_row(row: Row) -> Event:
    """A memory.retracted event kept on its item, as ``cypher/event_list_kept``
    returns it."""
    item = item_from_row(row["item"])
    return Event(
        id=row["id"], namespace="memory", type=MEMORY_RETRACTED, ts=int(row["ts"]),
        payload=retracted_payload(item, row.get("cause_type")), trace_id=row.get("trace_id"),
        cause_id=row.get("cause_id"), author=row.get("author"), reason=row.get("reason"),
        scope=item.scope, subject=item.id,
    )  # fmt: skip


def kept_from_row(row: Row) -> Event:
    """An event kept on its item (``cypher/event_list_kept``): by its ``type``."""
    return retraction_from_row(row) if row["type"] == MEMORY_RETRACTED else created_from_row(row)


def event_from_row(row: Row) -> Event:
    """An event node as ``@event`` reads it."""
    return Event(
        id=row["id"],
        namespace=row["namespace"],
        type=row["type"],
        ts=int(row["ts"]),
        payload=orjson.loads(row["payload"]),
        trace_id=row.get("trace_id"),
        cause_id=row.get("cause_id"),
        author=row.get("author"),
        reason=row.get("reason"),
        scope=row.get("scope"),
        subject=row.get("subject"),
    )
