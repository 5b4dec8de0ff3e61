"""Intent and task records: checking input, graph properties, MemEX JSON.

A record's ``data`` is its MemEX JSON object (snake_case, absent optionals
left out, so "absent" and "empty" stay apart); ``scope`` and ``version`` are
memexd's own (grants, compare-and-set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from memexd.errors import BadUserInput
from memexd.graph.numbers import exact_or_none
from memexd.ids import new_id
from memexd.intents.spec import Kind
from memexd.memory import validation as check
from memexd.memory.meta import dump_json
from memexd.memory.validation import Limits
from memexd.types import JSONObject, Row

__all__ = [
    "Record",
    "check_fields",
    "check_patch",
    "check_scope",
    "check_status",
    "new_data",
    "patched",
    "record_from_row",
    "record_props",
    "update_props",
]

_PROSE = frozenset({"description", "error"})


@dataclass(frozen=True, slots=True)
class Record:
    data: JSONObject
    scope: str
    version: int = 0

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def status(self) -> str:
        return str(self.data["status"])

    def json(self, kind: Kind) -> JSONObject:
        """MemEX's JSON object, keys in MemEX's order."""
        return {k: self.data[k] for k in kind.order if k in self.data}


def check_scope(value: Any) -> str:
    """A record's scope: like an item's, but may be empty (the root scope,
    readable only with a grant on every scope)."""
    if value == "":
        return ""
    return check.check_text(value, "scope")


def check_status(kind: Kind, value: Any, field: str) -> str:
    if not isinstance(value, str) or value not in kind.statuses:
        raise BadUserInput(f"not a {kind.name} status: {value!r}", field=field)
    return str(value)


def check_fields(kind: Kind, given: Mapping[str, Any], limits: Limits) -> JSONObject:
    """The given (non-null) fields, checked; unknown names are refused."""
    out: JSONObject = {}
    for name, value in given.items():
        if value is not None:
            out[name] = _check(kind, name, value, limits)
    return out


def check_patch(
    kind: Kind, patch: Mapping[str, Any], limits: Limits, allowed: frozenset[str]
) -> tuple[JSONObject, frozenset[str]]:
    """An update, MemEX's way: the fields to set (checked) and the fields to
    clear (given as null). Names outside ``allowed`` are refused, and so is
    clearing a field every record has."""
    unknown = set(patch) - allowed
    if unknown:
        raise BadUserInput(f"{kind.name}s cannot change {sorted(unknown)}")
    cleared = frozenset(name for name, value in patch.items() if value is None)
    required = sorted(cleared & kind.kept)
    if required:
        raise BadUserInput("is required: it cannot be cleared", field=required[0])
    return check_fields(kind, patch, limits), cleared


def patched(
    data: Mapping[str, Any], changes: Mapping[str, Any], cleared: frozenset[str]
) -> JSONObject:
    """A record's data after an update: changed fields replaced wholesale
    (objects too), cleared ones absent."""
    return {k: v for k, v in {**data, **changes}.items() if k not in cleared}


def _check(kind: Kind, name: str, value: Any, limits: Limits) -> Any:
    if name in ("id", *kind.ids):
        return check.check_uuid(value, name)
    if name == "priority":
        return check.check_score(value, name, required=True)
    if name in kind.texts:
        return check.check_prose(value, name) if name in _PROSE else check.check_text(value, name)
    if name in kind.id_lists:
        return check.check_ids(value, name, max_len=limits.max_list)
    if name in kind.objects:
        return check.json_object(value, name, max_bytes=limits.max_content_bytes)[0]
    if name == "attempt" and kind.name == "task":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
            raise BadUserInput("must be a whole number from 0", field=name)
        return value
    raise BadUserInput(f"{kind.name}s have no field {name!r}")


def new_data(
    kind: Kind, given: Mapping[str, Any], limits: Limits, *, faithful: bool = False
) -> JSONObject:
    """A new record's data: checked, required fields present, id and status
    set. Faithful (replay, import): a given status is kept, and a task's
    ``attempt`` stays absent unless given (MemEX's raw JSON); otherwise the
    status is the initial one and ``attempt`` starts at 0 (MemEX's factory)."""
    fields = dict(given)
    status = fields.pop("status", None) if faithful else None
    data = check_fields(kind, fields, limits)
    for name in (*kind.required, "priority"):
        if name not in data:
            raise BadUserInput("is required", field=name)
    data.setdefault("id", new_id())
    data["status"] = kind.initial if status is None else check_status(kind, status, "status")
    if kind.name == "task" and not faithful:
        data.setdefault("attempt", 0)
    return data


def record_props(kind: Kind, record: Record) -> dict[str, Any]:
    """Node properties: objects as JSON text, absent fields left out."""
    props: dict[str, Any] = {
        k: dump_json(v) if k in kind.objects else v for k, v in record.data.items()
    }
    props["scope"] = record.scope
    props["version"] = record.version
    return props


def update_props(kind: Kind, record: Record) -> dict[str, Any]:
    """Properties to ``SET +=`` for a changed record: absent fields removed."""
    props = {name: None for name in kind.order}
    props.update(record_props(kind, record))
    for key in ("id", "version"):
        props.pop(key)
    return props


def record_from_row(kind: Kind, row: Row) -> Record:
    data: JSONObject = {}
    for name in kind.order:
        value = row.get(name)
        if value is not None:
            data[name] = orjson.loads(value) if name in kind.objects else value
    if "priority" in data:  # as stored, not as FalkorDB prints it (shapes/plan)
        data["priority"] = exact_or_none(row["exact_priority"])
    return Record(data, row["scope"], int(row["version"]))
