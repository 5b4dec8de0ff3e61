"""Commands on memory items: create (batched), update, retract.

Each command validates everything first, then writes the change and its
lifecycle events in one Cypher statement.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from memexd.errors import (
    BadUserInput,
    ConstraintViolation,
    DuplicateMemory,
    MemoryNotFound,
    StorageError,
)
from memexd.events.log import Origin, make_event
from memexd.graph import Graph
from memexd.ids import check_uuid, check_uuid7, new_id, timestamp_ms
from memexd.memory.meta import flatten_meta
from memexd.memory.model import Event, Item
from memexd.memory.records import event_props, item_from_row, item_json, item_json_text, item_props
from memexd.memory.validation import check_ids, check_object, check_score, check_text, json_object
from memexd.settings import Settings
from memexd.types import JSONObject

__all__ = ["ItemCommands", "ItemPatch", "NewItem"]

_CAS_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class NewItem:
    scope: str
    kind: str
    content: Any
    author: str
    source_kind: str
    authority: float
    id: str | None = None
    parents: Sequence[str] | None = None
    conviction: float | None = None
    importance: float | None = None
    intent_id: str | None = None
    task_id: str | None = None
    meta: Any = None


@dataclass(frozen=True, slots=True)
class ItemPatch:
    """Fields to change; ``None`` means "leave as is"."""

    scope: str | None = None
    kind: str | None = None
    content: Any = None
    author: str | None = None
    source_kind: str | None = None
    parents: Sequence[str] | None = None
    authority: float | None = None
    conviction: float | None = None
    importance: float | None = None
    intent_id: str | None = None
    task_id: str | None = None
    meta: Any = None

    def given(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


@dataclass(frozen=True, slots=True)
class _Built:
    """A validated new item with its JSON texts, serialised once."""

    item: Item
    content_json: str
    meta_json: str | None

    def props(self) -> dict[str, Any]:
        return item_props(self.item, self.content_json, self.meta_json)

    def event(self, origin: Origin) -> Event:
        item = self.item
        doc = item_json(item)
        text = item_json_text(doc, self.content_json, self.meta_json)
        return make_event("memory.created", {"item": doc}, origin,
                          scope=item.scope, subject=item.id,
                          payload_json=f'{{"item":{text}}}')  # fmt: skip


class ItemCommands:
    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    # ------------------------------------------------------------------ create

    async def create(
        self, drafts: Sequence[NewItem], origin: Origin
    ) -> tuple[list[Item], list[Event]]:
        if len(drafts) > self.settings.max_batch:
            raise BadUserInput(f"more than {self.settings.max_batch} items", field="inputs")
        built = [self._build(d, f"inputs[{i}]") for i, d in enumerate(drafts)]
        if not built:
            return [], []
        items = [b.item for b in built]
        ids = [item.id for item in items]
        repeated = sorted(i for i, n in Counter(ids).items() if n > 1)
        if repeated:
            raise DuplicateMemory(repeated)
        events = [b.event(origin) for b in built]
        params = {
            "ids": ids,
            "rows": [b.props() for b in built],
            "links": _links(items),
            "events": [event_props(e) for e in events],
        }
        try:
            rows = await self.graph.write("item_create", params)
        except ConstraintViolation:
            rows = []
        if not rows:
            raise DuplicateMemory(await self._existing(ids))
        return items, events

    def _build(self, d: NewItem, where: str) -> _Built:
        s = self.settings
        item_id = check_uuid7(d.id, f"{where}.id") if d.id is not None else new_id()
        content, content_json = json_object(
            d.content, f"{where}.content", max_bytes=s.max_content_bytes
        )
        meta, meta_json = (
            (None, None)
            if d.meta is None
            else json_object(d.meta, f"{where}.meta", max_bytes=s.max_content_bytes)
        )
        item = Item(
            id=item_id,
            scope=check_text(d.scope, f"{where}.scope"),
            kind=check_text(d.kind, f"{where}.kind"),
            content=content,
            author=check_text(d.author, f"{where}.author"),
            source_kind=check_text(d.source_kind, f"{where}.sourceKind"),
            authority=_score(d.authority, f"{where}.authority", required=True),
            created_at=timestamp_ms(item_id),
            parents=tuple(check_ids(d.parents or (), f"{where}.parents", max_len=s.max_list)),
            conviction=check_score(d.conviction, f"{where}.conviction"),
            importance=check_score(d.importance, f"{where}.importance"),
            intent_id=_opt_uuid(d.intent_id, f"{where}.intentId"),
            task_id=_opt_uuid(d.task_id, f"{where}.taskId"),
            meta=meta,
        )
        return _Built(item, content_json, meta_json)

    async def _existing(self, ids: list[str]) -> list[str]:
        rows = await self.graph.read("item_get", {"ids": ids, "include_retracted": True})
        return sorted(row["item"]["id"] for row in rows) or ids

    # ------------------------------------------------------------------ update

    async def update(
        self,
        item_id: str,
        patch: ItemPatch,
        author: str,
        reason: str | None,
        basis: Any,
        origin: Origin,
    ) -> tuple[Item, list[Event]]:
        item_id = check_uuid(item_id)
        author = check_text(author, "author")
        checked = self._check_patch(patch)
        for _ in range(_CAS_ATTEMPTS):
            rows = await self.graph.read("item_get", {"ids": [item_id], "include_retracted": False})
            if not rows:
                raise MemoryNotFound(item_id)
            current, version = item_from_row(rows[0]["item"]), int(rows[0]["item"]["version"])
            merged = self._merged(current, checked)
            payload: JSONObject = {"item_id": item_id, "partial": _partial_json(checked),
                                   "author": author}  # fmt: skip
            if reason is not None:
                payload["reason"] = reason
            if basis is not None:
                payload["basis"] = basis
            event = make_event("memory.updated", payload, origin, scope=merged.scope,
                               subject=item_id)  # fmt: skip
            written = await self.graph.write(
                "item_update",
                {
                    "id": item_id,
                    "version": version,
                    "props": _update_props(current, merged),
                    "relink": checked.parents is not None,
                    "links": _links([merged]) if checked.parents is not None else [],
                    "event": event_props(event),
                },
            )
            if written:
                return merged, [event]
        raise StorageError(f"item {item_id} kept changing under concurrent updates")

    def _merged(self, current: Item, patch: ItemPatch) -> Item:
        """The item after the patch; the merged content and meta keep the size limit."""
        merged = _merge(current, patch)
        limit = self.settings.max_content_bytes
        check_object(merged.content, "patch.content", max_bytes=limit)
        if merged.meta is not None:
            check_object(merged.meta, "patch.meta", max_bytes=limit)
        return merged

    def _check_patch(self, p: ItemPatch) -> ItemPatch:
        s = self.settings
        return ItemPatch(
            scope=_opt_text(p.scope, "patch.scope"),
            kind=_opt_text(p.kind, "patch.kind"),
            content=None if p.content is None
            else check_object(p.content, "patch.content", max_bytes=s.max_content_bytes),
            author=_opt_text(p.author, "patch.author"),
            source_kind=_opt_text(p.source_kind, "patch.sourceKind"),
            parents=None if p.parents is None
            else check_ids(p.parents, "patch.parents", max_len=s.max_list),
            authority=check_score(p.authority, "patch.authority"),
            conviction=check_score(p.conviction, "patch.conviction"),
            importance=check_score(p.importance, "patch.importance"),
            intent_id=_opt_uuid(p.intent_id, "patch.intentId"),
            task_id=_opt_uuid(p.task_id, "patch.taskId"),
            meta=_opt_meta(p.meta, "patch.meta", s.max_content_bytes),
        )  # fmt: skip

    # ------------------------------------------------------------------ retract

    async def retract(
        self, item_id: str, author: str, reason: str | None, origin: Origin
    ) -> list[Event]:
        item_id = check_uuid(item_id)
        payload: JSONObject = {"item_id": item_id, "author": check_text(author, "author")}
        if reason is not None:
            payload["reason"] = reason
        event = make_event("memory.retracted", payload, origin, subject=item_id)
        rows = await self.graph.write("item_retract", {"id": item_id, "event": event_props(event)})
        if not rows:
            raise MemoryNotFound(item_id)
        return [event]


def _score(value: float | None, field: str, *, required: bool = False) -> float:
    checked = check_score(value, field, required=required)
    return 0.0 if checked is None else checked


def _opt_text(value: str | None, field: str) -> str | None:
    return None if value is None else check_text(value, field)


def _opt_uuid(value: str | None, field: str) -> str | None:
    return None if value is None else check_uuid(value, field)


def _opt_meta(value: Any, field: str, max_bytes: int) -> JSONObject | None:
    return None if value is None else check_object(value, field, max_bytes=max_bytes)


def _links(items: Sequence[Item]) -> list[dict[str, Any]]:
    return [
        {"child": item.id, "parent": parent, "ord": ord_}
        for item in items
        for ord_, parent in enumerate(item.parents)
    ]


def _merge(current: Item, patch: ItemPatch) -> Item:
    """MemEX update: content and meta merge shallowly, other given fields replace."""
    changes = patch.given()
    if patch.content is not None:
        changes["content"] = {**current.content, **patch.content}
    if patch.meta is not None:
        changes["meta"] = {**(current.meta or {}), **patch.meta}
    if patch.parents is not None:
        changes["parents"] = tuple(patch.parents)
    return replace(current, **changes)


def _partial_json(patch: ItemPatch) -> JSONObject:
    partial = patch.given()
    if "parents" in partial:
        partial["parents"] = list(partial["parents"])
    return partial


def _update_props(current: Item, merged: Item) -> dict[str, Any]:
    """Properties to ``SET +=``: every stored field, with stale meta paths nulled."""
    props = item_props(merged)
    for key in ("id", "created_at", "retracted", "version"):
        props.pop(key)
    for key in flatten_meta(current.meta):
        props.setdefault(key, None)
    return props
