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

from memexd.errors import BadUserInput, Duplicate, NotFound
from memexd.events.vocabulary import Origin
from memexd.intents.records import check_scope
from memexd.intents.spec import INTENT, TASK
from memexd.memory.model import EdgePatch, ItemPatch, NewEdge, NewItem
from memexd.memory.records import edge_from_row, edge_json, item_json
from memexd.types import JSONObject

if TYPE_CHECKING:
    from memexd.core import Memex

from memexd.transplant.slice_parse import Entry, parse_slice
from memexd.transplant.slice_plan import ImportOptions, Plan, Seen, Step

__all__ = ["IdLists", "ImportOptions", "ImportReport", "Importer", "parse_slice"]


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
        steps = Plan(await self._seen(entries), o, m.access).decide(entries)
        await self._write(steps, origin)
        report = ImportReport()
        for step in steps:
            getattr(getattr(report, step.bucket), step.kind).append(step.id)
        return report

    async def _seen(self, entries: Mapping[str, list[Entry]]) -> Seen:
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
        return Seen(
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

    async def _write(self, steps: list[Step], origin: Origin) -> None:
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

    async def _create_items(self, steps: list[Step], origin: Origin) -> None:
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

    async def _apply(self, step: Step, origin: Origin) -> None:
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
