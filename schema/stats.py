"""Graph statistics in GraphQL: ``GraphStats`` with its item and edge counts."""

from __future__ import annotations

import strawberry
from memexd.schema.common import Info

from memexd.memory import stats as domain
from memexd.recall.embedding import backlog

__all__ = ["CountMap", "EdgeStats", "EmbeddingStats", "GraphStats", "ItemStats"]


@strawberry.type(description="How many of something have this key.")
class CountMap:
    key: str = strawberry.field(description="The kind, source kind, author or scope.")
    count: int = strawberry.field(description="How many.")

    @classmethod
    def all(cls, counts: domain.Counts) -> list[CountMap]:
        return [cls(key=k, count=n) for k, n in counts]


@strawberry.type(description="Counts over the live items the caller can read.")
class ItemStats:
    total: int = strawberry.field(description="Live items.")
    by_kind: list[CountMap] = strawberry.field(
        description="Per kind, in order of first appearance."
    )
    by_source_kind: list[CountMap] = strawberry.field(description="Per source kind.")
    by_author: list[CountMap] = strawberry.field(description="Per author.")
    by_scope: list[CountMap] = strawberry.field(description="Per scope.")
    with_parents: int = strawberry.field(description="Items listing at least one parent.")
    root: int = strawberry.field(description="Items listing none (or no parents list).")

    @classmethod
    def of(cls, s: domain.ItemStats) -> ItemStats:
        return cls(total=s.total, by_kind=CountMap.all(s.by_kind),
                   by_source_kind=CountMap.all(s.by_source_kind),
                   by_author=CountMap.all(s.by_author), by_scope=CountMap.all(s.by_scope),
                   with_parents=s.with_parents, root=s.root)  # fmt: skip


@strawberry.type(description="Counts over the live edges whose two ends the caller can read.")
class EdgeStats:
    total: int = strawberry.field(description="Live edges, active or not.")
    active: int = strawberry.field(description="Of those, the active ones.")
    by_kind: list[CountMap] = strawberry.field(
        description="Per kind, in order of first appearance."
    )

    @classmethod
    def of(cls, s: domain.EdgeStats) -> EdgeStats:
        return cls(total=s.total, active=s.active, by_kind=CountMap.all(s.by_kind))


@strawberry.type(description="Recall's embeddings over the live items the caller can read.")
class EmbeddingStats:
    waiting: int = strawberry.field(
        description='Items written or changed and not embedded yet (README, "Recall").'
    )
    embedded: int = strawberry.field(description="Items with an embedding.")


@strawberry.type(description="MemEX's getStats, computed in the database over the caller's grants.")
class GraphStats:
    """Each part is its own aggregation over the graph, run only when asked
    for: a client polling ``embeddings`` must not scan every item and edge."""

    @strawberry.field(description="Item counts.")
    async def items(self, info: Info) -> ItemStats:
        return ItemStats.of(await domain.Stats(info.context.memex.graph).items())

    @strawberry.field(description="Edge counts.")
    async def edges(self, info: Info) -> EdgeStats:
        return EdgeStats.of(await domain.Stats(info.context.memex.graph).edges())

    @strawberry.field(description="Embedding counts.")
    async def embeddings(self, info: Info) -> EmbeddingStats:
        counts = await backlog(info.context.memex.graph)
        return EmbeddingStats(waiting=counts.waiting, embedded=counts.embedded)
