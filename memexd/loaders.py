"""Per-request DataLoaders: one database round trip per nesting level."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from memexd.model import Direction, Edge, Item
from memexd.service import Memex

__all__ = ["Loaders"]

EdgeKey = tuple[str, str | None, bool]  # direction name, kind, active only


class Loaders:
    def __init__(self, memex: Memex) -> None:
        self.memex = memex
        self.items: DataLoader[str, Item | None] = DataLoader(load_fn=self._items)
        self.children: DataLoader[str, list[Item]] = DataLoader(load_fn=self._children)
        self._edges: dict[EdgeKey, DataLoader[str, list[Edge]]] = {}

    def edges(
        self, direction: str, kind: str | None, active_only: bool
    ) -> DataLoader[str, list[Edge]]:
        key = (direction, kind, active_only)
        loader = self._edges.get(key)
        if loader is None:

            async def load(ids: list[str]) -> Sequence[list[Edge]]:
                found = await self.memex.edge_reads.of_items(
                    ids, Direction.named(direction), kind, active_only
                )
                return [found.get(i, []) for i in ids]

            loader = self._edges[key] = DataLoader(load_fn=load)
        return loader

    async def _items(self, ids: list[str]) -> Sequence[Item | None]:
        found = await self.memex.item_reads.get_many(ids)
        return [found.get(i) for i in ids]

    async def _children(self, ids: list[str]) -> Sequence[list[Item]]:
        found = await self.memex.item_reads.children_of(ids)
        return [found.get(i, []) for i in ids]
