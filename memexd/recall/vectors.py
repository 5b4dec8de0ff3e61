"""Callers' own vectors for items (``setItemEmbeddings``).

A caller with a model of its own stores its vectors on items it may write:
each must have the server's dimension (:data:`~memexd.recall.model.DIMENSION`),
finite components and a non-zero length (it is stored unit length). All or
none: an unknown, retracted or unwritable id writes nothing. At most
:data:`MAX_VECTORS` a call: the call is one statement, and each vector costs
the engine's vector index milliseconds (4-10 ms at a million items), so 1,000
ran past the engine's 10 s query limit on a busy machine. The vector is
kept until the item's content changes (then the server's model embeds it
again) and through ``memexd embed --all``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memexd.errors import BadUserInput, MemoryNotFound
from memexd.graph import Graph
from memexd.memory.validation import Limits, check_uuid
from memexd.recall.model import check_vector

__all__ = ["MAX_VECTORS", "OwnVectors"]

#: Vectors one call may store.
MAX_VECTORS = 256


class OwnVectors:
    def __init__(self, graph: Graph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits

    async def store(self, pairs: Sequence[tuple[Any, Any]]) -> list[str]:
        """Store ``(id, vector)`` pairs; return the ids, in order."""
        rows = self._check(pairs)
        if not rows:
            return []
        # the old vectors go first, in a statement of their own (why: cypher/embedding_clear)
        await self.graph.write("embedding_own_clear", {"rows": rows})
        stored = await self.graph.write("embedding_own", {"rows": rows})
        if not stored:
            raise MemoryNotFound(await self._first_missing([row[0] for row in rows]))
        return [row["id"] for row in stored]

    def _check(self, pairs: Sequence[tuple[Any, Any]]) -> list[list[Any]]:
        if len(pairs) > (cap := min(MAX_VECTORS, self.limits.max_batch)):
            raise BadUserInput(f"more than {cap} vectors in one call", field="input")
        rows = [[check_uuid(item_id, f"input[{n}].id"), check_vector(vector, f"input[{n}].vector")]
                for n, (item_id, vector) in enumerate(pairs)]  # fmt: skip
        if len({row[0] for row in rows}) != len(rows):
            raise BadUserInput("names an item twice", field="input")
        return rows

    async def _first_missing(self, ids: list[str]) -> str:
        """The first id the caller cannot write (missing, retracted, not theirs),
        in one read."""
        found = {row["id"] for row in await self.graph.read("embedding_own_check", {"ids": ids})}
        # all found: one was retracted between the two statements; name the first
        return next((i for i in ids if i not in found), ids[0])
