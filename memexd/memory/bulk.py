"""Bulk transforms: ``applyMany``, ``bulkAdjustScores``, ``decayImportance``.

MemEX's ``apply_many`` runs a function over the matching items (filter, then
sort, offset and limit) in that order: ``None`` retracts the item and every
edge touching it, an empty partial skips it, anything else is merged in as a
``memory.update``. Over GraphQL the function is declarative (a
:class:`Transform`); its outcome for each item is computed here, exactly as
MemEX would compute it, and the whole batch is written by one statement
(``bulk_apply``) with its events in MemEX's order, at the versions read
(compare-and-set: a concurrent change makes it read and decide again).

Bounded: one call touches at most ``max_batch`` items. Grants: the items are
matched among those the caller can read, and changing one it cannot write is
``FORBIDDEN`` for the whole call, as for every multi-item command.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why
from memexd.graph import Graph
from memexd.graph.cypher import Fragment
from memexd.ids import MAX_TIME_MS
from memexd.memory import validation as check
from memexd.memory.filters import Expr, MemoryFilter, Range, conjoin, order_by, prepare, to_cypher
from memexd.memory.meta import flatten_meta
from memexd.memory.model import Item, ItemPatch, SortKey
from memexd.memory.records import item_from_row, item_props, meta_props, nulls_apart
from memexd.memory.retraction import Retraction, RetractionEvents, placement
from memexd.memory.validation import Limits

__all__ = ["BulkCommands", "BulkOptions", "ScoreChange", "ScoreRanges", "Transform"]

SCORES = ("authority", "conviction", "importance")
#: The reason MemEX's ``decay_importance`` gives when the caller gives none.
DECAY_REASON = "time-based importance decay"


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """A value per score (absolute for ``set``, a factor or a delta)."""

    authority: Any = None
    conviction: Any = None
    importance: Any = None


@dataclass(frozen=True, slots=True)
class ScoreRanges:
    authority: Range | None = None
    conviction: Range | None = None
    importance: Range | None = None


@dataclass(frozen=True, slots=True)
class Transform:
    """What to do to each matched item, as a caller gave it (unchecked)."""

    set: ScoreChange | None = None
    multiply: ScoreChange | None = None
    add: ScoreChange | None = None
    meta_set: Any = None
    retract: Any = None
    retract_where: ScoreRanges | None = None


@dataclass(frozen=True, slots=True)
class BulkOptions:
    sort: Sequence[SortKey] = ()
    limit: Any = None
    offset: Any = None


#: An item's outcome: this, or the partial to merge in (empty: skip it).
RETRACT = "retract"
#: Checked ranges: (score, min, max).
Bounds = tuple[tuple[str, float | None, float | None], ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """A checked transform. ``steps``: (score, op, value), each score once."""

    steps: tuple[tuple[str, str, float], ...]
    meta: dict[str, Any] | None
    retract: bool
    where: Bounds | None

    @property
    def idle(self) -> bool:
        return not (self.steps or self.meta is not None or self.retract or self.where is not None)

    def outcome(self, item: Item) -> str | dict[str, Any]:
        """MemEX's transform result: ``RETRACT``, or the partial (empty: skip).
        Scores are clamped to [0, 1]; ``add`` counts a missing score as 0 (as
        ``bulk_adjust_scores``); ``multiply`` leaves a missing score missing."""
        if self.retract or (self.where is not None and _within(item, self.where)):
            return RETRACT
        partial: dict[str, Any] = {}
        for score, op, value in self.steps:
            current = getattr(item, score)
            if op == "set":
                partial[score] = value
            elif op == "add":
                partial[score] = _clamp((current or 0.0) + value)
            elif current is not None:
                partial[score] = _clamp(current * value)
        if self.meta is not None:
            partial["meta"] = self.meta
        return partial


class BulkCommands:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits
        self.retraction = Retraction(graph)

    async def apply_many(
        self, flt: MemoryFilter | None, transform: Transform, author: Any, reason: Any,
        options: BulkOptions | None, origin: Origin,
    ) -> list[Event]:  # fmt: skip
        why = _why(author, reason)
        plan = _checked(transform, self.limits)
        opts = options or BulkOptions()
        limit, offset = self._paging(opts)
        now = _now()
        expr = prepare(flt, self.limits, now)
        order = order_by(self.graph, opts.sort, now, self.limits.decay_half_life_ms)
        if plan.idle:
            return []
        return await self._run(expr, order, limit, offset, plan, why, origin)

    async def adjust_scores(
        self, flt: MemoryFilter | None, delta: ScoreChange, author: Any, reason: Any,
        origin: Origin,
    ) -> list[Event]:  # fmt: skip
        """MemEX's ``bulk_adjust_scores``: clamped deltas on every matched item."""
        return await self.apply_many(flt, Transform(add=delta), author, reason, None, origin)

    async def decay_importance(
        self, older_than_ms: Any, factor: Any, author: Any, reason: Any, origin: Origin,
        flt: MemoryFilter | None = None,
    ) -> list[Event]:  # fmt: skip
        """MemEX's ``decay_importance``: importance times factor (clamped) on items
        created more than ``older_than_ms`` ago, skipping zero or missing
        importance (left out in the database, so they never count against the
        batch limit). ``flt`` narrows it further (memexd's addition)."""
        why = _why(author, DECAY_REASON if reason is None else reason)
        age = check.check_finite(older_than_ms, "olderThanMs")
        scale = check.check_finite(factor, "factor")
        if age is None or scale is None:
            raise BadUserInput("olderThanMs and factor are required")
        now = _now()
        # MemEX keeps created_at < now - olderThanMs; past the ids' range it is all or none
        cutoff = min(max(math.ceil(now - age), -1), MAX_TIME_MS + 1)
        decaying = MemoryFilter(created_before=cutoff, importance=Range(min=0.0),
                                not_=MemoryFilter(importance=Range(max=0.0)))  # fmt: skip
        expr = conjoin(prepare(flt, self.limits, now), prepare(decaying, self.limits, now))
        plan = _Plan((("importance", "multiply", scale),), None, retract=False, where=None)
        order = order_by(self.graph, ())
        return await self._run(expr, order, None, 0, plan, why, origin)

    def _paging(self, opts: BulkOptions) -> tuple[int | None, int]:
        cap = self.limits.max_batch
        limit = None if opts.limit is None else check.check_limit(
            opts.limit, "options.limit", maximum=cap)  # fmt: skip
        offset = 0 if opts.offset is None else check.check_limit(
            opts.offset, "options.offset", maximum=self.limits.max_offset)  # fmt: skip
        return limit, offset

    async def _run(
        self, expr: Expr, order: Fragment, limit: int | None, offset: int, plan: _Plan, why: Why,
        origin: Origin,
    ) -> list[Event]:  # fmt: skip
        where = to_cypher(expr, self.graph)
        cap = self.limits.max_batch
        page = cap + 1 if limit is None else limit

        async def attempt() -> list[Event] | None:
            rows = await self.graph.read(
                "item_find", {"include_retracted": False, "offset": offset, "limit": page},
                filter=where, order=order,
            )  # fmt: skip
            if len(rows) > cap:
                raise BadUserInput(f"matches more than {cap} items (MEMEXD_MAX_BATCH): narrow "
                                   "it, or page with options.limit", field="filter")  # fmt: skip
            found = [(item_from_row(r["item"]), int(r["item"]["version"])) for r in rows]
            return await self._write(found, plan, why, origin)

        return await compare_and_set(attempt, "the bulk transform")

    async def _write(
        self, found: list[tuple[Item, int]], plan: _Plan, why: Why, origin: Origin
    ) -> list[Event] | None:
        """Decide every item, then write the batch; ``None``: changed since read."""
        outcomes = [(item, version, plan.outcome(item)) for item, version in found]
        touched = [(item, version, o) for item, version, o in outcomes if o]  # not skipped
        self.graph.access.require_write(*(item.scope for item, _, _ in touched))
        doomed = {item.id: version for item, version, o in touched if o == RETRACT}
        retracting = await self.retraction.plan(list(doomed)) if doomed else {}
        if any(i not in retracting or retracting[i].version != v for i, v in doomed.items()):
            return None  # retracted or changed since the items were read
        groups = _by_item(list(RetractionEvents(list(doomed), retracting, origin, why)))
        events: list[Event] = []
        updates: list[dict[str, Any]] = []
        for item, version, outcome in touched:
            if not isinstance(outcome, dict):  # RETRACT
                events.extend(groups[item.id])
                continue
            merged = self._merged(item, outcome)
            events.append(ev.memory_updated(merged.item, origin, why))
            props, removed = nulls_apart(_props(item, merged, outcome))
            updates.append({"id": item.id, "version": version, "props": props,
                            "removed": removed, "created": ev.creation_record(item)})  # fmt: skip
        edge_ids = sorted({e.edge_id for i in doomed for e, _ in retracting[i].edges})
        kept, logged = placement(events)
        params = {"updates": updates, "edge_ids": edge_ids, "unlinked": [], "undo": None,
                  **logged,
                  "doomed": [{"id": i, "version": v, "event_id": kept[i][0], "at": kept[i][1]}
                             for i, v in doomed.items()]}  # fmt: skip
        if events:
            rows = await self.graph.write("bulk_apply", params)
            if not rows or not rows[0]["ok"]:
                return None
        access = self.graph.access
        return [e for e in events if all(access.can_read(s) for s in e.scopes or ())]

    def _merged(self, item: Item, partial: dict[str, Any]) -> check.ValidItem:
        try:
            return check.merged_item(item, ItemPatch(**partial), self.limits)
        except BadUserInput as exc:  # the merged meta outgrew the size limit
            raise BadUserInput(f"item {item.id}: {exc.message}") from None


def _checked(t: Transform, limits: Limits) -> _Plan:
    """The whole transform checked before anything is read or written."""
    if not isinstance(t, Transform):
        raise BadUserInput("must be a transform object", field="transform")
    steps: list[tuple[str, str, float]] = []
    for op, change in (("set", t.set), ("multiply", t.multiply), ("add", t.add)):
        for score in SCORES:
            value = None if change is None else getattr(change, score)
            if value is None:
                continue
            field = f"transform.{op}.{score}"
            if any(s == score for s, _, _ in steps):
                raise BadUserInput("changes a score another operation changes", field=field)
            checked = check.check_score(value, field) if op == "set" else check.check_finite(
                value, field)  # fmt: skip
            steps.append((score, op, float(checked or 0.0)))
    meta = None
    if t.meta_set is not None:
        meta, _ = check.json_object(t.meta_set, "transform.metaSet",
                                    max_bytes=limits.max_content_bytes)  # fmt: skip
    if t.retract is not None and not isinstance(t.retract, bool):
        raise BadUserInput("must be true or false", field="transform.retract")
    retract = bool(t.retract)
    if retract and (steps or meta is not None or t.retract_where is not None):
        raise BadUserInput("retract: true leaves nothing else to do", field="transform.retract")
    where = None if t.retract_where is None else _ranges(t.retract_where)
    return _Plan(tuple(steps), meta, retract, where)


def _ranges(r: ScoreRanges) -> Bounds:
    out = []
    for score in SCORES:
        rng: Range | None = getattr(r, score)
        if rng is not None:
            field = f"transform.retractWhere.{score}"
            out.append((score, check.check_finite(rng.min, f"{field}.min"),
                        check.check_finite(rng.max, f"{field}.max")))  # fmt: skip
    return tuple(out)


def _within(item: Item, ranges: Bounds) -> bool:
    """MemEX's ``_matches_range``: a missing score is outside any bounded range."""
    for score, low, high in ranges:
        value = getattr(item, score)
        if low is not None and (value is None or value < low):
            return False
        if high is not None and (value is None or value > high):
            return False
    return True


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, value))


def _why(author: Any, reason: Any) -> Why:
    return Why(check.check_text(author, "author"), check.check_prose(reason, "reason"))


def _now() -> int:
    return time.time_ns() // 1_000_000


def _by_item(events: list[Event]) -> dict[str, list[Event]]:
    """Retraction events grouped by item: each ``memory.retracted`` with the
    ``edge.retracted`` that follow it."""
    groups: dict[str, list[Event]] = {}
    current: list[Event] = []
    for event in events:
        if event.type == ev.MEMORY_RETRACTED:
            current = groups.setdefault(str(event.subject), [])
        current.append(event)
    return groups


def _props(current: Item, merged: check.ValidItem, partial: dict[str, Any]) -> dict[str, Any]:
    """What changes on the node: the scores the transform set (only those:
    the others, as read, may be rounded), and the meta text with its
    flattened paths (the old paths nulled first)."""
    props = {s: partial[s] for s in SCORES if s in partial}
    if merged.item.meta != current.meta:
        stored = item_props(merged.item, merged.content_json, merged.meta_json)
        props["meta"] = stored["meta"]
        props.update(dict.fromkeys(flatten_meta(current.meta)))
        props.update(meta_props(merged.item.meta))
    return props
