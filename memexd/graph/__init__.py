"""Graph engines behind one protocol, and named Cypher on top of them.

All engine differences live in this package and in per-backend Cypher
override files; everything above speaks :class:`Graph`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memexd.access.grants import EVERYTHING, Access
from memexd.graph.cypher import Fragment, Queries
from memexd.types import GraphStore, Row

__all__ = ["Fragment", "Graph"]


class Graph:
    """Named queries run on a :class:`~memexd.types.GraphStore`, bound to the
    :class:`~memexd.access.grants.Access` of one caller.

    A query that declares ``readable`` or ``writable`` among its parameters
    gets the caller's read or write prefixes there, always: callers cannot
    pass them, so a query that checks grants never runs without them.
    """

    def __init__(
        self, store: GraphStore, access: Access = EVERYTHING, queries: Queries | None = None
    ) -> None:
        self.store = store
        self.access = access
        self.queries = queries or Queries(store.backend)
        self._grants = {"readable": list(access.read), "writable": list(access.write)}

    def bound(self, access: Access) -> Graph:
        """The same engine and query cache, for another caller."""
        return Graph(self.store, access, self.queries)

    @property
    def backend(self) -> str:
        return self.store.backend

    async def read(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        return await self.store.read(*self._bind(name, params, slots))

    async def write(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        return await self.store.write(*self._bind(name, params, slots))

    def _bind(
        self, name: str, params: Mapping[str, Any] | None, slots: Mapping[str, str | Fragment]
    ) -> tuple[str, dict[str, Any]]:
        """The statement's text and parameters, the caller's grants included."""
        query = self.queries.get(name)
        given = params or {}
        if query.grants:
            if not query.grants.isdisjoint(given):
                raise KeyError(f"{name}: grants are not the caller's to pass")
            given = {**given, **{g: self._grants[g] for g in query.grants}}
        return query.bind(given, slots)

    def fragment(self, name: str, number: int, **params: Any) -> Fragment:
        """Predicate fragment ``name``, numbered as the ``number``-th of its query."""
        return self.queries.fragment(name, number, **params)
