"""Importing a MemEX export slice, as MemEX's ``import_slice`` (docs/memex-reference.md §5.2).

Three stages, so that a bad slice changes nothing:

1. **parse**: the whole slice is checked by the services' own rules into the
   MemEX JSON memexd would store (item ids must be UUIDv7, other ids UUIDs);
   an error names its path, e.g. ``slice.memories[3].id``;
2. **plan**: what the caller can see of the ids the slice names is read, then
   every record is decided in MemEX's order (memories, edges, intents, tasks;
   skip / update / conflict / re-id, the re-id maps made first so that every
   reference is rewritten), and the write grants are checked;
3. **write**: through the normal commands (memories in batches), which
   validate again, apply the grants and log their events.

What memexd cannot do as MemEX does lands in ``conflicts`` (not imported): an
id held by something the caller cannot see (a retracted item, an item or
edge outside its grants), an edge whose ends are not live items the caller
can read once the memories are in, and an in-place update that would change
an edge's ``author`` or ``source_kind``. An import is not one transaction: a
failure while writing leaves what was written, and importing the same slice
again (skipping existing ids) completes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memexd.errors import (
    BadUserInput,
    Duplicate,
    Forbidden,
    InvalidTimestamp,
    MemexError,
    NotFound,
)
from memexd.events.vocabulary import Origin
from memexd.ids import timestamp_ms, uuid7_at
from memexd.intents.records import Record, check_scope, new_data
from memexd.intents.spec import INTENT, TASK
from memexd.memory import validation as check
from memexd.memory.model import EdgePatch, ItemPatch, NewEdge, NewItem
from memexd.memory.records import edge_from_row, edge_json, item_json
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.access.grants import Access
    from memexd.core import Memex

__all__ = ["IdLists", "ImportOptions", "ImportReport", "Importer", "parse_slice"]

#: The kinds of record, in the order an import processes them.
KINDS = ("memories", "edges", "intents", "tasks")


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
class IdLists:
    memories: list[str] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)

    def json(self) -> JSONObject:
        return {"memories": self.memories, "intents": self.intents, "tasks": self.tasks,
                "edges": self.edges}  # fmt: skip


@dataclass(slots=True)
class ImportReport:
    """MemEX's report: ids per outcome and kind, in processing order
    (re-id'd records under their new ids)."""

    created: IdLists = field(default_factory=IdLists)
    updated: IdLists = field(default_factory=IdLists)
    skipped: IdLists = field(default_factory=IdLists)
    conflicts: IdLists = field(default_factory=IdLists)

    def json(self) -> JSONObject:
        return {name: getattr(self, name).json() for name in self.__slots__}


# ---------------------------------------------------------------- parse


@dataclass(frozen=True, slots=True)
class Entry:
    """A slice record: where it is, its id, and its MemEX JSON as memexd stores it."""

    path: str
    id: str
    doc: JSONObject


_ITEM_KEYS = ("id", "scope", "kind", "content", "author", "source_kind", "parents", "authority",
              "conviction", "importance", "created_at", "intent_id", "task_id", "meta")  # fmt: skip
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
    field's MemEX name, where the service said ``sourceKind: …``)."""
    head, sep, rest = exc.message.partition(": ")
    if sep and head.isidentifier():
        return type(exc)(f"{path}.{_SNAKE.get(head, head)}: {rest}")
    return type(exc)(f"{path}: {exc.message}")


def _memory(raw: Mapping[str, Any], limits: check.Limits) -> JSONObject:
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
    fields = {k: raw.get(k) for k in _ITEM_KEYS if k not in ("id", "created_at")}
    return item_json(check.new_item(NewItem(id=item_id, **fields), limits).item)


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


# ---------------------------------------------------------------- plan


@dataclass(slots=True)
class _Step:
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
class _Seen:
    """What the caller can see of the ids a slice names, before any write:
    live records as MemEX JSON, ids held by what it cannot use, scopes."""

    docs: dict[str, dict[str, JSONObject]]
    taken: dict[str, set[str]]
    scopes: dict[str, dict[str, str]]  # intents and tasks
    edge_writable: dict[str, bool]


class _Plan:
    """Decides every record, in MemEX's order, without writing anything."""

    def __init__(self, seen: _Seen, options: ImportOptions, access: Access) -> None:
        self.seen, self.o, self.access = seen, options, access
        self.maps: dict[str, dict[str, str]] = {"memories": {}, "intents": {}, "tasks": {}}
        self.reused: set[tuple[str, str]] = set()
        self.used = {i for ids in (*seen.docs.values(), *seen.taken.values()) for i in ids}

    def decide(self, entries: Mapping[str, list[Entry]]) -> list[_Step]:
        self.used.update(e.id for kind in KINDS for e in entries[kind])
        o = self.o
        if o.skip_existing_ids and o.shallow_compare_existing and o.re_id_on_difference:
            for kind in self.maps:  # every differing record gets its new id first
                for e in entries[kind]:
                    old = self.seen.docs[kind].get(e.id)
                    if old is not None and old != e.doc and e.id not in self.maps[kind]:
                        self.maps[kind][e.id] = self._mint(kind, e)
        return [self._decide(kind, e) for kind in KINDS for e in entries[kind]]

    def _decide(self, kind: str, e: Entry) -> _Step:
        docs, o = self.seen.docs[kind], self.o
        if e.id in self.seen.taken[kind]:
            return _Step(kind, e.id, "conflicts")
        if e.id not in docs:
            return self._create(kind, e, e.id)
        if not o.skip_existing_ids:
            return self._update(kind, e, docs[e.id])
        if o.shallow_compare_existing and docs[e.id] != e.doc:
            if not o.re_id_on_difference:
                return _Step(kind, e.id, "conflicts")
            new_id = self.maps.get(kind, {}).get(e.id)
            if new_id is None or (kind, e.id) in self.reused:  # edges; a second copy
                new_id = self._mint(kind, e)
            self.reused.add((kind, e.id))
            return self._create(kind, e, new_id)
        return _Step(kind, e.id, "skipped")

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

    def _create(self, kind: str, e: Entry, new_id: str) -> _Step:
        doc = self._rewritten(kind, e.doc)
        doc["edge_id" if kind == "edges" else "id"] = new_id
        scope = None
        if kind == "memories":
            self.access.require_write(doc["scope"], field=f"{e.path}.scope")
        elif kind == "edges":
            ends = [self.seen.docs["memories"].get(doc[k]) for k in ("from", "to")]
            if any(end is None for end in ends):  # dangling: memexd cannot store it
                return _Step(kind, e.id, "conflicts")
            if not all(self.access.can_write(end["scope"]) for end in ends if end):
                raise Forbidden(f"{e.path}: {_NO_EDGE_GRANT}")
            self.seen.edge_writable[new_id] = True
        else:
            scope = self._scope(kind, e, doc)
            self.seen.scopes[kind][new_id] = scope
        self.seen.docs[kind][new_id] = doc
        return _Step(kind, new_id, "created", doc, scope)

    def _update(self, kind: str, e: Entry, old: JSONObject) -> _Step:
        """MemEX's update in place (import with ``skip_existing_ids`` false)."""
        if kind == "edges":
            if any(e.doc[k] != old[k] for k in ("author", "source_kind")):
                return _Step(kind, e.id, "conflicts")  # memexd cannot change them
            if not self.seen.edge_writable[e.id]:
                raise Forbidden(f"{e.path}: {_NO_EDGE_GRANT}")
            changes = {k: e.doc[k] for k in _EDGE_PATCH if k in e.doc}
            return _Step(kind, e.id, "updated", {**changes, "author": e.doc["author"]})
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
        return _Step(kind, e.id, "updated", changes)

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


# ---------------------------------------------------------------- write


class Importer:
    """Imports for one caller (the grants of ``memex``)."""

    def __init__(self, memex: Memex) -> None:
        self.memex = memex

    async def slice(self, data: Any, options: ImportOptions, origin: Origin) -> ImportReport:
        """Import ``data`` (MemEX export JSON); nothing is written unless the
        whole slice is valid and the caller may write all it would change."""
        o = _checked(options)
        m = self.memex
        entries = parse_slice(data, m.limits, m.settings.traversal_max_nodes)
        steps = _Plan(await self._seen(entries), o, m.access).decide(entries)
        await self._write(steps, origin)
        report = ImportReport()
        for step in steps:
            getattr(getattr(report, step.bucket), step.kind).append(step.id)
        return report

    async def _seen(self, entries: Mapping[str, list[Entry]]) -> _Seen:
        m = self.memex
        ends = [e.doc[k] for e in entries["edges"] for k in ("from", "to")]
        item_ids = list(dict.fromkeys([*(e.id for e in entries["memories"]), *ends]))
        items = await m.item_reads.fetch(item_ids, include_retracted=True)
        edge_ids = {"ids": list(dict.fromkeys(e.id for e in entries["edges"]))}
        edges = await m.graph.read("edge_get", edge_ids) if edge_ids["ids"] else []
        keys = await m.graph.read("import_edge_keys", edge_ids) if edge_ids["ids"] else []
        named = [
            *(e.id for e in entries["intents"]),
            *(e.doc["intent_id"] for e in entries["tasks"]),
        ]
        plans = {"intents": await m.intent_reads.fetch(named),
                 "tasks": await m.task_reads.fetch([e.id for e in entries["tasks"]])}  # fmt: skip
        visible = {row["edge"]["edge_id"]: row for row in edges}
        return _Seen(
            docs={
                "memories": {i: item_json(item) for i, item in items.items() if not item.retracted},
                "edges": {i: edge_json(edge_from_row(row["edge"])) for i, row in visible.items()},
                **{
                    kind: {i: r.json(_SPEC[kind]) for i, r in found.items()}
                    for kind, found in plans.items()
                },
            },
            taken={
                "memories": {i for i, item in items.items() if item.retracted},
                "edges": {row["edge_id"] for row in keys} - set(visible),
                "intents": set(),
                "tasks": set(),
            },
            scopes={kind: {i: r.scope for i, r in found.items()} for kind, found in plans.items()},
            edge_writable={i: bool(row["writable"]) for i, row in visible.items()},
        )

    async def _write(self, steps: list[_Step], origin: Origin) -> None:
        """Memories created in batches first, then every other write in
        order. One taken meanwhile (or by what the caller cannot see) becomes
        a conflict."""
        created = [s for s in steps if s.kind == "memories" and s.bucket == "created"]
        batch = self.memex.limits.max_batch
        for start in range(0, len(created), batch):
            await self._create_items(created[start : start + batch], origin)
        for step in steps:
            if step.bucket == "updated" or (step.bucket == "created" and step.kind != "memories"):
                try:
                    await self._apply(step, origin)
                except (Duplicate, NotFound):
                    step.bucket = "conflicts"

    async def _create_items(self, steps: list[_Step], origin: Origin) -> None:
        """One batch; when an id is taken, halves until it is found (no
        query tells which id an unreadable item holds)."""
        drafts = [NewItem(**{k: v for k, v in s.doc.items() if k != "created_at"})
                  for s in steps if s.doc is not None]  # fmt: skip
        try:
            await self.memex.items.create(drafts, origin)
        except Duplicate:
            if len(steps) == 1:
                steps[0].bucket = "conflicts"
                return
            half = len(steps) // 2
            await self._create_items(steps[:half], origin)
            await self._create_items(steps[half:], origin)

    async def _apply(self, step: _Step, origin: Origin) -> None:
        m, doc, update = self.memex, dict(step.doc or {}), step.bucket == "updated"
        if step.kind == "memories":
            await m.items.update(step.id, ItemPatch(**doc), doc["author"], None, None, origin)
        elif step.kind == "edges" and update:
            author = doc.pop("author")
            await m.edges.update(step.id, EdgePatch(**doc), author, None, origin)
        elif step.kind == "edges":
            draft = NewEdge(
                from_id=doc["from"], to_id=doc["to"], kind=doc["kind"], author=doc["author"],
                source_kind=doc["source_kind"], authority=doc["authority"],
                edge_id=doc["edge_id"], weight=doc.get("weight"), active=doc["active"],
                meta=doc.get("meta"),
            )  # fmt: skip
            await m.edges.create(draft, origin)
        else:
            service = m.intents if step.kind == "intents" else m.tasks
            if update:
                await service.update(step.id, doc, origin, faithful=True)
            else:
                await service.create(doc, step.scope, origin, faithful=True)


_SPEC = {"intents": INTENT, "tasks": TASK}


def _checked(o: ImportOptions) -> ImportOptions:
    for name in ("skip_existing_ids", "shallow_compare_existing", "re_id_on_difference"):
        if not isinstance(getattr(o, name), bool):
            raise BadUserInput("must be true or false", field=name)
    scope = None if o.scope is None else check_scope(o.scope)
    return ImportOptions(o.skip_existing_ids, o.shallow_compare_existing,
                         o.re_id_on_difference, scope)  # fmt: skip
