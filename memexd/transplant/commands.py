"""One MemEX command (snake_case JSON with a ``type`` tag) as a call on memexd's services.

Parsing checks what MemEX's command models require (fields present, objects
where MemEX wants objects, ``active`` on a new edge, a new edge's weight in
[0, 1]); the services then validate the values as for any other caller, so a
command memexd cannot apply fails with the service's own code. Where memexd
and MemEX differ (docs/replay.md):

- an item id must be a UUIDv7 (``INVALID_TIMESTAMP`` otherwise: memexd reads
  creation time from it), and a given ``created_at`` must be that time;
- an explicit ``null`` in a ``memory.update`` / ``edge.update`` partial
  (MemEX: clear the field) is refused, as memexd keeps such fields;
- an edge's ``author`` / ``source_kind`` cannot change.

``intent.*`` / ``task.*`` commands, which MemEX's replay refuses, are a
memexd extension: they go to the plan services in their MemEX-faithful mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias

from memexd.errors import BadUserInput, InvalidTimestamp
from memexd.events.vocabulary import Event, Origin
from memexd.ids import timestamp_ms
from memexd.intents.spec import INTENT, TASK, Kind
from memexd.memory.model import EdgePatch, ItemPatch, NewEdge, NewItem
from memexd.memory.validation import check_score, check_uuid7
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.core import Memex
    from memexd.intents.commands import PlanCommands

__all__ = ["COMMAND_TYPES", "Call", "Command", "ItemCreate", "parse_command"]

Run: TypeAlias = Callable[["Memex", Origin], Awaitable[list[Event]]]


@dataclass(frozen=True, slots=True)
class ItemCreate:
    """``memory.create``: the replay applies runs of them as one batch."""

    draft: NewItem


@dataclass(frozen=True, slots=True)
class Call:
    """Any other command: one service call, returning its events."""

    type: str
    run: Run


Command: TypeAlias = ItemCreate | Call

_ITEM_FIELDS = ("scope", "kind", "content", "author", "source_kind", "parents", "authority",
                "conviction", "importance", "intent_id", "task_id", "meta")  # fmt: skip
_ITEM_REQUIRED = ("id", "scope", "kind", "content", "author", "source_kind", "authority")
_EDGE_REQUIRED = ("edge_id", "from", "to", "kind", "author", "source_kind", "authority", "active")
_EDGE_PATCH = ("kind", "weight", "authority", "active", "meta")
#: Edge fields MemEX may change and memexd may not (its EdgePatch has no slot).
_EDGE_FIXED = ("author", "source_kind")
_SHOWN = 80


def parse_command(value: Any) -> Command:
    """The command, or ``BAD_USER_INPUT`` / ``INVALID_TIMESTAMP`` saying what is wrong."""
    if not isinstance(value, dict):
        raise BadUserInput("a command must be a JSON object")
    type_ = value.get("type")
    parser = _PARSERS.get(type_) if isinstance(type_, str) else None
    if parser is None:
        raise BadUserInput(f"unknown command type {_shown(type_)}", field="type")
    return parser(value)


# ---------------------------------------------------------------- helpers


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _required(obj: Mapping[str, Any], key: str, where: str = "") -> Any:
    """MemEX's required fields: absent and ``null`` are both missing."""
    value = obj.get(key)
    if value is None:
        raise BadUserInput("is required", field=where + key)
    return value


def _object(obj: Mapping[str, Any], key: str, where: str = "") -> JSONObject:
    value = _required(obj, key, where)
    if not isinstance(value, dict):
        raise BadUserInput("must be a JSON object", field=where + key)
    return value


def _opt(obj: Mapping[str, Any], key: str, types: type | tuple[type, ...], what: str) -> Any:
    value = obj.get(key)
    if value is not None and not isinstance(value, types):
        raise BadUserInput(f"must be {what}", field=key)
    return value


def _text(obj: Mapping[str, Any], key: str) -> str:
    value = _required(obj, key)
    if not isinstance(value, str):
        raise BadUserInput("must be a string", field=key)
    return value


def _reason(obj: Mapping[str, Any]) -> str | None:
    value: str | None = _opt(obj, "reason", str, "a string")
    return value


def _target(cmd: JSONObject, key: str) -> tuple[Any, str, str | None]:
    """What a memory/edge update or retract names, who asks and why."""
    return _required(cmd, key), _text(cmd, "author"), _reason(cmd)


def _patch(partial: JSONObject, allowed: tuple[str, ...], what: str) -> JSONObject:
    """The fields of a partial memexd applies. Unknown keys and MemEX's
    immutable ones (``id``, ``created_at``, ``edge_id``, ``from``, ``to``) are
    ignored as MemEX ignores them; a ``null`` would clear a field in MemEX."""
    out: JSONObject = {}
    for key, value in partial.items():
        if key not in allowed:
            continue
        if value is None:
            raise BadUserInput(f"memexd does not clear {what} fields", field=f"partial.{key}")
        out[key] = value
    return out


# ---------------------------------------------------------------- items


def _item_id(value: Any) -> str:
    """Any string that is not a UUIDv7 carries no creation time: INVALID_TIMESTAMP,
    as MemEX's ``extractTimestamp`` says of it."""
    if not isinstance(value, str):
        raise BadUserInput("must be a string", field="item.id")
    try:
        return check_uuid7(value, "item.id")
    except BadUserInput:
        raise InvalidTimestamp(
            f"item.id: {_shown(value)} is not a UUIDv7, so it carries no time"
        ) from None


def _memory_create(cmd: JSONObject) -> Command:
    item = _object(cmd, "item")
    for name in _ITEM_REQUIRED:
        _required(item, name, "item.")
    item_id = _item_id(item["id"])
    created_at = item.get("created_at")
    if created_at is not None:
        if isinstance(created_at, bool) or not isinstance(created_at, int):
            raise BadUserInput("must be an integer (epoch ms)", field="item.created_at")
        if created_at != timestamp_ms(item_id):
            raise BadUserInput(
                f"{created_at} is not the time of the id ({timestamp_ms(item_id)}): memexd "
                "reads creation time from the id",
                field="item.created_at",
            )
    return ItemCreate(NewItem(id=item_id, **{k: item.get(k) for k in _ITEM_FIELDS}))


def _memory_update(cmd: JSONObject) -> Command:
    item_id, author, reason = _target(cmd, "item_id")
    patch = ItemPatch(**_patch(_object(cmd, "partial"), _ITEM_FIELDS, "item"))
    basis = _opt(cmd, "basis", dict, "a JSON object")

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        return (await memex.items.update(item_id, patch, author, reason, basis, origin))[1]

    return Call("memory.update", run)


def _retract(what: str, cmd: JSONObject) -> Command:
    """``memory.retract`` (the item and its edges) or ``edge.retract``."""
    target, author, reason = _target(cmd, "item_id" if what == "memory" else "edge_id")

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        service = memex.items if what == "memory" else memex.edges
        return list(await service.retract(target, author, reason, origin))

    return Call(f"{what}.retract", run)


# ---------------------------------------------------------------- edges


def _edge_create(cmd: JSONObject) -> Command:
    edge = _object(cmd, "edge")
    for name in _EDGE_REQUIRED:
        _required(edge, name, "edge.")
    if not isinstance(edge["active"], bool):
        raise BadUserInput("must be true or false", field="edge.active")
    check_score(edge.get("weight"), "edge.weight")  # MemEX: 0..1 at creation
    draft = NewEdge(
        from_id=edge["from"], to_id=edge["to"], kind=edge["kind"], author=edge["author"],
        source_kind=edge["source_kind"], authority=edge["authority"], edge_id=edge["edge_id"],
        weight=edge.get("weight"), active=edge["active"], meta=edge.get("meta"),
    )  # fmt: skip

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        return (await memex.edges.create(draft, origin))[1]

    return Call("edge.create", run)


def _edge_update(cmd: JSONObject) -> Command:
    edge_id, author, reason = _target(cmd, "edge_id")
    fields = _patch(_object(cmd, "partial"), _EDGE_PATCH + _EDGE_FIXED, "edge")
    fixed = {k: fields.pop(k) for k in _EDGE_FIXED if k in fields}
    patch = EdgePatch(**fields)

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        if fixed:
            await _unchanged(memex, edge_id, fixed)
        return (await memex.edges.update(edge_id, patch, author, reason, origin))[1]

    return Call("edge.update", run)


async def _unchanged(memex: Memex, edge_id: Any, fixed: JSONObject) -> None:
    """A partial may repeat an edge's author / source kind (MemEX's import
    sends whole edges), not change them. A missing edge is left to the update
    to report (no other writer can change these fields, so no race)."""
    edge = (await memex.edge_reads.get_many([edge_id])).get(str(edge_id).lower())
    for key, value in fixed.items():
        if edge is not None and getattr(edge, key) != value:
            raise BadUserInput(f"memexd cannot change an edge's {key}", field=f"partial.{key}")


# ---------------------------------------------------------------- intents, tasks


def _service(memex: Memex, kind: Kind) -> PlanCommands:
    return memex.intents if kind is INTENT else memex.tasks


def _plan_create(kind: Kind, cmd: JSONObject) -> Command:
    """A record as MemEX JSON, its status kept; no scope in MemEX: the
    service's rule picks one (a task's intent's, else the caller's only one)."""
    record = _object(cmd, kind.name)
    _required(record, "id", f"{kind.name}.")
    if not isinstance(_required(record, "status", f"{kind.name}."), str):
        raise BadUserInput("must be a string", field=f"{kind.name}.status")
    given = {k: record[k] for k in kind.order if record.get(k) is not None}

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        return (await _service(memex, kind).create(given, None, origin, faithful=True))[1]

    return Call(f"{kind.name}.create", run)


def _plan_update(kind: Kind, cmd: JSONObject) -> Command:
    """MemEX's update: any field but ``id`` and ``status`` (ignored, like
    unknown keys); a ``null`` clears."""
    record_id, partial_ = _required(cmd, f"{kind.name}_id"), _object(cmd, "partial")
    _text(cmd, "author")
    if kind is INTENT:
        _reason(cmd)
    patch = {k: v for k, v in partial_.items() if k in kind.updatable}

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        return (await _service(memex, kind).update(record_id, patch, origin, faithful=True))[1]

    return Call(f"{kind.name}.update", run)


def _plan_move(kind: Kind, command: str, cmd: JSONObject) -> Command:
    """A lifecycle command; MemEX's ``author``, ``reason`` and ``retryable``
    are checked and then ignored (they are in no MemEX record or event)."""
    record_id = _required(cmd, f"{kind.name}_id")
    changes: JSONObject = {}
    if kind is INTENT:
        _text(cmd, "author")
        _reason(cmd)
    elif command == "start":
        changes["agent_id"] = cmd.get("agent_id")
    elif command == "complete":
        changes.update(result=cmd.get("result"), output_memory_ids=cmd.get("output_memory_ids"))
    elif command == "fail":
        changes["error"] = _required(cmd, "error")
        _opt(cmd, "retryable", bool, "true or false")
    else:
        _reason(cmd)
    given = {k: v for k, v in changes.items() if v is not None}  # absent: kept

    async def run(memex: Memex, origin: Origin) -> list[Event]:
        return (await _service(memex, kind).move(record_id, command, origin, **given))[1]

    return Call(f"{kind.name}.{command}", run)


def _plan_parsers() -> dict[str, Callable[[JSONObject], Command]]:
    parsers: dict[str, Callable[[JSONObject], Command]] = {}
    for kind in (INTENT, TASK):
        parsers[f"{kind.name}.create"] = partial(_plan_create, kind)
        parsers[f"{kind.name}.update"] = partial(_plan_update, kind)
        for command in kind.moves:
            parsers[f"{kind.name}.{command}"] = partial(_plan_move, kind, command)
    return parsers


_PARSERS: dict[str, Callable[[JSONObject], Command]] = {
    "memory.create": _memory_create,
    "memory.update": _memory_update,
    "memory.retract": partial(_retract, "memory"),
    "edge.create": _edge_create,
    "edge.update": _edge_update,
    "edge.retract": partial(_retract, "edge"),
    **_plan_parsers(),
}
#: Every command ``type`` a log may hold.
COMMAND_TYPES = frozenset(_PARSERS)
