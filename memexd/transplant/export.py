"""Exporting as MemEX export JSON: a slice walked from anchors, or everything.

A slice follows MemEX's ``export_slice`` (docs/memex-reference.md §5.1) step
by step: parents up from the anchors, children down from the whole set,
active ALIAS edges both ways, then every edge with both ends in the set,
related intents, related tasks, and the intents and tasks asked for by id.
Every step is Cypher over the caller's grants; the walks go frontier by
frontier (``memexd.integrity.traversal``, linear in what they reach).

The set only ever holds live items the caller can read. An id that names
nothing the caller may see (missing, retracted or outside its grants, which
memexd does not tell apart) is dropped where it is met, so nothing is walked
from it or related through it; MemEX keeps missing ids in its set.

Records are each shape's one definition (``item_json``, ``edge_json``,
``Record.json``), in a fixed order: memories by creation time then id, edges,
intents and tasks by id (for UUIDv7 ids, creation order). MemEX's own order
is its hash order, so any order is compatible.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memexd.errors import BadUserInput, ResourceExhausted
from memexd.integrity.traversal import Walk, walk
from memexd.intents.records import Record, record_from_row
from memexd.intents.spec import INTENT, TASK
from memexd.memory.model import Edge, Item
from memexd.memory.records import edge_from_row, edge_json, item_from_row, item_json
from memexd.memory.validation import check_ids, check_limit
from memexd.types import JSONObject, Row

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = ["KEYS", "ExportOptions", "Exporter", "empty_slice"]

#: The keys of MemEX's export, in its order; all four are always present.
KEYS = ("memories", "edges", "intents", "tasks")


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """MemEX's ``ExportOptions``: anchors by id, and what to walk from them."""

    memory_ids: Sequence[str] | None = None
    intent_ids: Sequence[str] | None = None
    task_ids: Sequence[str] | None = None
    include_parents: bool = False
    include_children: bool = False
    include_aliases: bool = False
    include_related_tasks: bool = False
    include_related_intents: bool = False


def empty_slice() -> JSONObject:
    return {key: [] for key in KEYS}


class Exporter:
    """Exports for one caller (the grants of ``memex``)."""

    def __init__(self, memex: Memex) -> None:
        self.memex = memex
        self.graph = memex.graph
        #: the most records one slice may hold (and edges one may read)
        self.max_records = memex.settings.traversal_max_nodes

    async def slice(self, options: ExportOptions) -> JSONObject:
        """The slice ``options`` describe; ``RESOURCE_EXHAUSTED`` past the limits."""
        o = _checked(options, self.memex.limits.max_list)
        items = await self._memories(o)
        edges = await self._edges(items)
        intents = await self._intents(o, items)
        tasks = await self._tasks(o, items, intents)
        self._bound(len(items) + len(edges) + len(intents) + len(tasks))
        return {
            "memories": [item_json(i) for i in sorted(items.values(), key=_creation)],
            "edges": [edge_json(e) for e in sorted(edges, key=lambda e: e.edge_id)],
            "intents": [intents[k].json(INTENT) for k in sorted(intents)],
            "tasks": [tasks[k].json(TASK) for k in sorted(tasks)],
        }

    async def _memories(self, o: ExportOptions) -> dict[str, Item]:
        """Steps 1-3: the anchors, then each walk from the whole set so far."""
        ids = list(dict.fromkeys(o.memory_ids or ()))
        walks = [how for how, on in ((Walk.PARENTS, o.include_parents),
                                     (Walk.CHILDREN, o.include_children),
                                     (Walk.ALIASES, o.include_aliases)) if on]  # fmt: skip
        if ids and walks:
            async with self.memex.walk_slots:
                for how in walks:
                    ids = await self._walk(ids, how)
        items = await self.memex.item_reads.fetch(ids)
        self._bound(len(items))
        return items

    async def _walk(self, ids: list[str], how: Walk) -> list[str]:
        """The live readable items among ``ids`` and all they reach."""
        settings = self.memex.settings
        reach = await walk(self.graph, ids, how, max_depth=settings.traversal_max_depth,
                           max_nodes=self.max_records, steps=False)  # fmt: skip
        if reach.truncated:
            raise ResourceExhausted(
                f"the export's walk goes past the traversal limits (depth "
                f"{settings.traversal_max_depth}, {self.max_records} items); export smaller slices"
            )
        return list(reach.depth)

    async def _edges(self, items: Mapping[str, Item]) -> list[Edge]:
        """Step 4: every live edge, active or not, with both ends in the set."""
        if not items:
            return []
        rows = await self.graph.read("export_edges", {"ids": list(items),
                                                      "limit": self.max_records + 1})  # fmt: skip
        if len(rows) > self.max_records:
            raise ResourceExhausted(
                f"the exported memories have more than {self.max_records} outgoing edges "
                "(MEMEXD_TRAVERSAL_MAX_NODES); export smaller slices"
            )
        edges = (edge_from_row(row["edge"]) for row in rows)
        return [e for e in edges if e.to_id in items]

    async def _intents(self, o: ExportOptions, items: Mapping[str, Item]) -> dict[str, Record]:
        """Steps 5 and 7: intents rooted in the set and those the memories
        name, then the ones asked for (readable ones only)."""
        ids = dict.fromkeys(o.intent_ids or ())
        if o.include_related_intents and items:
            rows = await self.graph.read("export_intents_rooted", {"ids": list(items)})
            ids.update(_ids(rows))
            ids.update(dict.fromkeys(i.intent_id for i in items.values() if i.intent_id))
        return await self.memex.intent_reads.fetch(list(ids))

    async def _tasks(
        self, o: ExportOptions, items: Mapping[str, Item], intents: Mapping[str, Record]
    ) -> dict[str, Record]:
        """Steps 6 and 7: tasks of the exported intents, tasks that read or
        wrote a memory of the set and those the memories name, then the ones
        asked for."""
        ids = dict.fromkeys(o.task_ids or ())
        if o.include_related_tasks:
            of_intents = await self.memex.task_reads.tasks_of(list(intents))
            ids.update(dict.fromkeys(r.id for records in of_intents.values() for r in records))
            if items:
                rows = await self.graph.read("export_tasks_linked", {"ids": list(items)})
                ids.update(_ids(rows))
                ids.update(dict.fromkeys(i.task_id for i in items.values() if i.task_id))
        return await self.memex.task_reads.fetch(list(ids))

    def _bound(self, records: int) -> None:
        if records > self.max_records:
            raise ResourceExhausted(
                f"the export holds more than {self.max_records} records "
                "(MEMEXD_TRAVERSAL_MAX_NODES); export smaller slices"
            )

    async def everything(self, page: int) -> AsyncIterator[JSONObject]:
        """The whole readable graph as export slices of at most ``page``
        records each: memories, then edges, intents and tasks, each kind in
        id order, one page per round trip (bounded memory for any size). The
        pages are not one snapshot: writes made meanwhile may be missed."""
        size = check_limit(page, "page", maximum=self.memex.limits.max_page)
        if size < 1:
            raise BadUserInput("must be at least 1", field="page")
        for key, name, slots in _PAGES:
            after = ""
            while True:
                rows = await self.graph.read(name, {"after": after, "limit": size}, **slots)
                if not rows:
                    break
                records, after = _page(key, rows)
                yield {**empty_slice(), key: records}
                if len(rows) < size:
                    break


#: The whole export's pages: the slice key, the query and its slots.
_PAGES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("memories", "export_page_items", {}),
    ("edges", "export_page_edges", {}),
    ("intents", "export_page_plans", {"label": INTENT.label}),
    ("tasks", "export_page_plans", {"label": TASK.label}),
)


def _page(key: str, rows: list[Row]) -> tuple[list[JSONObject], str]:
    """One page's records and the cursor after it."""
    if key == "memories":
        items = [item_from_row(row["item"]) for row in rows]
        return [item_json(i) for i in items], items[-1].id
    if key == "edges":
        edges = [edge_from_row(row["edge"]) for row in rows]
        return [edge_json(e) for e in edges], edges[-1].edge_id
    kind = INTENT if key == "intents" else TASK
    records = [record_from_row(kind, row["record"]) for row in rows]
    return [r.json(kind) for r in records], records[-1].id


def _checked(o: ExportOptions, max_list: int) -> ExportOptions:
    """The options with their id lists checked (UUIDs, at most ``max_list``
    each) and canonical, and the flags true or false."""
    for name in ("include_parents", "include_children", "include_aliases",
                 "include_related_tasks", "include_related_intents"):  # fmt: skip
        if not isinstance(getattr(o, name), bool):
            raise BadUserInput("must be true or false", field=_camel(name))
    return replace(
        o,
        memory_ids=_id_list(o.memory_ids, "memoryIds", max_list),
        intent_ids=_id_list(o.intent_ids, "intentIds", max_list),
        task_ids=_id_list(o.task_ids, "taskIds", max_list),
    )


def _id_list(values: Any, field: str, max_list: int) -> list[str]:
    return [] if values is None else check_ids(values, field, max_len=max_list)


def _camel(name: str) -> str:
    """The GraphQL name of an option (``memory_ids`` → ``memoryIds``)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _ids(rows: Iterable[Row]) -> dict[str, None]:
    return dict.fromkeys(str(row["id"]) for row in rows)


def _creation(item: Item) -> tuple[int, str]:
    return item.created_at, item.id
