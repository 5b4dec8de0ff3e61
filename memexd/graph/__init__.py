"""Graph engines behind one protocol, and named Cypher on top of them.

All engine differences live in this package and in per-backend Cypher
override files; everything above speaks :class:`Graph`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memexd.graph.cypher import Fragment, Queries
from memexd.types import GraphStore, Row

__all__ = ["Fragment", "Graph"]


class Graph:
    """Named queries run on a :class:`~memexd.types.GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.queries = Queries(store.backend)

    @property
    def backend(self) -> str:
        return self.store.backend

    async def read(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        text, bound = self.queries.get(name).bind(params or {}, slots)
        return await self.store.read(text, bound)

    async def write(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        text, bound = self.queries.get(name).bind(params or {}, slots)
        return await self.store.write(text, bound)

    def fragment(self, name: str, number: int, **params: Any) -> Fragment:
        """Predicate fragment ``name``, numbered as the ``number``-th of its query."""
        return self.queries.fragment(name, number, **params)
