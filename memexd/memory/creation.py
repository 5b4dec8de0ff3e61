"""A batch of new items as ``cypher/item_create.cypher`` takes it: the node
properties, one memory.created event each, the links they make.

Every path that creates items (``createItems``, ``POST /items``, ``memexd
import``, ``memexd replay``) builds its batches here, so they write the same
nodes and the same events. Built for thousands of items a second: each
event's stored properties are made straight from the validated item, the
payload from the item's JSON text (content and meta serialised once, at
validation), and the :class:`~memexd.events.vocabulary.Event` records a
caller may want back are made only if it looks at them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

from memexd.errors import DuplicateMemory
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin
from memexd.ids import new_id
from memexd.memory.model import Item
from memexd.memory.records import item_json, item_json_text, item_props
from memexd.memory.validation import ValidItem

__all__ = ["BatchBuilder", "CreatedEvents", "Prepared", "created_event"]


def created_event(v: ValidItem, origin: Origin, event_id: str, ts: int) -> dict[str, Any]:
    """The stored properties of ``v``'s memory.created event, from the texts
    validation already serialised (:func:`~memexd.events.vocabulary.memory_created_props`)."""
    text = item_json_text(item_json(v.item), v.content_json, v.meta_json)
    return ev.memory_created_props(v.item, origin, text, event_id=event_id, ts=ts)


class CreatedEvents(Sequence[Event]):
    """A batch's memory.created events as records, made on first look (a
    batch of thousands rarely has them read back)."""

    def __init__(self, valid: list[ValidItem], logged: list[dict[str, Any]], origin: Origin):
        self._valid, self._logged, self._origin = valid, logged, origin
        self._made: list[Event] | None = None

    def _all(self) -> list[Event]:
        if self._made is None:
            self._made = [
                replace(ev.memory_created(v.item, self._origin, v.content_json, v.meta_json),
                        id=props["id"], ts=props["ts"])
                for v, props in zip(self._valid, self._logged, strict=True)
            ]  # fmt: skip
        return self._made

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._valid)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())


@dataclass(frozen=True, slots=True)
class Prepared:
    """A checked batch, ready to write: its items, their events and the
    statement's parameters (built once; a retry sends them again)."""

    items: list[Item]
    events: CreatedEvents
    params: dict[str, Any]

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
        self.rows: list[dict[str, Any]] = []
        self.logged: list[dict[str, Any]] = []
        self.links: list[dict[str, Any]] = []
        self.intent_links: list[dict[str, str]] = []
        self.task_links: list[dict[str, str]] = []
        self.seen: set[str] = set()
        self.repeated: set[str] = set()

    def __len__(self) -> int:
        return len(self.valid)

    def add(self, v: ValidItem) -> None:
        item = v.item
        if item.id in self.seen:
            self.repeated.add(item.id)
        self.seen.add(item.id)
        self.valid.append(v)
        self.rows.append(item_props(item, v.content_json, v.meta_json))
        self.logged.append(created_event(v, self.origin, new_id(), time.time_ns() // 1_000_000))
        if item.parents:
            self.links.extend(links(item))
        if item.intent_id is not None:
            self.intent_links.append({"item": item.id, "plan": item.intent_id})
        if item.task_id is not None:
            self.task_links.append({"item": item.id, "plan": item.task_id})

    def build(self) -> Prepared:
        """The batch; ``DUPLICATE_MEMORY`` when an id repeats in it."""
        if self.repeated:
            raise DuplicateMemory(sorted(self.repeated))
        items = [v.item for v in self.valid]
        params = {
            "ids": [item.id for item in items],
            "rows": self.rows,
            "events": self.logged,
            "links": self.links,
            "parent_ids": sorted({link["parent"] for link in self.links}),
            "intent_links": self.intent_links,
            "task_links": self.task_links,
        }
        return Prepared(items, CreatedEvents(self.valid, self.logged, self.origin), params)


def links(item: Item) -> Sequence[dict[str, Any]]:
    """The item's PARENT links, in its parents' order."""
    return [
        {"child": item.id, "parent": parent, "ord": ord_}
        for ord_, parent in enumerate(item.parents or ())
    ]
