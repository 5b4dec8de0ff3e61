"""Per-request DataLoaders: one database round trip per nesting level."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from functools import cached_property

from strawberry.dataloader import DataLoader

from memexd.core import Memex
from memexd.integrity.trust import Trusted
from memexd.intents.reads import PlanReads
from memexd.intents.records import Record
from memexd.memory.model import Direction, Edge, Item

__all__ = ["Loaders"]

EdgeKey = tuple[Direction, str | None, bool]  # direction, kind, active only


class Loaders:
    """Built on first use: most requests never touch a nested field."""

    def __init__(self, memex: Memex) -> None:
        self.memex = memex
        self._edges: dict[EdgeKey, DataLoader[str, list[Edge]]] = {}
        self._decay: dict[tuple[int, float], DataLoader[str, float]] = {}
        #: The request's clock: every decay score one request asks for
        #: without an instant is taken at this one, so they load together.
        self.now_ms = time.time_ns() // 1_000_000

    @cached_property
    def items(self) -> DataLoader[str, Item | None]:
        return DataLoader(load_fn=self._items)

    @cached_property
    def edges_by_id(self) -> DataLoader[str, Edge | None]:
        return DataLoader(load_fn=self._edges_by_id)

    @cached_property
    def children(self) -> DataLoader[str, list[Item]]:
        return DataLoader(load_fn=self._children)

    @cached_property
    def aliases(self) -> DataLoader[str, list[Item]]:
        return DataLoader(load_fn=self._aliases)

    @cached_property
    def contradicted_by(self) -> DataLoader[str, list[Item]]:
        return DataLoader(load_fn=self._contradicted_by)

    @cached_property
    def trust(self) -> DataLoader[str, Trusted | None]:
        """Effective authority and trust path (one walk for a page of items)."""
        return DataLoader(load_fn=self._trust)

    def decay_scores(self, now: int | None, half_life: float) -> DataLoader[str, float]:
        """Decay scores at ``now`` (the request's clock when None) with
        ``half_life``, by item id."""
        key = (self.now_ms if now is None else now, half_life)
        loader = self._decay.get(key)
        if loader is None:

            async def load(ids: list[str]) -> Sequence[float]:
                found = await self.memex.usage.decay_scores(ids, *key)
                return [found[i] for i in ids]  # ids of items this request has read

            loader = self._decay[key] = DataLoader(load_fn=load)
        return loader

    def edges(
        self, direction: Direction, kind: str | None, active_only: bool
    ) -> DataLoader[str, list[Edge]]:
        key = (direction, kind, active_only)
        loader = self._edges.get(key)
        if loader is None:

            async def load(ids: list[str]) -> Sequence[list[Edge]]:
                found = await self.memex.edge_reads.of_items(ids, direction, kind, active_only)
                return [found.get(i, []) for i in ids]

            loader = self._edges[key] = DataLoader(load_fn=load)
        return loader

    @cached_property
    def intents(self) -> DataLoader[str, Record | None]:
        return _records(self.memex.intent_reads)

    @cached_property
    def tasks(self) -> DataLoader[str, Record | None]:
        return _records(self.memex.task_reads)

    @cached_property
    def sub_intents(self) -> DataLoader[str, list[Record]]:
        return _lists(self.memex.intent_reads.children_of)

    @cached_property
    def subtasks(self) -> DataLoader[str, list[Record]]:
        return _lists(self.memex.task_reads.children_of)

    @cached_property
    def intent_tasks(self) -> DataLoader[str, list[Record]]:
        return _lists(self.memex.task_reads.tasks_of)

    async def _items(self, ids: list[str]) -> Sequence[Item | None]:
        found = await self.memex.item_reads.fetch(ids)
        return [found.get(i) for i in ids]

    async def _edges_by_id(self, ids: list[str]) -> Sequence[Edge | None]:
        found = await self.memex.edge_reads.fetch(ids)
        return [found.get(i) for i in ids]

    async def _children(self, ids: list[str]) -> Sequence[list[Item]]:
        found = await self.memex.item_reads.children_of(ids)
        return [found.get(i, []) for i in ids]

    async def _aliases(self, ids: list[str]) -> Sequence[list[Item]]:
        found = await self.memex.aliases.direct_of(ids)
        return [found.get(i, []) for i in ids]

    async def _contradicted_by(self, ids: list[str]) -> Sequence[list[Item]]:
        found = await self.memex.contradictions.contradicted_by(ids)
        return [found.get(i, []) for i in ids]

    async def _trust(self, ids: list[str]) -> Sequence[Trusted | None]:
        found = await self.memex.trust.of(ids)
        return [found.get(i) for i in ids]


def _records(reads: PlanReads) -> DataLoader[str, Record | None]:
    async def load(ids: list[str]) -> Sequence[Record | None]:
        found = await reads.fetch(ids)
        return [found.get(i) for i in ids]

    return DataLoader(load_fn=load)


def _lists(
    fetch: Callable[[Sequence[str]], Awaitable[dict[str, list[Record]]]],
) -> DataLoader[str, list[Record]]:
    async def load(ids: list[str]) -> Sequence[list[Record]]:
        found = await fetch(ids)
        return [found.get(i, []) for i in ids]

    return DataLoader(load_fn=load)
