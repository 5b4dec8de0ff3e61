"""Promotion in GraphQL: ``promoteItem``, ``promoteFromTask`` and their
result (memexd.memory.promotion)."""

from __future__ import annotations

import strawberry
from memexd.schema.edges import Edge
from memexd.schema.items import MemoryItem

from memexd.memory.promotion import Promoted

__all__ = ["PromotionResult"]


@strawberry.type(description='One promotion (README, "Lifecycle"): a new PROJECT item holding '
                 "the source's content, with a DISCOVERED_FROM edge to it.")  # fmt: skip
class PromotionResult:
    source: MemoryItem = strawberry.field(description="The item promoted.")
    promoted: MemoryItem | None = strawberry.field(
        description="The PROJECT item (the one made earlier when the source already had a "
        "live promotion); null on a dry run."
    )
    edge: Edge | None = strawberry.field(
        description="Its DISCOVERED_FROM edge to the source; null on a dry run."
    )
    dry_run: bool = strawberry.field(description="Nothing was written.")

    @classmethod
    def of(cls, p: Promoted) -> PromotionResult:
        return cls(source=MemoryItem.of(p.source),
                   promoted=None if p.item is None else MemoryItem.of(p.item),
                   edge=None if p.edge is None else Edge.of(p.edge), dry_run=p.dry_run)  # fmt: skip
