"""What memory held at an instant (SPEC §14), read from the event log.

The design is the log itself: every ``memory.*`` event carries the whole
item as that command left it, and event nodes are indexed by subject, so an
item at instant ``t`` is the record of its last event logged at or before
``t`` (one index seek per id), or the node itself while it is as created
(its memory.created is kept on it). Nothing is written on the command path
for it: no version nodes, no validity intervals. The answer is what
replaying the log up to ``t`` gives (``tests/test_as_of.py`` checks exactly
that on random histories).

A listing (``matching``) meets items in id order a window of id keys at a
time (:mod:`memexd.history.windows`), so its cost follows the items it
walks past, not the items there are: at a million items with ten updates
each, a filter on one scope of ten reads about a thousand items back, at any
instant.

Under today's grants: an item is shown as of ``t`` when the caller may read
the scope it had then. A purged item is absent at every instant: purging
takes its content out of the log too (SPEC §13).
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace

import orjson

from memexd.errors import BadUserInput, ResourceExhausted
from memexd.graph import Graph
from memexd.history.windows import Window, Windows
from memexd.ids import ID_KEY_END, id_key
from memexd.memory.filters import (
    TRUE,
    Expr,
    MemoryFilter,
    Predicate,
    conjoin,
    order_by,
    prepare,
    scope_part,
    to_cypher,
)
from memexd.memory.model import Item
from memexd.memory.records import item_from_json, item_from_row, item_props
from memexd.memory.validation import Limits, check_uuid
from memexd.types import Row

__all__ = ["AsOf", "Instant"]

#: How far ahead of this process's clock an instant may be (clocks of
#: replicas differ a little; later than that is a time not reached yet).
FUTURE_SLACK_MS = 1_000
#: The first window of log positions searched for the log's first entry.
_FIRST_WINDOW = 1_024
#: Events after which the item is not there.
_GONE = frozenset({"memory.retracted", "memory.purged"})


@dataclass(frozen=True, slots=True)
class Instant:
    """A checked instant: epoch milliseconds within the log's span."""

    ms: int


class AsOf:
    def __init__(self, graph: Graph, limits: Limits, max_depth: int, max_nodes: int) -> None:
        self.graph, self.limits = graph, limits
        self.windows = Windows(graph)
        self.max_depth, self.max_nodes = max_depth, max_nodes

    async def instant(self, ms: int) -> Instant:
        """``BAD_USER_INPUT`` for a time before the log's first entry (or any
        time, on an empty log) or one not reached yet."""
        if ms > time.time_ns() // 1_000_000 + FUTURE_SLACK_MS:
            raise BadUserInput("the instant is in the future", field="asOf")
        first = await self._first()
        if first is None or ms < first:
            raise BadUserInput("the instant is before the first event of the log", field="asOf")
        return Instant(ms)

    async def item(self, item_id: str, at: Instant) -> Item | None:
        item_id = check_uuid(item_id)
        return (await self.items([item_id], at)).get(item_id)

    async def items(self, ids: Sequence[str], at: Instant, expr: Expr = TRUE) -> dict[str, Item]:
        """The items of ``ids`` (ids memexd holds, any number) present at
        ``at`` that the caller may read, as they were then; with ``expr``,
        only those whose scope then meets its conditions on the scope."""
        if not ids:
            return {}
        rows = await self.graph.read("item_as_of", {"ids": list(ids), "at": at.ms},
                                     filter=to_cypher(scope_part(expr), self.graph))  # fmt: skip
        found = (_then(row, at.ms) for row in rows if row["seen"])
        return {i.id: i for i in found if i is not None}

    async def matching(self, flt: MemoryFilter | None, limit: int | None, at: Instant
                       ) -> list[Item]:  # fmt: skip
        """As ``items``, at ``at``: the items there then that the filter
        matches as they were then, by id, at most ``limit``. Filters that speak
        of "now" (decay) are evaluated at ``at``.

        Items are met in id order, a window of id keys at a time
        (:mod:`memexd.history.windows`), until ``limit`` match. When at most
        ``max_page`` items changed since ``at``, the others in a window are
        read and filtered where they are, by index, and only the changed ones
        are taken back to ``at``; when more changed, every item in a window is
        taken back (those whose scope then fails the filter's scope
        conditions ruled out in the database), and once ``max_page`` have
        been walked past without ``limit`` matches, ``RESOURCE_EXHAUSTED``
        (the last window may take the walk past it, by less than itself)."""
        page = self.limits.page(limit)
        expr = prepare(flt, self.limits, at.ms)
        changed = await self._changed(at)
        walk = _Walk(page, self.limits.max_page, rebuilds=changed is None)
        found: list[Item] = []
        lo = 0
        while len(found) < page and lo < ID_KEY_END:
            window = await self.windows.after(lo, walk.target())
            if changed is None:
                got, seen = await self._rebuilt(window, expr, at)
            else:
                got, seen = await self._kept(window, expr, at, changed, page - len(found))
            found += got
            walk.went(seen, len(got), page - len(found))
            lo = window.hi
        return found[:page]

    async def _kept(self, window: Window, expr: Expr, at: Instant, changed: list[tuple[int, str]],
                    need: int) -> tuple[list[Item], int]:  # fmt: skip
        """A window's matches when few items changed since ``at``: the others
        filtered in the database, the changed ones taken back to ``at``."""
        inside = [i for _, i in changed[bisect_left(changed, (window.lo, "")):
                                        bisect_left(changed, (window.hi, ""))]]  # fmt: skip
        kept = conjoin(expr, Predicate("key_range", (("lo", window.lo), ("hi", window.hi))),
                       Predicate("ids_in", (("values", inside),), negated=True),
                       Predicate("present_at", (("value", at.ms),)))  # fmt: skip
        params = {"include_retracted": False, "offset": 0, "limit": need}
        rows = await self.graph.read("item_find", params, filter=to_cypher(kept, self.graph),
                                     order=order_by(self.graph, ()))  # fmt: skip
        then = await self._matched(await self.items(inside, at, expr), expr)
        found = sorted([item_from_row(r["item"]) for r in rows] + then, key=lambda i: i.id)
        return found[:need], window.held

    async def _rebuilt(self, window: Window, expr: Expr, at: Instant) -> tuple[list[Item], int]:
        """A window's matches when many items changed since ``at``: every
        item in it taken back to ``at``."""
        rows = await self.graph.read("item_ids_in_keys", {"lo": window.lo, "hi": window.hi})
        ids = [r["id"] for r in rows]
        found = await self._matched(await self.items(ids, at, expr), expr)
        return sorted(found, key=lambda i: i.id), len(ids)

    async def _matched(self, then: dict[str, Item], expr: Expr) -> list[Item]:
        """Which of some items as they were (not as their nodes are) the
        compiled filter matches."""
        if not then:
            return []
        states = [_state(i) for i in then.values()]
        rows = await self.graph.read("item_match_states", {"states": states},
                                     filter=to_cypher(expr, self.graph))  # fmt: skip
        return [then[r["id"]] for r in rows]

    async def _changed(self, at: Instant) -> list[tuple[int, str]] | None:
        """The items whose record changed after ``at``, as (id key, id) in
        order; ``None`` past ``max_page`` of them."""
        cap = self.limits.max_page
        rows = await self.graph.read("item_changed_since", {"at": at.ms, "limit": cap + 1})
        if sum(int(r["changed"]) for r in rows) > cap:
            return None
        return sorted({(id_key(i), i) for r in rows for i in r["ids"]})

    async def support_set(self, item_id: str, at: Instant) -> list[Item]:
        """As ``supportSet``, at ``at``: the item and every item present then
        that supports it through the parents each had then, item first, in
        breadth-first order; empty when the item was not there."""
        item_id = check_uuid(item_id)
        reached: dict[str, Item] = {}
        frontier, depth = [item_id], 0
        while frontier:
            found = await self.items(frontier, at)
            step = [found[i] for i in frontier if i in found]
            reached.update((i.id, i) for i in step)
            if len(reached) > self.max_nodes or (depth := depth + 1) > self.max_depth:
                raise ResourceExhausted("the support set at that instant went past the "
                                        "traversal limits")  # fmt: skip
            parents = (p for i in step for p in i.parents or ())
            frontier = list(dict.fromkeys(p for p in parents if p not in reached))
        return list(reached.values())

    async def _first(self) -> int | None:
        """The time of the log's first entry (the lowest position)."""
        head = (await self.graph.read("event_head"))[0]["head"]
        upto = _FIRST_WINDOW
        while True:
            rows = await self.graph.read("log_first", {"upto": upto})
            if rows:
                return int(min(rows, key=lambda r: int(r["seq"]))["ts"])
            if upto >= head:
                return None
            upto *= 64


class _Walk:
    """How many items the next window should hold: enough for the matches
    still wanted at the share of items matched so far, growing at most
    sixteenfold a window; when every item in a window is taken back to the
    instant, within what is left of ``max_page``."""

    def __init__(self, page: int, budget: int, rebuilds: bool) -> None:
        self.size, self.budget, self.rebuilds = 4 * page, budget, rebuilds
        self.seen = self.matched = 0

    def target(self) -> int:
        if not self.rebuilds:
            return self.size
        left = self.budget - self.seen
        if left <= 0:
            raise ResourceExhausted(f"more than {self.budget} items changed since that instant "
                                    "and the filter matched too few of them: narrow it, or "
                                    "ask for a later instant")  # fmt: skip
        return min(self.size, left)

    def went(self, seen: int, matched: int, need: int) -> None:
        self.seen, self.matched = self.seen + seen, self.matched + matched
        share = (self.matched + 1) / (self.seen + 1)
        self.size = max(1, min(16 * self.size, math.ceil(1.25 * need / share)))


def _then(row: Row, at: int) -> Item | None:
    """What the item of one ``item_as_of`` row was at ``at``, or ``None``."""
    node = row["item"]
    if node is None:  # purged, or never there
        return None
    retracted_at = row["retracted_at"]
    if retracted_at is not None and int(retracted_at) <= at:
        return None
    # archiving changes no field: its events are nodes either way
    archived = row["shelf"] == "memory.archived"
    if not row["logged"]:  # no field changed since created: the node is its record
        if int(row["created_ts"]) > at:
            return None
        return replace(item_from_row(node), retracted=False, archived=archived)
    if row["last_type"] is None:  # created after ``at``
        return None
    if row["last_type"] in _GONE or row["last_payload"] is None:
        return None
    # statistics are not part of the record: they come from the node as it is
    seen = node.get("last_accessed_at")
    record = orjson.loads(row["last_payload"])["item"]
    return replace(item_from_json(record), seq=int(node.get("seq") or 0), archived=archived,
                   access_count=int(node.get("access_count") or 0),
                   last_accessed_at=None if seen is None else int(seen))  # fmt: skip


def _state(item: Item) -> dict[str, object]:
    """The properties a node holding ``item`` has (what filters read), as a map."""
    props: dict[str, object] = item_props(item)
    props.update(access_count=item.access_count, archived=True if item.archived else None)
    return props
