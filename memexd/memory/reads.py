"""Reading memory items: by id, by filter, by parent/child link, by edge."""

from __future__ import annotations

import time
from collections.abc import Sequence

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.ids import check_uuid
from memexd.memory.edges import pattern
from memexd.memory.filters import MemoryFilter, compile_filter, order_by
from memexd.memory.model import Direction, Item, SortKey
from memexd.memory.records import item_from_row
from memexd.memory.validation import check_limit
from memexd.settings import Settings

__all__ = ["ItemReads"]


class ItemReads:
    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    async def get(self, item_id: str, *, include_retracted: bool = False) -> Item | None:
        item_id = check_uuid(item_id)
        found = await self.get_many([item_id], include_retracted=include_retracted)
        return found.get(item_id)

    async def get_many(
        self, ids: Sequence[str], *, include_retracted: bool = False
    ) -> dict[str, Item]:
        checked = [check_uuid(i) for i in ids]
        if not checked:
            return {}
        rows = await self.graph.read(
            "item_get", {"ids": checked, "include_retracted": include_retracted}
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
    ) -> list[Item]:
        s = self.settings
        if len(sort) > 4:
            raise BadUserInput("at most 4 sort keys", field="sort")
        limit = check_limit(limit, "limit", maximum=s.max_page)
        offset = check_limit(offset, "offset", maximum=10 * s.max_page)
        now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
        rows = await self.graph.read(
            "item_find",
            {
                "include_retracted": include_retracted,
                "offset": offset or 0,
                "limit": s.max_page if limit is None else limit,
            },
            filter=compile_filter(flt, self.graph, now),
            order=order_by(self.graph, sort),
        )
        return [item_from_row(row["item"]) for row in rows]

    async def parents(self, item_id: str) -> list[Item]:
        """Live parents in the order the item lists them (missing ones skipped)."""
        item = await self.get(item_id)
        if item is None:
            return []
        found = await self.get_many(list(dict.fromkeys(item.parents)))
        return [found[p] for p in dict.fromkeys(item.parents) if p in found]

    async def children_of(self, ids: Sequence[str]) -> dict[str, list[Item]]:
        checked = [check_uuid(i) for i in ids]
        if not checked:
            return {}
        rows = await self.graph.read("item_children", {"ids": checked})
        return {row["id"]: [item_from_row(c) for c in row["children"]] for row in rows}

    async def children(self, item_id: str) -> list[Item]:
        return (await self.children_of([item_id])).get(check_uuid(item_id), [])

    async def related(self, item_id: str, direction: Direction) -> list[Item]:
        rows = await self.graph.read(
            "item_related", {"id": check_uuid(item_id)}, pattern=pattern(direction)
        )
        return [item_from_row(row["item"]) for row in rows]
