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
from memexd.ids import new_id
from memexd.intents.spec import Kind
from memexd.memory import validation as check
from memexd.memory.meta import dump_json
from memexd.memory.validation import Limits
from memexd.types import JSONObject, Row

__all__ = [
    "Record",
    "check_fields",
    "check_scope",
    "new_data",
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


def check_fields(kind: Kind, given: Mapping[str, Any], limits: Limits) -> JSONObject:
    """The given (non-null) fields, checked; unknown names are refused."""
    out: JSONObject = {}
    for name, value in given.items():
        if value is not None:
            out[name] = _check(kind, name, value, limits)
    return out


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


def new_data(kind: Kind, given: Mapping[str, Any], limits: Limits) -> JSONObject:
    """A new record's data: checked, required fields present, id and status set."""
    data = check_fields(kind, given, limits)
    for name in (*kind.required, "priority"):
        if name not in data:
            raise BadUserInput("is required", field=name)
    data.setdefault("id", new_id())
    data["status"] = kind.initial
    if kind.name == "task":
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
    return Record(data, row["scope"], int(row["version"]))
