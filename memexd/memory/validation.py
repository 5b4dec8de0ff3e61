"""Every input check, in one place, run before anything reaches the graph.

Commands and reads validate their whole input here first, so a bad request
changes nothing; nothing below re-checks (the engine adapters only refuse what
they cannot encode, as a last guard). Patterns are full matches
(``re.fullmatch``): ``$`` also accepts a trailing newline, and FalkorDB 4.16
crashes on a uniquely-constrained value that ends in whitespace.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Protocol

import orjson

from memexd.errors import BadUserInput, InvalidTimestamp
from memexd.ids import MAX_TIME_MS, new_id, timestamp_ms
from memexd.memory.lifecycle import (
    NAMESPACE,
    check_lifecycle,
    check_priority,
    check_tags,
    folded,
)
from memexd.memory.model import Edge, EdgeFilter, EdgePatch, Item, ItemPatch, NewEdge
from memexd.settings import Settings
from memexd.types import JSONObject

__all__ = [
    "RESERVED_KINDS",
    "ItemDraft",
    "Limits",
    "ValidItem",
    "check_edge_kind",
    "check_finite",
    "check_flag",
    "check_ids",
    "check_limit",
    "check_meta_path",
    "check_names",
    "check_opt_uuid",
    "check_optional_text",
    "check_prose",
    "check_score",
    "check_text",
    "check_uuid",
    "check_uuid7",
    "edge_filter",
    "edge_patch",
    "item_of",
    "item_patch",
    "json_object",
    "json_value",
    "long_number",
    "merged_edge",
    "merged_item",
    "new_edge",
    "new_item",
]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
#: The largest UUIDv7 whose time is MAX_TIME_MS.
_LAST_UUID7 = (
    f"{MAX_TIME_MS:012x}"[:8] + "-" + f"{MAX_TIME_MS:012x}"[8:] + "-7fff-bfff-ffffffffffff"
)
_EDGE_KIND = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_META_PATH = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PROSE_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Digits to ``d``, everything else to a space: a run of 19 ``d`` marks a
#: number that might not fit in 64 bits (12 times faster than a regex).
_DIGITS = bytes(ord("d") if chr(b).isdecimal() and b < 128 else ord(" ") for b in range(256))
_LONG_RUN = b"d" * 19
_INT64 = (-(1 << 63), (1 << 63) - 1)

#: Relationship types memexd uses itself; an edge kind may not take them.
RESERVED_KINDS = frozenset({"PARENT", "AWAITS"})
#: A patch's lifecycle fields: folded into meta, not fields of the record.
_TIERING = ("lifecycle", "priority", "tags", "session_id")
MAX_TEXT = 512
MAX_PROSE = 4096


@dataclass(frozen=True, slots=True)
class Limits:
    """The input limits, from the settings (the README lists their defaults)."""

    max_batch: int = 5_000
    max_list: int = 1_000
    max_page: int = 10_000
    max_offset: int = 100_000
    max_content_bytes: int = 256 * 1024
    max_filter_depth: int = 8
    max_filter_terms: int = 128
    #: Not a limit, but read where filters and sorts are checked: the decay
    #: score's half-life they evaluate it with (SPEC §11).
    decay_half_life_ms: float = 30 * 86_400_000.0

    @classmethod
    def of(cls, s: Settings) -> Limits:
        return cls(s.max_batch, s.max_list, s.max_page, s.max_offset, s.max_content_bytes,
                   s.max_filter_depth, s.max_filter_terms, s.decay_half_life_ms)  # fmt: skip

    def page(self, limit: Any, field: str = "limit") -> int:
        """A caller's page size: ``limit`` checked against ``max_page``, or
        ``max_page`` without one."""
        return self.max_page if limit is None else check_limit(limit, field, maximum=self.max_page)


# ---------------------------------------------------------------- scalars


def check_uuid(value: Any, field: str = "id") -> str:
    """The canonical (lower-case) form of a UUID string, or ``BAD_USER_INPUT``."""
    lowered = value.lower() if isinstance(value, str) else None
    if lowered is None or not _UUID.fullmatch(lowered):
        raise BadUserInput(f"{value!r} is not a UUID", field=field)
    return lowered


def check_opt_uuid(value: Any, field: str) -> str | None:
    return None if value is None else check_uuid(value, field)


def check_uuid7(value: Any, field: str = "id") -> str:
    """A UUIDv7 whose time is a real date (up to 9999-12-31): an item's creation
    time is read from its id, so anything else is ``INVALID_TIMESTAMP``, as
    MemEX's ``extractTimestamp`` has it."""
    lowered = value.lower() if isinstance(value, str) else None
    if lowered is None or not _UUID7.fullmatch(lowered):  # the common case: one match
        check_uuid(value, field)  # not a UUID at all: BAD_USER_INPUT
        raise InvalidTimestamp(f"{field}: {value!r} is not a UUIDv7, so it carries no time")
    if lowered > _LAST_UUID7:  # ids sort by their time: past 9999-12-31 (MAX_TIME_MS)
        raise InvalidTimestamp(f"{field}: {value!r} carries a time after the year 9999")
    return lowered


def check_ids(values: Any, field: str, *, max_len: int) -> list[str]:
    if not isinstance(values, list | tuple):
        raise BadUserInput("must be a list of ids", field=field)
    if len(values) > max_len:
        raise BadUserInput(f"more than {max_len} ids", field=field)
    return [check_uuid(v, field) for v in values]


def check_text(value: Any, field: str, *, max_len: int = MAX_TEXT) -> str:
    """A name-like string (scope, kind, author…): non-empty, bounded, no control characters."""
    if not isinstance(value, str) or not value:
        raise BadUserInput("must be a non-empty string", field=field)
    if len(value) > max_len:
        raise BadUserInput(f"longer than {max_len} characters", field=field)
    if _CONTROL.search(value):
        raise BadUserInput("contains control characters", field=field)
    return value


def check_optional_text(value: Any, field: str) -> str | None:
    return None if value is None else check_text(value, field)


def check_prose(value: Any, field: str) -> str | None:
    """Optional free text (a reason): tabs and line breaks allowed."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadUserInput("must be a string", field=field)
    if len(value) > MAX_PROSE:
        raise BadUserInput(f"longer than {MAX_PROSE} characters", field=field)
    if _PROSE_CONTROL.search(value):
        raise BadUserInput("contains control characters", field=field)
    return value


def check_names(values: Any, field: str, limits: Limits) -> list[str] | None:
    """An optional list of names (event namespaces, types, meta paths)."""
    if values is None:
        return None
    if not isinstance(values, list | tuple) or len(values) > limits.max_list:
        raise BadUserInput(f"must be a list of at most {limits.max_list} strings", field=field)
    return [check_text(v, field) for v in values]


def check_score(value: Any, field: str, *, required: bool = False) -> float | None:
    if value is None:
        if required:
            raise BadUserInput("is required", field=field)
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadUserInput("must be a number", field=field)
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise BadUserInput(f"must be within [0, 1], got {value}", field=field)
    return float(value)


def check_finite(value: Any, field: str) -> float | None:
    """An optional number that must be finite (weights, thresholds)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadUserInput("must be a finite number", field=field)
    return float(value)


def check_limit(value: Any, field: str, *, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadUserInput("must be an integer", field=field)
    if value < 0:
        raise BadUserInput("must not be negative", field=field)
    if value > maximum:
        raise BadUserInput(f"must be at most {maximum}", field=field)
    return value


def check_edge_kind(kind: Any, field: str = "kind") -> str:
    if not isinstance(kind, str) or not _EDGE_KIND.fullmatch(kind):
        raise BadUserInput(
            f"{kind!r} is not a valid edge kind (upper case, digits, underscore; "
            "starts with a letter; at most 64 characters)",
            field=field,
        )
    if kind in RESERVED_KINDS:
        raise BadUserInput(f"{kind} is reserved", field=field)
    return kind


def check_meta_path(path: Any, field: str = "meta") -> str:
    """A meta dot path: segments of ``[A-Za-z0-9_-]`` joined by dots, ≤ 128 characters."""
    if not isinstance(path, str) or len(path) > 128 or not _META_PATH.fullmatch(path):
        raise BadUserInput(f"invalid meta path {path!r}", field=field)
    return path


# ---------------------------------------------------------------- JSON


def json_value(value: Any, field: str, *, max_bytes: int) -> str:
    """Any JSON value of bounded size, as compact text: integers must fit in
    64 bits (both engines' integers; bigger ones are refused rather than
    rounded), nesting at most 254 levels."""
    try:
        raw = orjson.dumps(value)
    except TypeError as exc:  # orjson.JSONEncodeError: too deep, too big, not JSON
        raise BadUserInput(f"not storable as JSON ({exc})", field=field) from None
    if len(raw) > max_bytes:
        raise BadUserInput(f"larger than {max_bytes} bytes", field=field)
    if long_number(raw):
        _check_integers(value, field)
    return raw.decode()


def long_number(raw: bytes) -> bool:
    """Whether JSON text holds a number of 19 digits or more (one that may
    not fit in 64 bits), or such a run of digits inside a string."""
    return raw.translate(_DIGITS).find(_LONG_RUN) != -1


def json_object(value: Any, field: str, *, max_bytes: int) -> tuple[JSONObject, str]:
    """A JSON object of bounded size and its stored text, serialised once."""
    if not isinstance(value, dict):
        raise BadUserInput("must be a JSON object", field=field)
    return value, json_value(value, field, max_bytes=max_bytes)


def _check_integers(value: Any, field: str) -> None:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, int) and not _INT64[0] <= current <= _INT64[1]:
            raise BadUserInput(f"integer {current} does not fit in 64 bits", field=field)


# ---------------------------------------------------------------- items


class ItemDraft(Protocol):
    """What :func:`new_item` reads: a :class:`NewItem`, or any input with the
    same fields (GraphQL's ``MemoryItemInput``), so no copy is made first."""

    @property
    def id(self) -> Any: ...
    @property
    def scope(self) -> Any: ...
    @property
    def kind(self) -> Any: ...
    @property
    def content(self) -> Any: ...
    @property
    def author(self) -> Any: ...
    @property
    def source_kind(self) -> Any: ...
    @property
    def authority(self) -> Any: ...
    @property
    def parents(self) -> Any: ...
    @property
    def conviction(self) -> Any: ...
    @property
    def importance(self) -> Any: ...
    @property
    def intent_id(self) -> Any: ...
    @property
    def task_id(self) -> Any: ...
    @property
    def meta(self) -> Any: ...
    @property
    def lifecycle(self) -> Any: ...
    @property
    def priority(self) -> Any: ...
    @property
    def tags(self) -> Any: ...
    @property
    def session_id(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class ValidItem:
    """A validated new item with its JSON texts, serialised once."""

    item: Item
    content_json: str
    meta_json: str | None
    #: Its id was minted here, not given: the item came to be at the id's time.
    minted: bool = False


def new_item(d: ItemDraft, limits: Limits) -> ValidItem:
    """A checked new item; errors name the field (callers add where it sits)."""
    return item_of(d.id, d.scope, d.kind, d.content, d.author, d.source_kind, d.authority,
                   d.parents, d.conviction, d.importance, d.intent_id, d.task_id, d.meta,
                   limits, lifecycle=d.lifecycle, priority=d.priority, tags=d.tags,
                   session_id=d.session_id)  # fmt: skip


def _object_or_none(value: Any, field: str) -> JSONObject | None:
    if value is not None and not isinstance(value, dict):
        raise BadUserInput("must be a JSON object", field=field)
    return value


def item_of(
    item_id: Any, scope: Any, kind: Any, content: Any, author: Any, source_kind: Any,
    authority: Any, parents: Any, conviction: Any, importance: Any, intent_id: Any,
    task_id: Any, meta: Any, limits: Limits, *, lifecycle: Any = None, priority: Any = None,
    tags: Any = None, session_id: Any = None,
) -> ValidItem:  # fmt: skip
    """:func:`new_item` from its fields, for callers that hold them apart (a
    record being imported): no draft is built first. A ``meta.memexd`` it
    holds is checked and made canonical (:mod:`memexd.memory.lifecycle`)."""
    minted = item_id is None
    item_id = new_id() if minted else check_uuid7(item_id, "id")
    size = limits.max_content_bytes
    content_json = json_object(content, "content", max_bytes=size)[1]
    tiers = (lifecycle, priority, tags, session_id)
    if any(t is not None for t in tiers) or (isinstance(meta, dict) and NAMESPACE in meta):
        meta = folded(_object_or_none(meta, "meta"), lifecycle, priority, tags, session_id)
    meta_json = None if meta is None else json_object(meta, "meta", max_bytes=size)[1]
    item = Item(
        id=item_id,
        scope=check_text(scope, "scope"),
        kind=check_text(kind, "kind"),
        content=content,
        author=check_text(author, "author"),
        source_kind=check_text(source_kind, "sourceKind"),
        authority=check_score(authority, "authority", required=True) or 0.0,
        created_at=timestamp_ms(item_id),
        parents=None
        if parents is None
        else tuple(check_ids(parents, "parents", max_len=limits.max_list)),
        conviction=None if conviction is None else check_score(conviction, "conviction"),
        importance=None if importance is None else check_score(importance, "importance"),
        intent_id=None if intent_id is None else check_uuid(intent_id, "intentId"),
        task_id=None if task_id is None else check_uuid(task_id, "taskId"),
        meta=meta,
    )
    return ValidItem(item, content_json, meta_json, minted)


def item_patch(p: ItemPatch, limits: Limits) -> ItemPatch:
    size = limits.max_content_bytes
    return ItemPatch(
        scope=check_optional_text(p.scope, "patch.scope"),
        kind=check_optional_text(p.kind, "patch.kind"),
        content=None if p.content is None
        else json_object(p.content, "patch.content", max_bytes=size)[0],
        author=check_optional_text(p.author, "patch.author"),
        source_kind=check_optional_text(p.source_kind, "patch.sourceKind"),
        parents=None if p.parents is None
        else tuple(check_ids(p.parents, "patch.parents", max_len=limits.max_list)),
        authority=check_score(p.authority, "patch.authority"),
        conviction=check_score(p.conviction, "patch.conviction"),
        importance=check_score(p.importance, "patch.importance"),
        intent_id=check_opt_uuid(p.intent_id, "patch.intentId"),
        task_id=check_opt_uuid(p.task_id, "patch.taskId"),
        meta=None if p.meta is None else json_object(p.meta, "patch.meta", max_bytes=size)[0],
        lifecycle=None if p.lifecycle is None else check_lifecycle(p.lifecycle, "patch.lifecycle"),
        priority=None if p.priority is None else check_priority(p.priority, "patch.priority"),
        tags=None if p.tags is None else check_tags(p.tags, "patch.tags"),
        session_id=p.session_id,
    )  # fmt: skip


def merged_item(current: Item, patch: ItemPatch, limits: Limits) -> ValidItem:
    """MemEX update: content and meta merge shallowly, other given fields
    replace; the merged content and meta keep the size limit (their texts,
    serialised for that check, are what gets stored)."""
    changes = patch.given()
    for key in _TIERING:
        changes.pop(key, None)
    size = limits.max_content_bytes
    content = {**current.content, **patch.content} if patch.content is not None else current.content
    meta = current.meta if patch.meta is None else {**(current.meta or {}), **patch.meta}
    if patch.meta is not None or any(getattr(patch, key) is not None for key in _TIERING):
        meta = folded(meta, patch.lifecycle, patch.priority, patch.tags, patch.session_id,
                      field="patch.")  # fmt: skip
    changes["content"], content_json = json_object(content, "patch.content", max_bytes=size)
    meta_json = None if meta is None else json_object(meta, "patch.meta", max_bytes=size)[1]
    changes["meta"] = meta
    if patch.parents is not None:
        changes["parents"] = tuple(patch.parents)
    return ValidItem(replace(current, **changes), content_json, meta_json)


# ---------------------------------------------------------------- edges


def new_edge(d: NewEdge, limits: Limits) -> Edge:
    return Edge(
        edge_id=check_uuid(d.edge_id, "edgeId") if d.edge_id is not None else new_id(),
        from_id=check_uuid(d.from_id, "from"),
        to_id=check_uuid(d.to_id, "to"),
        kind=check_edge_kind(d.kind),
        author=check_text(d.author, "author"),
        source_kind=check_text(d.source_kind, "sourceKind"),
        authority=check_score(d.authority, "authority", required=True) or 0.0,
        weight=check_finite(d.weight, "weight"),
        active=check_flag(d.active, "active", default=True),
        meta=None if d.meta is None
        else json_object(d.meta, "meta", max_bytes=limits.max_content_bytes)[0],
    )  # fmt: skip


def edge_patch(p: EdgePatch, limits: Limits) -> EdgePatch:
    return EdgePatch(
        kind=None if p.kind is None else check_edge_kind(p.kind, "patch.kind"),
        weight=check_finite(p.weight, "patch.weight"),
        authority=check_score(p.authority, "patch.authority"),
        active=None if p.active is None else check_flag(p.active, "patch.active", default=True),
        meta=None if p.meta is None
        else json_object(p.meta, "patch.meta", max_bytes=limits.max_content_bytes)[0],
    )  # fmt: skip


def merged_edge(current: Edge, patch: EdgePatch, limits: Limits) -> Edge:
    """The edge with the patch applied: each given field replaces the old one,
    ``meta`` too (MemEX's ``merge_edge`` replaces, unlike an item's meta)."""
    return replace(current, **patch.given())


def edge_filter(f: EdgeFilter) -> EdgeFilter:
    return EdgeFilter(
        from_id=check_opt_uuid(f.from_id, "filter.from"),
        to_id=check_opt_uuid(f.to_id, "filter.to"),
        kind=None if f.kind is None else check_edge_kind(f.kind, "filter.kind"),
        min_weight=check_finite(f.min_weight, "filter.minWeight"),
        active_only=check_flag(f.active_only, "filter.activeOnly", default=True),
    )


def check_flag(value: Any, field: str, *, default: bool = False) -> bool:
    """A boolean argument, ``default`` when not given."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise BadUserInput("must be true or false", field=field)
    return value
