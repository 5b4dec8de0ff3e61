"""Checking a whole MemEX export slice before an import writes anything.

Every record is checked by the services' own rules into the MemEX JSON
memexd would store (item ids must be UUIDv7, other ids UUIDs); an error names
its path, e.g. ``slice.memories[3].id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memexd.errors import BadUserInput, InvalidTimestamp, MemexError
from memexd.ids import timestamp_ms
from memexd.intents.records import Record, new_data
from memexd.intents.spec import INTENT, TASK
from memexd.memory import validation as check
from memexd.memory.model import NewEdge
from memexd.memory.records import edge_json, item_json
from memexd.types import JSONObject

if TYPE_CHECKING:
    pass

__all__ = ["KINDS", "Entry", "memory_item", "memory_record", "parse_slice"]

#: The kinds of record, in the order an import processes them.
KINDS = ("memories", "edges", "intents", "tasks")


@dataclass(frozen=True, slots=True)
class Entry:
    """A slice record: where it is, its id, and its MemEX JSON as memexd stores it."""

    path: str
    id: str
    doc: JSONObject


_ITEM_KEYS = ("id", "scope", "kind", "content", "author", "source_kind", "parents", "authority",
              "conviction", "importance", "created_at", "intent_id", "task_id", "meta")  # fmt: skip
_ITEM_KEY_SET = frozenset(_ITEM_KEYS)
_EDGE_KEYS = ("edge_id", "from", "to", "kind", "weight", "author", "source_kind", "authority",
              "active", "meta")  # fmt: skip
_KEYS = {"memories": _ITEM_KEYS, "edges": _EDGE_KEYS, "intents": INTENT.order, "tasks": TASK.order}
#: MemEX's required fields (absent and null are both missing).
_REQUIRED = {
    "memories": ("id", "scope", "kind", "content", "author", "source_kind", "authority"),
    "edges": ("edge_id", "from", "to", "kind", "author", "source_kind", "authority", "active"),
    "intents": ("id", "label", "priority", "owner", "status"),
    "tasks": ("id", "intent_id", "action", "status", "priority"),
}
#: The services name some fields as GraphQL does; a slice uses MemEX's names.
_SNAKE = {"sourceKind": "source_kind", "intentId": "intent_id", "taskId": "task_id",
          "edgeId": "edge_id"}  # fmt: skip


def parse_slice(data: Any, limits: check.Limits, max_records: int) -> dict[str, list[Entry]]:
    """Every record of a slice, checked, or the first error with its path.
    Missing kinds are empty, as in MemEX."""
    if not isinstance(data, dict):
        raise BadUserInput("must be a JSON object (memories, edges, intents, tasks)", field="slice")
    unknown = sorted(set(data) - set(KINDS))
    if unknown:
        raise BadUserInput(f"unknown keys {unknown}", field="slice")
    lists = {kind: [] if data.get(kind) is None else data[kind] for kind in KINDS}
    for kind, values in lists.items():
        if not isinstance(values, list):
            raise BadUserInput("must be a list", field=f"slice.{kind}")
    total = sum(len(values) for values in lists.values())
    if total > max_records:
        raise BadUserInput(f"{total} records, more than {max_records} (MEMEXD_TRAVERSAL_MAX_NODES)"
                           "; import it in parts", field="slice")  # fmt: skip
    return {kind: [_entry(kind, f"slice.{kind}[{i}]", raw, limits) for i, raw in enumerate(values)]
            for kind, values in lists.items()}  # fmt: skip


def _entry(kind: str, path: str, raw: Any, limits: check.Limits) -> Entry:
    if not isinstance(raw, dict):
        raise BadUserInput("must be a JSON object", field=path)
    try:
        unknown = sorted(set(raw) - set(_KEYS[kind]))
        if unknown:
            raise BadUserInput(f"unknown fields {unknown}")
        for name in _REQUIRED[kind]:
            if raw.get(name) is None:
                raise BadUserInput("is required", field=name)
        doc = _memory(raw, limits) if kind == "memories" else (
            _edge(raw, limits) if kind == "edges" else _plan(kind, raw, limits))  # fmt: skip
    except (BadUserInput, InvalidTimestamp) as exc:
        raise _at(path, exc) from None
    return Entry(path, str(doc.get("edge_id", doc.get("id"))), doc)


def _at(path: str, exc: BadUserInput | InvalidTimestamp) -> MemexError:
    """The error, its message starting with the record's path (and the
    field's MemEX name, where the service said ``sourceKind: …``); no path:
    only the field's name."""
    head, sep, rest = exc.message.partition(": ")
    where = f"{path}." if path else ""
    if sep and head.isidentifier():
        return type(exc)(f"{where}{_SNAKE.get(head, head)}: {rest}")
    return type(exc)(f"{path}: {exc.message}" if path else exc.message)


def _memory(raw: Mapping[str, Any], limits: check.Limits) -> JSONObject:
    return item_json(memory_item(raw, limits).item)


def memory_record(raw: Any, limits: check.Limits) -> check.ValidItem:
    """One MemEX memory record checked as a slice's ``memories[i]`` is (errors
    name the field as MemEX does, e.g. ``source_kind: …``)."""
    if not isinstance(raw, dict):
        raise BadUserInput("must be a JSON object")
    try:
        unknown = raw.keys() - _ITEM_KEY_SET
        if unknown:
            raise BadUserInput(f"unknown fields {sorted(unknown)}")
        for name in _REQUIRED["memories"]:
            if raw.get(name) is None:
                raise BadUserInput("is required", field=name)
        return memory_item(raw, limits)
    except (BadUserInput, InvalidTimestamp) as exc:
        raise _at("", exc) from None


def memory_item(raw: Mapping[str, Any], limits: check.Limits) -> check.ValidItem:
    """An item as ``createItems`` checks it. Its id must be a UUIDv7 (memexd
    reads creation time from it), and a given ``created_at`` must be that time."""
    value = raw["id"]
    if not isinstance(value, str):
        raise BadUserInput("must be a string", field="id")
    try:
        item_id = check.check_uuid7(value, "id")
    except BadUserInput:
        raise InvalidTimestamp(f"id: {value!r} is not a UUIDv7, so it carries no time") from None
    created_at = raw.get("created_at")
    if created_at is not None and created_at != timestamp_ms(item_id):
        raise BadUserInput(
            f"{created_at!r} is not the time of the id ({timestamp_ms(item_id)}): memexd reads "
            "creation time from the id",
            field="created_at",
        )
    get = raw.get
    return check.item_of(item_id, get("scope"), get("kind"), get("content"), get("author"),
                         get("source_kind"), get("authority"), get("parents"),
                         get("conviction"), get("importance"), get("intent_id"),
                         get("task_id"), get("meta"), limits)  # fmt: skip


def _edge(raw: Mapping[str, Any], limits: check.Limits) -> JSONObject:
    """An edge as ``createEdge`` checks it, plus MemEX's own rules: ``active``
    is a boolean, ``weight`` is in [0, 1]."""
    if not isinstance(raw["active"], bool):
        raise BadUserInput("must be true or false", field="active")
    check.check_score(raw.get("weight"), "weight")
    draft = NewEdge(
        from_id=raw["from"], to_id=raw["to"], kind=raw["kind"], author=raw["author"],
        source_kind=raw["source_kind"], authority=raw["authority"], edge_id=raw["edge_id"],
        weight=raw.get("weight"), active=raw["active"], meta=raw.get("meta"),
    )  # fmt: skip
    return edge_json(check.new_edge(draft, limits))


def _plan(kind: str, raw: Mapping[str, Any], limits: check.Limits) -> JSONObject:
    """An intent or a task as MemEX takes it (status kept, ``attempt`` absent unless given)."""
    spec = INTENT if kind == "intents" else TASK
    return Record(new_data(spec, raw, limits, faithful=True), "").json(spec)
