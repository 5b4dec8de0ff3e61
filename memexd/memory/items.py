"""Commands on memory items: create (batched), update, retract.

Each command validates its whole input first (:mod:`memexd.memory.validation`),
then writes the change and its lifecycle events in one Cypher statement.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import (
    BadUserInput,
    Conflict,
    ConstraintViolation,
    DuplicateMemory,
    InvalidTimestamp,
    MemoryNotFound,
)
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why, event_props
from memexd.graph import Graph, Statement
from memexd.memory import validation as check
from memexd.memory.creation import BatchBuilder, CreatedEvents, Prepared, links
from memexd.memory.meta import flatten_meta
from memexd.memory.model import Item, ItemPatch
from memexd.memory.records import item_from_row, item_props, nulls_apart
from memexd.memory.retraction import FENCE_MS, Retraction
from memexd.memory.validation import Limits
from memexd.memory.working import Eviction, WorkingMemory

__all__ = ["ItemCommands"]


class ItemCommands:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits
        self.retraction = Retraction(graph)
        self.working = WorkingMemory(graph, limits)

    async def create(
        self, drafts: Sequence[check.ItemDraft], origin: Origin
    ) -> tuple[list[Item], CreatedEvents]:
        """All or none: every input is checked, then one statement writes them."""
        if len(drafts) > self.limits.max_batch:
            raise BadUserInput(f"more than {self.limits.max_batch} items", field="inputs")
        batch = self.prepare(self.checked(drafts), origin)
        if batch.items:
            await self.write(batch)
        return batch.items, batch.events

    def checked(self, drafts: Sequence[check.ItemDraft]) -> list[check.ValidItem]:
        """Each draft validated and its scope writable, or the first error,
        saying which input."""
        valid = []
        require_write = self.graph.access.require_write
        for i, draft in enumerate(drafts):
            try:
                v = check.new_item(draft, self.limits)
            except (BadUserInput, InvalidTimestamp) as exc:  # say which input
                raise type(exc)(f"inputs[{i}].{exc.message}") from None
            require_write(v.item.scope, field=f"inputs[{i}].scope")
            valid.append(v)
        return valid

    def prepare(self, valid: Sequence[check.ValidItem], origin: Origin) -> Prepared:
        """The batch's events and parameters; ``DUPLICATE_MEMORY`` when an id
        repeats in it. Grants are the caller's to have checked (:meth:`checked`)."""
        batch = BatchBuilder(origin)
        for v in valid:
            batch.add(v)
        return batch.build()

    def statement(self, batch: Prepared) -> Statement:
        """The batch's statement, ready to send (bulk paths make the next one
        ready while the engine writes the previous one)."""
        return self.graph.statement("item_create", batch.params)

    async def write(self, batch: Prepared, statement: Statement | None = None) -> None:
        """Write a prepared batch (through ``statement`` when it was made
        ready); ``DUPLICATE_MEMORY`` (naming the taken ids) when an id is
        taken, ``CONFLICT`` when a parent stays fenced. A batch of SESSION
        items is planned against its sessions' working memory first, and
        planned again when another write made the plan stale."""
        ready = self.statement(batch) if statement is None else statement
        deadline = time.monotonic() + FENCE_MS / 1000 + 1
        while True:
            eviction = await self._evicting(batch)
            if eviction is not None:
                ready = self.graph.statement("item_create", {**batch.params, **eviction.params})
            try:
                rows = await self.graph.send(ready)
            except ConstraintViolation:
                rows = []
            if rows:
                batch.events.after[:] = [] if eviction is None else eviction.events
                return
            taken = await self.taken(batch.ids)
            if taken:
                raise DuplicateMemory(taken)
            if time.monotonic() > deadline:  # a fence that outlived its cascade
                why = (
                    "a parent is being cascade-retracted"
                    if eviction is None
                    else ("the session's working memory kept changing")
                )
                raise Conflict(f"{why}; try again")
            await asyncio.sleep(0.005)  # a parent is fenced, or the plan went stale

    async def _evicting(self, batch: Prepared) -> Eviction | None:
        """The batch's working-memory plan; none for a batch without SESSION
        items in a session, or whose sessions have no capacity."""
        if not batch.sessions:
            return None
        author, origin = batch.items[0].author, batch.events.origin
        eviction = await self.working.plan(batch.sessions, author, origin)
        return eviction if eviction.params["occupancy"] else None

    async def taken(self, ids: list[str]) -> list[str]:
        """The ids already taken (by items the caller can read or not)."""
        rows = await self.graph.read("item_ids_taken", {"ids": ids})
        return sorted(row["id"] for row in rows)

    async def update(
        self, item_id: str, patch: ItemPatch, author: str, reason: str | None, basis: Any,
        origin: Origin,
    ) -> tuple[Item, list[Event]]:  # fmt: skip
        item_id = check.check_uuid(item_id)
        author = check.check_text(author, "author")
        reason = check.check_prose(reason, "reason")
        size = self.limits.max_content_bytes
        if basis is not None:
            check.json_value(basis, "basis", max_bytes=size)
        patch = check.item_patch(patch, self.limits)

        async def attempt() -> tuple[Item, list[Event]] | None:
            rows = await self.graph.read("item_get", {"ids": [item_id], "include_retracted": False})
            if not rows:
                raise MemoryNotFound(item_id)
            current, version = item_from_row(rows[0]["item"]), int(rows[0]["item"]["version"])
            valid = check.merged_item(current, patch, self.limits)
            merged = valid.item
            self.graph.access.require_write(current.scope, merged.scope)
            event = ev.memory_updated(merged, origin, Why(author, reason),
                                      moved_from=current.scope)  # fmt: skip
            props, removed = nulls_apart(_update_props(current, valid))
            written = await self.graph.write(
                "item_update",
                {
                    "id": item_id,
                    "version": version,
                    "props": props,
                    "removed": removed,
                    "relink": patch.parents is not None,
                    "links": links(merged) if patch.parents is not None else [],
                    "replan": patch.intent_id is not None or patch.task_id is not None,
                    "events": [event_props(event)],
                    "created": ev.creation_record(current),
                },
            )
            return (merged, [event]) if written else None

        return await compare_and_set(attempt, f"item {item_id}")

    async def retract(
        self, item_id: str, author: str, reason: str | None, origin: Origin
    ) -> Sequence[Event]:
        """Retract a live item and every edge touching it (MemEX's rule)."""
        item_id = check.check_uuid(item_id)
        why = Why(check.check_text(author, "author"), check.check_prose(reason, "reason"))

        async def attempt() -> Sequence[Event] | None:
            plan = await self.retraction.plan([item_id])
            if item_id not in plan:
                raise MemoryNotFound(item_id)
            self.graph.access.require_write(plan[item_id].scope)
            return await self.retraction.write([item_id], plan, origin, why, closed=False)

        return await compare_and_set(attempt, f"item {item_id}")


def _update_props(current: Item, merged: check.ValidItem) -> dict[str, Any]:
    """Properties to ``SET +=``: every stored field, with stale meta paths nulled."""
    props = item_props(merged.item, merged.content_json, merged.meta_json)
    for key in ("id", "created_at", "retracted", "version"):
        props.pop(key)
    for key in flatten_meta(current.meta):
        props.setdefault(key, None)
    return props
