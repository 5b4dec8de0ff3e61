"""Archival (SPEC §11): stale items leave every read without being deleted.

``archiveByDecay`` marks the items matching a filter whose decay score is
below a threshold (0.1 unless given) ``archived``, with a ``memory.archived``
event each, in one statement at the versions read. ``PROJECT`` items are
never archived (they are reported as skipped); archived ones are not read
again. Every read that takes a ``MemoryFilter`` leaves archived items out
unless the filter says ``includeArchived`` (:func:`memexd.memory.filters.prepare`);
``item(id)`` still answers. ``unarchiveItems`` puts them back.

Bounded: one call archives at most ``MEMEXD_MAX_BATCH`` items, lowest score
first (call again for the rest), and reports at most ``MEMEXD_MAX_LIST``
skipped and retained ids, lowest score first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput, MemoryNotFound
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Origin, Why, event_props
from memexd.graph import Graph
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.model import Item
from memexd.memory.reads import ItemReads
from memexd.memory.records import item_from_row
from memexd.memory.usage import check_half_life
from memexd.memory.validation import (
    Limits,
    check_finite,
    check_flag,
    check_ids,
    check_prose,
    check_text,
)

__all__ = ["DEFAULT_THRESHOLD", "Archival", "ArchiveReport", "ArchiveRequest", "shown"]

DEFAULT_THRESHOLD = 0.1
MAX_THRESHOLD = 10.0


@dataclass(frozen=True, slots=True)
class ArchiveRequest:
    author: Any
    filter: MemoryFilter | None = None
    threshold: Any = None
    half_life_ms: Any = None
    now: int | None = None
    dry_run: Any = None
    reason: Any = None


@dataclass(frozen=True, slots=True)
class ArchiveReport:
    archived: list[str]
    retained: list[str]
    skipped: list[str]
    dry_run: bool


class Archival:
    def __init__(self, graph: Graph, limits: Limits, reads: ItemReads) -> None:
        self.graph, self.limits, self.reads = graph, limits, reads

    async def by_decay(self, r: ArchiveRequest, origin: Origin) -> ArchiveReport:
        why = Why(check_text(r.author, "author"), check_prose(r.reason, "reason"))
        dry = check_flag(r.dry_run, "dryRun")
        now = time.time_ns() // 1_000_000 if r.now is None else r.now
        params = {
            "threshold": _threshold(r.threshold),
            "now": now,
            "half_life": check_half_life(r.half_life_ms, self.limits.decay_half_life_ms),
        }
        where = to_cypher(prepare(r.filter, self.limits, now), self.graph)

        async def attempt() -> ArchiveReport | None:
            doomed = await self._read(where, params, "archive", self.limits.max_batch)
            report = ArchiveReport(
                [i.id for i, _ in doomed],
                [i.id for i, _ in await self._read(where, params, "retain", self.limits.max_list)],
                [i.id for i, _ in await self._read(where, params, "skip", self.limits.max_list)],
                dry,
            )
            if dry or not doomed:
                return report
            return report if await self._write(doomed, True, why, origin, now) else None

        return await compare_and_set(attempt, "archiveByDecay")

    async def unarchive(self, ids: Any, author: Any, origin: Origin) -> list[Item]:
        """Archived items back into every read; items not archived are left
        as they are. All or none: an unknown or unreadable id writes nothing."""
        why = Why(check_text(author, "author"), None)
        unique = list(dict.fromkeys(check_ids(ids, "ids", max_len=self.limits.max_list)))

        async def attempt() -> bool | None:
            found = {i.id: (i, v) for i, v in _versioned(await self.graph.read(
                "item_get", {"ids": unique, "include_retracted": False}))}  # fmt: skip
            missing = [i for i in unique if i not in found]
            if missing:
                raise MemoryNotFound(missing[0])
            back = [found[i] for i in unique if found[i][0].archived]
            for item, _ in back:
                self.graph.access.require_write(item.scope)
            if back and not await self._write(back, False, why, origin, None):
                return None
            return True

        await compare_and_set(attempt, "unarchiveItems")
        items = await self.reads.fetch(unique)
        return [items[i] for i in unique if i in items]

    async def _read(
        self, where: Any, params: dict[str, Any], kind: str, limit: int
    ) -> list[tuple[Item, int]]:
        asked = {**params, "kind": kind, "limit": limit}
        rows = await self.graph.read("archive_candidates", asked, filter=where)
        return _versioned(rows)

    async def _write(
        self, items: Sequence[tuple[Item, int]], archive: bool, why: Why, origin: Origin,
        now: int | None,
    ) -> bool:  # fmt: skip
        events = [event_props(ev.memory_archived(i, origin, why, archive)) for i, _ in items]
        rows = await self.graph.write("item_archive", {
            "rows": [[i.id, v] for i, v in items], "archive": archive,
            "now": now, "events": events})  # fmt: skip
        return bool(rows)


def shown(items: Sequence[Item], include_archived: bool | None) -> list[Item]:
    """A walk's or a nested list's items as a caller sees them: archived ones
    left out unless asked for (the walk itself goes through them: a cascade,
    a provenance tree still reach what lies beyond an archived item)."""
    return list(items) if include_archived else [i for i in items if not i.archived]


def _versioned(rows: Sequence[Any]) -> list[tuple[Item, int]]:
    """Items with the versions they were read at."""
    return [(item_from_row(r["item"]), int(r["item"]["version"])) for r in rows]


def _threshold(value: Any) -> float:
    if value is None:
        return DEFAULT_THRESHOLD
    checked = check_finite(value, "threshold")
    if checked is None or not 0.0 < checked <= MAX_THRESHOLD:
        raise BadUserInput(f"must be within (0, {MAX_THRESHOLD:g}]", field="threshold")
    return checked
