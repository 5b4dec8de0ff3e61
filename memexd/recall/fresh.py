"""What was just written, found by meaning at once.

Items are embedded after they are written (:mod:`memexd.recall.embedding`),
so for a moment, up to seconds on a loaded machine, an item just
remembered has no vector. Recall fills that gap itself: the newest items
still waiting that the caller can read and that match the filter (at most
:data:`ITEMS`, :data:`CHARACTERS` of text together) are embedded on the
request's path, in a thread of their own beside the cue's, and compared with
the cue as the index's items are. Writes keep the engine's pace (nothing is
embedded before a write is acknowledged) and a recall pays only for the few
items it may find. Bounded: one such embedding at a time per process (a
recall arriving meanwhile leaves the waiting items to the background
loop), and each vector made is kept, by item and version, for the next
recalls until the loop stores it.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

from memexd.graph import Fragment, Graph
from memexd.recall.model import Embedder, stored_text

__all__ = ["CHARACTERS", "ITEMS", "KEPT", "SCAN", "Fresh", "cosine"]

#: Waiting items one recall embeds at most.
ITEMS = 4
#: Characters of text one recall embeds at most (about 20 ms per 50 here).
CHARACTERS = 400
#: Waiting items one recall looks at.
SCAN = 1_000
#: Vectors kept per process, by item and version.
KEPT = 1_024


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


class Fresh:
    """Per-process: the waiting items' vectors made so far, and the lane."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._kept: OrderedDict[tuple[str, int], list[float]] = OrderedDict()
        self._busy = False

    async def similar(
        self, graph: Graph, where: Fragment, cue: Sequence[float]
    ) -> dict[str, float]:
        """The newest waiting items' similarity to the cue's vector, by id."""
        rows = await graph.read("recall_waiting", {"scan": SCAN, "limit": ITEMS}, filter=where)
        vectors = await self._vectors([(r["id"], int(r["version"]), r["content"]) for r in rows])
        return {key[0]: cosine(cue, vector) for key, vector in vectors.items()}

    async def _vectors(
        self, rows: list[tuple[str, int, str]]
    ) -> dict[tuple[str, int], list[float]]:
        found = {(i, v): self._kept[(i, v)] for i, v, _ in rows if (i, v) in self._kept}
        wanted, budget = [], CHARACTERS
        for item_id, version, content in rows:
            text = stored_text(content)
            if (item_id, version) not in found and len(text) <= budget:
                wanted.append(((item_id, version), text))
                budget -= len(text)
        if wanted and not self._busy:
            found |= await self._embed(wanted)
        return found

    async def _embed(
        self, wanted: list[tuple[tuple[str, int], str]]
    ) -> dict[tuple[str, int], list[float]]:
        self._busy = True
        try:
            made = await self.embedder.passages_now([text for _, text in wanted])
        finally:
            self._busy = False
        vectors = {key: vector for (key, _), vector in zip(wanted, made, strict=True)}
        self._kept.update(vectors)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return vectors
