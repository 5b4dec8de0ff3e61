"""A batch of new items as ``cypher/item_create.cypher`` takes it: the node
properties (with what each keeps of its memory.created event), the links
they make.

Every path that creates items (``createItems``, ``POST /items``, ``memexd
import``, ``memexd replay``) builds its batches here, so they write the same
nodes and the same events. Built for thousands of items a second: an item's
memory.created event is not a node of its own while the item is as created
(the node is the record: docs/events.md, "Storage"), so a batch writes only
its items, and the :class:`~memexd.events.vocabulary.Event` records a caller
may want back are made only if it looks at them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from memexd.errors import DuplicateMemory
from memexd.events import vocabulary as ev
from memexd.events.lazy import LazyEvents
from memexd.events.vocabulary import Event, Origin
from memexd.ids import id_key
from memexd.memory.indexed import INDEXED_META
from memexd.memory.lifecycle import NAMESPACE, SESSION_KEY
from memexd.memory.meta import path_keys
from memexd.memory.model import Item
from memexd.memory.records import ITEM_COLUMNS, item_row
from memexd.memory.validation import ValidItem
from memexd.memory.working import NO_EVICTION, Pair

__all__ = ["COLUMNS", "BatchBuilder", "CreatedEvents", "Prepared", "creation_time"]

#: The indexed meta keys, as node properties.
META_COLUMNS = tuple(sorted(path_keys(key)[0] for key in INDEXED_META))
#: The node properties a batch passes by position (``cypher/item_create``
#: reads ``$rows[i][k]`` as ``COLUMNS[k]``): the item's own, what it keeps
#: of its event, and the indexed meta keys. The rest (other flattened meta)
#: go as one map per item, ``$extras``. Positional rows are a list of plain
#: values, which the FalkorDB wire encodes in one call instead of one per
#: value, and which the statement sets from a map written in it, without
#: looking each key up per row (measured: 2.8 ms per 1,000 items for four
#: meta keys in ``$extras``). Last, the id key (``memexd.ids.id_key``).
COLUMNS = (*ITEM_COLUMNS, *ev.CREATION_MARKS, *META_COLUMNS, "id_key")


def creation_time(v: ValidItem, now_ms: int) -> int:
    """When ``v``'s memory.created event happened: the command's time, which
    for an id minted by the command is the id's own time."""
    return v.item.created_at if v.minted else now_ms


class CreatedEvents(LazyEvents):
    """A batch's memory.created events as records, made on first look (a
    batch of thousands rarely has them read back)."""

    def __init__(self, valid: list[ValidItem], times: list[int], origin: Origin):
        self._valid, self._times, self.origin = valid, times, origin
        #: Events of the same write after the creations (working memory's
        #: archivals), known once it is written.
        self.after: list[Event] = []

    def _make(self) -> list[Event]:
        return [
            ev.memory_created(v.item, self.origin, v.content_json, v.meta_json, ts=ts)
            for v, ts in zip(self._valid, self._times, strict=True)
        ] + self.after

    def __len__(self) -> int:
        return len(self._valid) + len(self.after)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A checked batch, ready to write: its items, their events and the
    statement's parameters (built once; a retry sends them again)."""

    items: list[Item]
    events: CreatedEvents
    params: dict[str, Any]
    #: How many SESSION items with a session id it brings to each (scope,
    #: session): what a working-memory capacity weighs (memexd.memory.working).
    sessions: dict[Pair, int]

    @property
    def ids(self) -> list[str]:
        ids: list[str] = self.params["ids"]
        return ids


class BatchBuilder:
    """Builds a :class:`Prepared` batch one validated item at a time, so that
    bulk paths can yield to the event loop between items (the engine writes
    the previous batch meanwhile). Grants are the caller's to check."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self.valid: list[ValidItem] = []
        self.rows: list[list[Any]] = []
        self.extras: list[dict[str, Any]] = []
        self.times: list[int] = []
        self.links: list[dict[str, Any]] = []
        self.intent_links: list[dict[str, str]] = []
        self.task_links: list[dict[str, str]] = []
        self.seen: set[str] = set()
        self.repeated: set[str] = set()
        self.sessions: dict[Pair, int] = {}

    def __len__(self) -> int:
        return len(self.valid)

    def add(self, v: ValidItem) -> None:
        item = v.item
        if item.id in self.seen:
            self.repeated.add(item.id)
        self.seen.add(item.id)
        self.valid.append(v)
        ts = creation_time(v, time.time_ns() // 1_000_000)
        row, meta = item_row(item, v.content_json, v.meta_json)
        row += ev.creation_marks(item, self.origin, ts)
        row += [meta.pop(column, None) for column in META_COLUMNS]
        row.append(id_key(item.id))
        self.rows.append(row)
        self.extras.append(meta)
        self.times.append(ts)
        if item.parents:
            self.links.extend(links(item, len(self.rows) - 1))
        if item.intent_id is not None:
            self.intent_links.append({"item": item.id, "plan": item.intent_id})
        if item.task_id is not None:
            self.task_links.append({"item": item.id, "plan": item.task_id})
        pair = session_pair(item)
        if pair is not None:
            self.sessions[pair] = self.sessions.get(pair, 0) + 1

    def build(self) -> Prepared:
        """The batch; ``DUPLICATE_MEMORY`` when an id repeats in it."""
        if self.repeated:
            raise DuplicateMemory(sorted(self.repeated))
        items = [v.item for v in self.valid]
        params = {
            "ids": [item.id for item in items],
            "rows": self.rows,
            "extras": self.extras,
            "links": self.links,
            "parent_ids": sorted({link["parent"] for link in self.links}),
            "intent_links": self.intent_links,
            "task_links": self.task_links,
            **NO_EVICTION,
        }
        events = CreatedEvents(self.valid, self.times, self.origin)
        return Prepared(items, events, params, self.sessions)


def session_pair(item: Item) -> Pair | None:
    """The (scope, session) whose working memory a new item enters: a
    SESSION item's with a session id; none for others."""
    meta = item.meta
    if not meta or meta.get(SESSION_KEY) is None:
        return None
    if (meta.get(NAMESPACE) or {}).get("lifecycle") != "SESSION":
        return None
    return (item.scope, str(meta[SESSION_KEY]))


def links(item: Item, row: int | None = None) -> list[dict[str, Any]]:
    """The item's PARENT links, in its parents' order; ``row``: the item's
    place in its batch, by which ``item_create`` finds the child."""
    at = {} if row is None else {"row": row}
    return [{"parent": parent, "ord": ord_, **at} for ord_, parent in enumerate(item.parents or ())]
