"""The integrity questions in GraphQL: provenance graphs, stale items,
contradictions and cascade results."""

from __future__ import annotations

from collections.abc import Sequence

import strawberry
from memexd.schema.common import Info
from memexd.schema.edges import Edge
from memexd.schema.events import Event
from memexd.schema.items import MemoryItem

from memexd.events.vocabulary import Event as EventRecord
from memexd.integrity.contradictions import Contradiction as ContradictionRecord
from memexd.integrity.provenance import StaleItem as StaleItemRecord
from memexd.integrity.provenance import SupportTree

__all__ = [
    "CascadeResult",
    "Contradiction",
    "ProvenanceGraph",
    "ProvenanceLink",
    "ProvenanceNode",
    "StaleItem",
]


@strawberry.type(description="A child→parent link of a support tree.")
class ProvenanceLink:
    child: strawberry.ID = strawberry.field(description="The item that lists the parent.")
    parent: strawberry.ID = strawberry.field(description="The parent it lists.")


@strawberry.type(description="An item of a support tree with its distance from the root.")
class ProvenanceNode:
    item: MemoryItem = strawberry.field(description="The supporting item.")
    depth: int = strawberry.field(description="Fewest parent steps from the root (root: 0).")


@strawberry.type(
    description="A support tree as a flat graph: nodes with depth, child→parent links."
)
class ProvenanceGraph:
    root: strawberry.ID = strawberry.field(description="The item whose support this is.")
    nodes: list[ProvenanceNode] = strawberry.field(description="Live items, breadth first.")
    links: list[ProvenanceLink] = strawberry.field(description="Links between the nodes.")
    truncated: bool = strawberry.field(
        description="True when maxDepth or the traversal limits cut the tree short."
    )

    @classmethod
    def of(cls, tree: SupportTree, include_archived: bool | None = True) -> ProvenanceGraph:
        """The tree; without ``include_archived``, archived items (the root
        aside: asked for by id) and their links left out."""
        kept = [(i, d) for i, d in tree.nodes
                if include_archived or not i.archived or i.id == tree.root]  # fmt: skip
        ids = {i.id for i, _ in kept}
        return cls(
            root=strawberry.ID(tree.root),
            nodes=[ProvenanceNode(item=MemoryItem.of(i), depth=d) for i, d in kept],
            links=[
                ProvenanceLink(child=strawberry.ID(c), parent=strawberry.ID(p))
                for c, p in tree.links
                if c in ids and p in ids
            ],
            truncated=tree.truncated,
        )


@strawberry.type(description="An active contradiction: two live items and the edge between.")
class Contradiction:
    a: MemoryItem = strawberry.field(description="The item the CONTRADICTS edge leaves.")
    b: MemoryItem = strawberry.field(description="The item it points at (may be `a` itself).")
    edge: Edge = strawberry.field(description="The CONTRADICTS edge.")

    @classmethod
    def of(cls, c: ContradictionRecord) -> Contradiction:
        return cls(a=MemoryItem.of(c.a), b=MemoryItem.of(c.b), edge=Edge.of(c.edge))


@strawberry.type(description="A live item that names a missing or retracted parent.")
class StaleItem:
    item: MemoryItem = strawberry.field(description="The stale item.")
    missing_parents: list[strawberry.ID] = strawberry.field(
        description="Its parents that are missing or retracted, in list order."
    )

    @classmethod
    def of(cls, s: StaleItemRecord) -> StaleItem:
        return cls(item=MemoryItem.of(s.item),
                   missing_parents=[strawberry.ID(p) for p in s.missing_parents])  # fmt: skip


@strawberry.type(description="What a cascade retracted, and the events it emitted.")
class CascadeResult:
    """Its events are made only if selected: a cascade of 10,000 items is
    often asked for ``retracted`` alone."""

    retracted: list[strawberry.ID] = strawberry.field(
        description="Retracted ids, children before parents."
    )
    emitted: strawberry.Private[Sequence[EventRecord]]

    @strawberry.field(description="One `memory.retracted` per item.")
    async def events(self, info: Info) -> list[Event]:
        return await Event.returned(info, self.emitted)
