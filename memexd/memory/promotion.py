"""Promotion (SPEC §11): what a session or a task learned becomes project
knowledge.

``promoteItem`` creates a new ``PROJECT`` item holding the source's content
(same scope, kind, scores and priority; its tags plus the taxonomy tag; no
session, intent or task: it outlives them), with the source as its parent
and a ``DISCOVERED_FROM`` edge to it, in one statement at the source's
version. ``promoteFromTask`` promotes every live ``summary`` item of a task
in one statement. A source is promoted once: promoting it again returns the
live promotion it has, writing nothing, so a task can be promoted again as
it gains summaries. Retracted and archived sources are refused; dry runs
write nothing and return the promotions without the new items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput, InvalidTransition, MemoryNotFound, TaskNotFound
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Origin, event_props
from memexd.graph import Graph
from memexd.intents.reads import PlanReads
from memexd.memory import lifecycle
from memexd.memory.edges import edge_key
from memexd.memory.filters import MemoryFilter
from memexd.memory.items import ItemCommands
from memexd.memory.model import Edge, Item, NewEdge, NewItem
from memexd.memory.reads import ItemReads
from memexd.memory.records import edge_from_row, edge_props, item_from_row
from memexd.memory.validation import (
    Limits,
    ValidItem,
    check_flag,
    check_text,
    check_uuid,
    new_edge,
    new_item,
)

__all__ = ["EDGE_KIND", "PROMOTION_TAGS", "Promoted", "Promotion"]

#: The edge from a promoted item to its source.
EDGE_KIND = "DISCOVERED_FROM"
#: The taxonomy of project knowledge (seed 000), each a tag.
PROMOTION_TAGS = ("decision", "convention", "pattern", "pitfall", "interface", "invariant", "faq")
#: What promoteFromTask promotes.
SUMMARY = "summary"


@dataclass(frozen=True, slots=True)
class Promoted:
    """One promotion: the source, and (unless a dry run) the new item and edge."""

    source: Item
    item: Item | None
    edge: Edge | None
    dry_run: bool


class Promotion:
    def __init__(
        self, graph: Graph, limits: Limits, items: ItemCommands, reads: ItemReads,
        tasks: PlanReads,
    ) -> None:  # fmt: skip
        self.graph, self.limits = graph, limits
        self.items, self.reads, self.tasks = items, reads, tasks

    async def item(self, item_id: Any, tag: Any, author: Any, dry_run: Any,
                   origin: Origin) -> Promoted:  # fmt: skip
        source_id = check_uuid(item_id)
        done = await self._promote(lambda: self._sources([source_id]), tag, author, dry_run,
                                   origin)  # fmt: skip
        return done[0]

    async def from_task(self, task_id: Any, tag: Any, author: Any, dry_run: Any,
                        origin: Origin) -> list[Promoted]:  # fmt: skip
        """Every live summary of the task, oldest first (at most
        ``MEMEXD_MAX_BATCH``; more is refused)."""
        task = check_uuid(task_id, "taskId")
        if await self.tasks.get(task) is None:
            raise TaskNotFound(task)
        return await self._promote(lambda: self._summaries(task), tag, author, dry_run, origin)

    async def _promote(self, read: Any, tag: Any, author: Any, dry_run: Any,
                       origin: Origin) -> list[Promoted]:  # fmt: skip
        tagged, who, dry = _tag(tag), check_text(author, "author"), check_flag(dry_run, "dryRun")

        async def attempt() -> list[Promoted] | None:
            sources: list[tuple[Item, int]] = await read()
            done = await self._existing([s.id for s, _ in sources])
            fresh = [(s, v) for s, v in sources if s.id not in done]
            drafts = [self._draft(s, tagged, who) for s, _ in fresh]
            if not dry and fresh and not await self._write(fresh, drafts, origin):
                return None
            made = {s.id: d for (s, _), d in zip(fresh, drafts, strict=True)}
            return [replace(done[s.id], dry_run=dry) if s.id in done
                    else _result(s, made[s.id], dry) for s, _ in sources]  # fmt: skip

        return await compare_and_set(attempt, "promotion")

    async def _sources(self, ids: list[str]) -> list[tuple[Item, int]]:
        rows = await self.graph.read("item_get", {"ids": ids, "include_retracted": True})
        found = {r["item"]["id"]: (item_from_row(r["item"]), int(r["item"]["version"]))
                 for r in rows}  # fmt: skip
        for item_id in ids:
            if item_id not in found:
                raise MemoryNotFound(item_id)
            _promotable(found[item_id][0])
        return [found[i] for i in ids]

    async def _summaries(self, task: str) -> list[tuple[Item, int]]:
        cap = self.limits.max_batch
        flt = MemoryFilter(task_id=task, kind=SUMMARY)
        items = await self.reads.find(flt, limit=min(cap + 1, self.limits.max_page))
        if len(items) > cap:
            raise BadUserInput(f"the task has more than {cap} summaries", field="taskId")
        ordered = sorted(items, key=lambda i: (i.created_at, i.id))
        return await self._sources([i.id for i in ordered]) if ordered else []

    async def _existing(self, ids: list[str]) -> dict[str, Promoted]:
        """The live promotions the sources already have, by source id."""
        if not ids:
            return {}
        rows = await self.graph.read("promotion_find", {"ids": ids})
        sources = await self.reads.fetch(ids)
        return {r["source"]: Promoted(sources[r["source"]], item_from_row(r["item"]),
                                      edge_from_row(r["edge"]), False)
                for r in rows if r["source"] in sources}  # fmt: skip

    def _draft(self, source: Item, tag: str, author: str) -> tuple[ValidItem, Edge]:
        """The promoted item (validated) and its edge, for a source."""
        tiers = lifecycle.tiering(source.meta)
        meta = {k: v for k, v in (source.meta or {}).items()
                if k not in (lifecycle.NAMESPACE, lifecycle.SESSION_KEY)}  # fmt: skip
        valid = new_item(NewItem(
            scope=source.scope, kind=source.kind, content=source.content, author=author,
            source_kind=source.source_kind, authority=source.authority, parents=[source.id],
            conviction=source.conviction, importance=source.importance, meta=meta or None,
            lifecycle="PROJECT", priority=tiers.priority,
            tags=sorted({*tiers.tags, tag}),
        ), self.limits)  # fmt: skip
        edge = new_edge(NewEdge(
            from_id=valid.item.id, to_id=source.id, kind=EDGE_KIND, author=author,
            source_kind="promotion", authority=source.authority,
        ), self.limits)  # fmt: skip
        self.graph.access.require_write(source.scope)
        return valid, edge

    async def _write(
        self, sources: Sequence[tuple[Item, int]], drafts: list[tuple[ValidItem, Edge]],
        origin: Origin,
    ) -> bool:  # fmt: skip
        batch = self.items.prepare([v for v, _ in drafts], origin)
        edges = [e for _, e in drafts]
        params = {
            "ids": batch.ids, "rows": batch.params["rows"], "extras": batch.params["extras"],
            "sources": [{"id": s.id, "version": v} for s, v in sources],
            "edges": [{"props": edge_props(e), "key": edge_key(e)} for e in edges],
            "events": [event_props(ev.edge_created(e, origin, scopes=(s.scope, s.scope)))
                       for e, (s, _) in zip(edges, sources, strict=True)],
        }  # fmt: skip
        rows = await self.graph.write("item_promote", params)
        # the statement counts what it made: none when its guard found the
        # state changed since the read
        return bool(rows) and int(rows[0]["created"]) == len(sources)


def _result(source: Item, draft: tuple[ValidItem, Edge], dry: bool) -> Promoted:
    valid, edge = draft
    return Promoted(source, None if dry else valid.item, None if dry else edge, dry)


def _promotable(item: Item) -> None:
    if item.retracted:
        raise InvalidTransition("promotion", item.id, "retracted", "promoted")
    if item.archived:
        raise InvalidTransition("promotion", item.id, "archived", "promoted")


def _tag(value: Any) -> str:
    plain = getattr(value, "value", value)
    if plain not in PROMOTION_TAGS:
        raise BadUserInput(f"{plain!r} is not one of {', '.join(PROMOTION_TAGS)}", field="tag")
    return str(plain)
