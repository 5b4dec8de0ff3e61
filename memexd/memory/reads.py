"""Reading memory items: by id, by filter, by parent/child link, by edge."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from memexd.graph import Graph
from memexd.graph.cypher import Fragment
from memexd.memory import validation as check
from memexd.memory.edges import pattern
from memexd.memory.filters import (
    Expr,
    MemoryFilter,
    Predicate,
    conjoin,
    order_by,
    prefixes_checked,
    prepare,
    to_cypher,
)
from memexd.memory.indexed import BAND_PAGE, Bands
from memexd.memory.model import Direction, Item, SortKey
from memexd.memory.records import item_from_row
from memexd.memory.validation import Limits
from memexd.types import Row

__all__ = ["ItemReads"]


def _item_id(row: Row) -> Any:
    return row["item"]["id"]


class ItemReads:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def get(self, item_id: str, *, include_retracted: bool = False) -> Item | None:
        item_id = check.check_uuid(item_id)
        rows = await self.graph.read_by_id(
            "item_get", "ids", item_id, {"include_retracted": include_retracted}, _item_id
        )
        return item_from_row(rows[0]["item"]) if rows else None

    async def get_many(
        self, ids: Sequence[str], *, include_retracted: bool = False
    ) -> dict[str, Item]:
        """Items by id (a caller's list: checked and capped)."""
        checked = check.check_ids(list(ids), "ids", max_len=self.limits.max_list)
        return await self.fetch(checked, include_retracted=include_retracted)

    async def fetch(
        self, ids: Sequence[str], *, include_retracted: bool = False
    ) -> dict[str, Item]:
        """Items by id, for ids memexd itself holds (loaders, walks): any number."""
        if not ids:
            return {}
        rows = await self.graph.read(
            "item_get", {"ids": list(ids), "include_retracted": include_retracted}
        )
        return {row["item"]["id"]: item_from_row(row["item"]) for row in rows}

    async def find(
        self,
        flt: MemoryFilter | None,
        sort: Sequence[SortKey] = (),
        limit: int | None = None,
        offset: int | None = None,
        *,
        include_retracted: bool = False,
        now_ms: int | None = None,
        half_life_ms: float | None = None,
    ) -> list[Item]:
        lim = self.limits
        page = lim.page(limit)
        skip = 0 if offset is None else check.check_limit(offset, "offset", maximum=lim.max_offset)
        now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
        expr = prepare(flt, lim, now)
        order = order_by(self.graph, sort, now, half_life_ms or lim.decay_half_life_ms)
        params = {"include_retracted": include_retracted, "offset": skip, "limit": page}
        banded = sort and sort[0].descending and skip + page <= BAND_PAGE
        bands = Bands(sort[0].field if banded else "", now, skip + page)
        for band in bands:
            narrowed = conjoin(expr, Predicate(band.fragment, (("value", band.low),)))
            rows = await self._find(prefixes_checked(narrowed) if band.narrow else narrowed,
                                    params, order)  # fmt: skip
            if len(rows) == page:  # the band held the page: nothing outside sorts higher
                return [item_from_row(row["item"]) for row in rows]
            bands.held(len(rows))
        rows = await self._find(expr, params, order)
        return [item_from_row(row["item"]) for row in rows]

    async def _find(self, expr: Expr, params: dict[str, Any], order: Fragment) -> list[Row]:
        return await self.graph.read("item_find", params, filter=to_cypher(expr, self.graph),
                                     order=order)  # fmt: skip

    async def parents(self, item_id: str) -> list[Item]:
        """Live parents in the order the item lists them (missing ones skipped)."""
        item = await self.get(item_id)
        if item is None:
            return []
        unique = list(dict.fromkeys(item.parents or ()))
        found = await self.fetch(unique)
        return [found[p] for p in unique if p in found]

    async def children_of(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        """Live items naming each id as a parent, whether the parent is live,
        retracted or missing (MemEX's ``getChildren``)."""
        if not ids:
            return {}
        rows = await self.graph.read("item_children", {"ids": list(ids)})
        return {row["id"]: [item_from_row(c) for c in row["children"]] for row in rows}

    async def children(self, item_id: str) -> list[Item]:
        item_id = check.check_uuid(item_id)
        return (await self.children_of([item_id])).get(item_id, [])

    async def related(self, item_id: str, direction: Direction) -> list[Item]:
        rows = await self.graph.read(
            "item_related", {"id": check.check_uuid(item_id)}, pattern=pattern(direction)
        )
        return [item_from_row(row["item"]) for row in rows]
