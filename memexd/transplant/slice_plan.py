"""Deciding an import: every record of a checked slice, in MemEX's order
(memories, edges, intents, tasks): skip / update / conflict / re-id, with the
re-id maps made first so every reference is rewritten, and the write grants
checked, before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memexd.errors import BadUserInput, Forbidden, InvalidTimestamp
from memexd.ids import timestamp_ms, uuid7_at
from memexd.memory import validation as check
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.access.grants import Access

from memexd.transplant.slice_parse import KINDS, Entry

__all__ = ["ImportOptions", "Plan", "Seen", "Step"]


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """MemEX's import options (its defaults), and the scope memexd gives the
    intents and tasks it creates (a slice has none for them; ``None``: the
    rule of ``createIntent`` / ``createTask``)."""

    skip_existing_ids: bool = True
    shallow_compare_existing: bool = False
    re_id_on_difference: bool = False
    scope: str | None = None


@dataclass(slots=True)
class Step:
    """One record's outcome and, when it is written, what to write: the
    record (created) or the changes (updated)."""

    kind: str
    id: str
    bucket: str  # created, updated, skipped or conflicts
    doc: JSONObject | None = None
    scope: str | None = None  # a created intent's or task's


#: The fields that name other records, and the kind they name.
_REFS = {
    "memories": {"parents": "memories", "intent_id": "intents", "task_id": "tasks"},
    "edges": {"from": "memories", "to": "memories"},
    "intents": {"parent_id": "intents", "root_memory_ids": "memories"},
    "tasks": {"intent_id": "intents", "parent_id": "tasks", "input_memory_ids": "memories",
              "output_memory_ids": "memories"},
}  # fmt: skip
#: What MemEX's in-place update always sets (``None``: clears) on intents and tasks.
_ALWAYS = {
    "intents": ("parent_id", "root_memory_ids"),
    "tasks": ("intent_id", "parent_id", "input_memory_ids", "output_memory_ids"),
}
_EDGE_PATCH = ("kind", "weight", "authority", "active", "meta")
_NO_EDGE_GRANT = "creating an edge needs a write grant on the scopes of both its ends"


@dataclass(slots=True)
class Seen:
    """What the caller can see of the ids a slice names, before any write:
    live records as MemEX JSON, ids held by what it cannot use, scopes."""

    docs: dict[str, dict[str, JSONObject]]
    taken: dict[str, set[str]]
    scopes: dict[str, dict[str, str]]  # intents and tasks
    edge_writable: dict[str, bool]


class Plan:
    """Decides every record, in MemEX's order, without writing anything."""

    def __init__(self, seen: Seen, options: ImportOptions, access: Access) -> None:
        self.seen, self.o, self.access = seen, options, access
        self.maps: dict[str, dict[str, str]] = {"memories": {}, "intents": {}, "tasks": {}}
        self.reused: set[tuple[str, str]] = set()
        self.used = {i for ids in (*seen.docs.values(), *seen.taken.values()) for i in ids}

    def decide(self, entries: Mapping[str, list[Entry]]) -> list[Step]:
        self.used.update(e.id for kind in KINDS for e in entries[kind])
        o = self.o
        if o.skip_existing_ids and o.shallow_compare_existing and o.re_id_on_difference:
            for kind in self.maps:  # every differing record gets its new id first
                for e in entries[kind]:
                    old = self.seen.docs[kind].get(e.id)
                    if old is not None and old != e.doc and e.id not in self.maps[kind]:
                        self.maps[kind][e.id] = self._mint(kind, e)
        return [self._decide(kind, e) for kind in KINDS for e in entries[kind]]

    def _decide(self, kind: str, e: Entry) -> Step:
        docs, o = self.seen.docs[kind], self.o
        if e.id in self.seen.taken[kind]:
            return Step(kind, e.id, "conflicts")
        if e.id not in docs:
            return self._create(kind, e, e.id)
        if not o.skip_existing_ids:
            return self._update(kind, e, docs[e.id])
        if o.shallow_compare_existing and docs[e.id] != e.doc:
            if not o.re_id_on_difference:
                return Step(kind, e.id, "conflicts")
            new_id = self.maps.get(kind, {}).get(e.id)
            if new_id is None or (kind, e.id) in self.reused:  # edges; a second copy
                new_id = self._mint(kind, e)
            self.reused.add((kind, e.id))
            return self._create(kind, e, new_id)
        return Step(kind, e.id, "skipped")

    def _mint(self, kind: str, e: Entry) -> str:
        """MemEX's re-id: the first free UUIDv7 1 ms after the record's time."""
        try:
            ms = timestamp_ms(check.check_uuid7(e.id)) + 1
        except (BadUserInput, InvalidTimestamp):
            raise InvalidTimestamp(f"{e.path}: cannot re-id {e.id}: it is not a UUIDv7, so "
                                   "it carries no time to add 1 ms to") from None  # fmt: skip
        new_id = uuid7_at(ms)
        while new_id in self.used:
            ms += 1
            new_id = uuid7_at(ms)
        self.used.add(new_id)
        return new_id

    def _rewritten(self, kind: str, doc: JSONObject) -> JSONObject:
        """The record with every reference to a re-id'd record following it."""
        out = dict(doc)
        for name, target in _REFS[kind].items():
            value, ids = out.get(name), self.maps[target]
            if isinstance(value, list):
                out[name] = [ids.get(v, v) for v in value]
            elif value is not None:
                out[name] = ids.get(value, value)
        return out

    def _create(self, kind: str, e: Entry, new_id: str) -> Step:
        doc = self._rewritten(kind, e.doc)
        doc["edge_id" if kind == "edges" else "id"] = new_id
        scope = None
        if kind == "memories":
            self.access.require_write(doc["scope"], field=f"{e.path}.scope")
        elif kind == "edges":
            ends = [self.seen.docs["memories"].get(doc[k]) for k in ("from", "to")]
            if any(end is None for end in ends):  # dangling: memexd cannot store it
                return Step(kind, e.id, "conflicts")
            if not all(self.access.can_write(end["scope"]) for end in ends if end):
                raise Forbidden(f"{e.path}: {_NO_EDGE_GRANT}")
            self.seen.edge_writable[new_id] = True
        else:
            scope = self._scope(kind, e, doc)
            self.seen.scopes[kind][new_id] = scope
        self.seen.docs[kind][new_id] = doc
        return Step(kind, new_id, "created", doc, scope)

    def _update(self, kind: str, e: Entry, old: JSONObject) -> Step:
        """MemEX's update in place (import with ``skip_existing_ids`` false)."""
        if kind == "edges":
            if any(e.doc[k] != old[k] for k in ("author", "source_kind")):
                return Step(kind, e.id, "conflicts")  # memexd cannot change them
            if not self.seen.edge_writable[e.id]:
                raise Forbidden(f"{e.path}: {_NO_EDGE_GRANT}")
            changes = {k: e.doc[k] for k in _EDGE_PATCH if k in e.doc}
            return Step(kind, e.id, "updated", {**changes, "author": e.doc["author"]})
        changes = self._rewritten(kind, e.doc)
        if kind == "memories":
            changes.pop("created_at")
            for name in ("intent_id", "task_id"):  # MemEX's second pass
                mapped = self.maps[_REFS[kind][name]].get(old.get(name, ""))
                if name not in changes and mapped is not None:
                    changes[name] = mapped
            self.access.require_write(old["scope"], changes["scope"], field=f"{e.path}.scope")
            self.seen.docs[kind][e.id] = {**old, "scope": changes["scope"]}
        else:
            changes.pop("status")
            changes.update({name: changes.get(name) for name in _ALWAYS[kind]})
            self.access.require_write(self.seen.scopes[kind][e.id], field=e.path)
        changes.pop("id")
        return Step(kind, e.id, "updated", changes)

    def _scope(self, kind: str, e: Entry, doc: JSONObject) -> str:
        """A created intent's or task's scope: the option, else (a task) its
        intent's, else the caller's only write prefix, as ``createTask`` has it."""
        scope = self.o.scope
        if scope is None and kind == "tasks":
            scope = self.seen.scopes["intents"].get(doc["intent_id"])
        if scope is None:
            prefixes = self.access.write
            if len(prefixes) != 1:
                raise BadUserInput(f"give the import a scope for its intents and tasks: your "
                                   f"grants let you write to {len(prefixes)} scope prefixes",
                                   field=e.path)  # fmt: skip
            scope = prefixes[0]
        self.access.require_write(scope, field=e.path)
        return scope
