"""Graph engines behind one protocol, and named Cypher on top of them.

All engine differences live in this package and in per-backend Cypher
override files; everything above speaks :class:`Graph`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, NamedTuple

from memexd.access.grants import EVERYTHING, Access
from memexd.graph import bookmarks
from memexd.graph.batching import Batches
from memexd.graph.cypher import Fragment, Queries
from memexd.graph.falkordb_wire import Encoded
from memexd.types import GraphStore, Params, Row

__all__ = ["Fragment", "Graph", "Statement"]

#: How each engine takes parameters ahead of sending: FalkorDB reads them as
#: Cypher text, encoded here; the others take them as they are.
_AHEAD: dict[str, Callable[[Params], Params]] = {"falkordb": Encoded}
#: Engines that walk a whole reach in one statement: there a variable-length
#: pattern whose ends are wanted DISTINCT is a pruning breadth-first search,
#: linear in what it reaches (Neo4j). The others enumerate paths (FalkorDB),
#: so walks go a few levels a statement (memexd.integrity.traversal).
_WHOLE_WALKS = frozenset({"neo4j"})


#: Engines whose reads carry their statement's name on the first line
#: (``// item_find``): Neo4j's store learns a statement's columns once for
#: every text of it (memexd.graph.packed).
_NAMED_READS = frozenset({"neo4j"})


class Statement(NamedTuple):
    """A named write bound to its parameters (the caller's grants included)
    and encoded as its engine takes them: :meth:`Graph.statement`."""

    text: str
    params: Params


class Graph:
    """Named queries run on a :class:`~memexd.types.GraphStore`, bound to the
    :class:`~memexd.access.grants.Access` of one caller.

    A query that declares ``readable`` or ``writable`` among its parameters
    gets the caller's read or write prefixes there, always: callers cannot
    pass them, so a query that checks grants never runs without them.
    """

    def __init__(
        self,
        store: GraphStore,
        access: Access = EVERYTHING,
        queries: Queries | None = None,
        batches: Batches | None = None,
    ) -> None:
        self.store = store
        self.access = access
        self.queries = queries or Queries(store.backend)
        self.batches = batches or Batches()
        self._grants = {"readable": list(access.read), "writable": list(access.write)}

    def bound(self, access: Access) -> Graph:
        """The same engine, query cache and batches, for another caller."""
        return Graph(self.store, access, self.queries, self.batches)

    @property
    def backend(self) -> str:
        return self.store.backend

    @property
    def walks_whole(self) -> bool:
        """Whether one statement may walk a whole reach (see ``_WHOLE_WALKS``)."""
        return self.backend in _WHOLE_WALKS

    async def read(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        text, bound = self._bind(name, params, slots)
        if self.backend in _NAMED_READS:
            text = f"// {name}\n{text}"
        return await self.store.read(text, bound)

    async def read_by_id(
        self,
        name: str,
        ids_param: str,
        item_id: str,
        params: Mapping[str, Hashable],
        id_of: Callable[[Row], Any],
    ) -> list[Row]:
        """The rows of one id from ``name``, a read of the ids in parameter
        ``ids_param`` whose rows ``id_of`` names: reads of the same query,
        parameters, grants and bookmarks in flight at once are one query
        (:mod:`memexd.graph.batching`)."""
        carried = bookmarks.current()
        given = carried.given if carried is not None else ()
        key = (name, *sorted(params.items()), self.access.read, given)

        async def send(ids: list[str]) -> list[Row]:
            return await self.read(name, {**params, ids_param: ids})

        return await self.batches.read(key, item_id, send, id_of)

    async def write(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> list[Row]:
        return await self.store.write(*self._bind(name, params, slots))

    async def schema(self, name: str) -> None:
        """Run a schema statement (an index, a constraint): engines run them
        apart from data writes, and return once the index can answer."""
        text, _ = self._bind(name, None, {})
        await self.store.execute_ddl(text)

    def statement(
        self, name: str, params: Mapping[str, Any] | None = None, **slots: str | Fragment
    ) -> Statement:
        """A write made ready to send: bulk paths make batch N+1 ready while
        the engine writes batch N (encoding is CPU the engine need not wait for)."""
        text, bound = self._bind(name, params, slots)
        ahead = _AHEAD.get(self.backend)
        return Statement(text, bound if ahead is None else ahead(bound))

    async def send(self, statement: Statement) -> list[Row]:
        """Run a write made ready by :meth:`statement`."""
        return await self.store.write(statement.text, statement.params)

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
