"""Trust along provenance (SPEC §14): how far to trust a conclusion.

An item with no live parents is as trusted as its own authority; otherwise
as the weakest link of its best support path: ``min(own, max over live
parents of the parent's effective authority)``. The value is then halved
once for each item on the other side of an active contradiction whose own
authority is higher, and children see the halved value. ``path`` is the best
support path, root first (ties: the parent listed first).

One walk up the parents for every item asked about (a loader asks for a page
of items at once), then one pass over what it reached, each item once: linear
in the provenance reached, however many paths lead through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memexd.integrity.contradictions import Contradictions
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk
from memexd.memory.model import Item

__all__ = ["Trust", "Trusted"]


@dataclass(frozen=True, slots=True)
class Trusted:
    #: the effective authority
    value: float
    #: the best support path, root first, ending at the item
    path: tuple[str, ...]


class Trust:
    def __init__(self, provenance: Provenance, contradictions: Contradictions) -> None:
        self.provenance = provenance
        self.contradictions = contradictions

    async def of(self, ids: Sequence[str]) -> dict[str, Trusted]:
        """The trust of each live, readable item among ``ids`` (ids memexd
        holds: of items a request read, or checked by the tool that asks)."""
        async with self.provenance.slots:
            reach = await self.provenance.complete(ids, Walk.PARENTS, "support (trust)")
        items = await self.provenance.reads.fetch(list(reach.depth))
        against = await self.contradictions.contradicted_by(list(items))
        parents: dict[str, list[str]] = {i: [] for i in items}
        for child, parent in reach.links():
            if child in items and parent in items:
                parents[child].append(parent)
        solved = _Solver(items, parents, against).solve(ids)
        return {i: solved[i] for i in ids if i in solved}


class _Solver:
    def __init__(
        self, items: dict[str, Item], parents: dict[str, list[str]],
        against: dict[str, list[Item]],
    ) -> None:  # fmt: skip
        self.items = items
        self.parents = {i: _listed_order(items[i], ps) for i, ps in parents.items()}
        self.against = against
        self.done: dict[str, Trusted] = {}

    def solve(self, roots: Sequence[str]) -> dict[str, Trusted]:
        for root in roots:
            if root in self.items:
                self._post_order(root)
        return self.done

    def _post_order(self, root: str) -> None:
        """Parents before children, iteratively (a 10k chain is deep); a link
        back to an item still open (a cycle) is left out."""
        open_: set[str] = {root}
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            item_id, next_parent = stack[-1]
            ps = self.parents[item_id]
            if next_parent < len(ps):
                stack[-1] = (item_id, next_parent + 1)
                p = ps[next_parent]
                if p not in self.done and p not in open_:
                    open_.add(p)
                    stack.append((p, 0))
                continue
            stack.pop()
            open_.discard(item_id)
            self.done[item_id] = self._trusted(item_id)

    def _trusted(self, item_id: str) -> Trusted:
        item = self.items[item_id]
        best: Trusted | None = None
        for p in self.parents[item_id]:
            seen = self.done.get(p)  # absent: a cycle's way back
            if seen is not None and (best is None or seen.value > best.value):
                best = seen
        value = item.authority if best is None else min(item.authority, best.value)
        against = self.against.get(item_id, ())
        higher = sum(1 for other in against if other.authority > item.authority)
        path = (item_id,) if best is None else (*best.path, item_id)
        return Trusted(value / 2**higher, path)


def _listed_order(item: Item, parents: list[str]) -> list[str]:
    """The reached parents in the order the item lists them."""
    listed = {p: n for n, p in enumerate(item.parents or ())}
    return sorted(dict.fromkeys(parents), key=lambda p: (listed.get(p, len(listed)), p))
