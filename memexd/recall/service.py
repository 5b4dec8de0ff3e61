"""``recall``: what do I remember about this cue?

Two candidate lists come from the engine, each under the caller's grants and
filter: the items nearest the cue's embedding (the vector index, or an exact
scan when the filter is too selective for it: no post-filter starvation) and
the items whose content holds the cue's words (the full-text index, within
the bounds :mod:`memexd.recall.words` sets). They
are fused by reciprocal rank, then weighed by the item's authority and
sunk when a readable live item contradicts or supersedes it. Every hit's
``why`` names each component and its weight (:mod:`memexd.recall.fusion`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any

from memexd.errors import BadUserInput, Unsupported
from memexd.graph import Fragment, Graph
from memexd.integrity.trust import Trust
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.validation import Limits, check_limit, check_score
from memexd.recall.fresh import Fresh
from memexd.recall.fusion import FLOOR, Candidate, Hit, fuse
from memexd.recall.model import Embedder, check_vector
from memexd.recall.statistics import Statistics
from memexd.recall.words import text_candidates

__all__ = ["MAX_CUE", "MAX_LIMIT", "POOL", "SCAN", "Recall", "RecallMode", "RecallRequest"]

#: Characters a cue may hold.
MAX_CUE = 2_000
#: Hits one recall may return.
MAX_LIMIT = 100
#: Candidates each side contributes to the fusion (at least the limit).
POOL = 50
#: Items the vector index is asked for before filtering.
NEAREST = 200
#: Items an exact vector scan compares at most (newest first).
SCAN = 20_000


class RecallMode(Enum):
    HYBRID = "HYBRID"
    VECTOR = "VECTOR"
    TEXT = "TEXT"


@dataclass(frozen=True, slots=True)
class RecallRequest:
    cue: Any
    filter: MemoryFilter | None = None
    limit: Any = None
    mode: RecallMode = RecallMode.HYBRID
    vector: Any = None
    #: The instant decay is measured at (epoch ms; the server's clock when None).
    now: int | None = None
    #: Weigh hits by effective authority (trust along provenance) instead of their own.
    trust: bool = False
    #: Hits whose relevance is below this are left out (None: the server's FLOOR).
    min_score: Any = None


class Recall:
    def __init__(
        self, graph: Graph, limits: Limits, embedder: Embedder | None, text_search: bool,
        trust: Trust, statistics: Statistics, fresh: Fresh | None = None,
    ) -> None:  # fmt: skip
        self.fresh = fresh
        self.trust = trust
        self.statistics = statistics
        self.graph = graph
        self.limits = limits
        self.embedder = embedder
        self.text_search = text_search

    async def recall(self, request: RecallRequest) -> list[Hit]:
        cue = _cue(request.cue)
        limit = (
            10 if request.limit is None else check_limit(request.limit, "limit", maximum=MAX_LIMIT)
        )
        given = None if request.vector is None else check_vector(request.vector, "vector")
        floor = None if request.min_score is None else check_score(request.min_score, "minScore")
        now = time.time_ns() // 1_000_000 if request.now is None else request.now
        where = to_cypher(prepare(request.filter, self.limits, now), self.graph)
        sides = self._sides(request.mode, given is not None)
        pool = max(POOL, limit)
        # the two sides are independent reads: the engine runs them at once
        by_vector, by_text = await asyncio.gather(
            self._nearest(cue, given, where, pool) if "vector" in sides else _none(),
            (
                text_candidates(self.graph, cue, where, pool, self.statistics)
                if "text" in sides
                else _none()
            ),
        )
        ids = list(dict.fromkeys(c.id for c in by_vector + by_text))
        weighing = {"ids": ids, "now": now, "half_life": self.limits.decay_half_life_ms}
        rows = await self.graph.read("recall_items", weighing) if ids else []
        trusted = await self.trust.of([r["item"]["id"] for r in rows]) if request.trust else None
        hits = fuse(rows, by_vector, by_text, sides, trusted)
        if floor is None and "vector" in sides:
            hits = _judged(hits)  # words alone answer what holds the words
        return (hits if floor is None else [h for h in hits if h.relevance >= floor])[:limit]

    def _sides(self, mode: RecallMode, given: bool) -> frozenset[str]:
        vector = given or self.embedder is not None
        if mode is RecallMode.VECTOR and not vector:
            raise Unsupported("recall by meaning is off on this server (MEMEXD_EMBEDDING=off)")
        if mode is RecallMode.TEXT and not self.text_search:
            raise Unsupported("text search is off on this server (MEMEXD_TEXT_SEARCH=false)")
        wanted = {"vector", "text"} if mode is RecallMode.HYBRID else {mode.value.lower()}
        usable = {
            s for s in wanted if (s == "vector" and vector) or (s == "text" and self.text_search)
        }
        if not usable:
            raise Unsupported("recall needs embeddings or text search, and both are off")
        return frozenset(usable)

    async def _embed(self, cue: str) -> list[float]:
        if self.embedder is None:  # _sides said so already
            raise Unsupported("recall by meaning is off on this server")
        return await self.embedder.query(cue)

    async def _nearest(
        self, cue: str, given: list[float] | None, where: Fragment, pool: int
    ) -> list[Candidate]:
        vector = given if given is not None else await self._embed(cue)
        params = {"vector": vector, "k": max(NEAREST, pool), "limit": pool}
        rows, fresh = await asyncio.gather(
            self.graph.read("recall_vector", params, filter=where),
            self.fresh.similar(self.graph, where, vector) if self.fresh else _nothing(),
        )
        if len(rows) < pool:
            # the index's nearest were mostly filtered away (or fewer exist):
            # compare the filtered items themselves
            exact = {"vector": vector, "scan": SCAN, "limit": pool}
            rows = await self.graph.read("recall_vector_exact", exact, filter=where)
        # a waiting item's new vector counts over the old one the index holds
        # the best per id: FalkorDB's index may still hold an item's older vector
        similar: dict[str, float] = {}
        for row in rows:
            similar.setdefault(row["id"], float(row["similarity"]))
        similar |= fresh
        ranked = sorted(similar.items(), key=lambda p: (-p[1], p[0]))[:pool]
        return [Candidate(i, value, rank) for rank, (i, value) in enumerate(ranked, 1)]


def _judged(hits: list[Hit]) -> list[Hit]:
    """The cue judged by its best hit: when none reaches ``FLOOR``, nothing
    held is about the cue and there is no hit; otherwise every hit stays
    (evidence often ranks below the best, and less sure of itself)."""
    return hits if any(hit.relevance >= FLOOR for hit in hits) else []


async def _none() -> list[Candidate]:
    return []


async def _nothing() -> dict[str, float]:
    return {}


def _cue(cue: Any) -> str:
    if not isinstance(cue, str):
        raise BadUserInput("must be a string", field="cue")
    if not cue.strip():
        raise BadUserInput("must not be empty", field="cue")
    if len(cue) > MAX_CUE:
        raise BadUserInput(f"longer than {MAX_CUE} characters", field="cue")
    return cue.replace("\0", " ")
