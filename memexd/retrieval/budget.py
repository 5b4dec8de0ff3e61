"""Greedy budget packing, as MemEX does it: walk the candidates in their final
order and take each whose cost fits what is left (``cost <= remaining``,
then ``remaining -= cost``, in floating point as MemEX does). A zero-cost
item always fits. Costs are checked where they are worked out
(:mod:`memexd.retrieval.cost`): a bad one fails the whole request.
"""

from __future__ import annotations

from dataclasses import dataclass

from memexd.errors import ResourceExhausted
from memexd.retrieval.diversity import Penalty
from memexd.retrieval.stream import Row

__all__ = ["Entry", "Packer"]


@dataclass(slots=True)
class Entry:
    """A candidate on its way through the pipeline."""

    row: Row
    cost: float = 0.0
    #: the item it lost a contradiction to (FILTER)
    lost_to: str | None = None
    penalty: Penalty | None = None
    #: the score after diversity penalties (the score before, without them)
    adjusted: float = 0.0
    #: the budget left when its turn came (``None``: it never came)
    turn: float | None = None
    taken: bool = False

    @property
    def id(self) -> str:
        return self.row.id


class Packer:
    def __init__(self, budget: float, max_items: int) -> None:
        self.remaining = budget
        self.max_items = max_items
        self.taken: list[Entry] = []
        #: whether any candidate has been turned away (the budget is tight)
        self.refused = False

    def offer(self, entry: Entry) -> None:
        entry.turn = self.remaining
        if entry.cost <= self.remaining:
            if len(self.taken) >= self.max_items:
                raise ResourceExhausted(
                    f"the budget takes more than {self.max_items} items "
                    "(MEMEXD_MAX_PAGE): lower the budget or narrow the filter"
                )
            entry.taken = True
            self.taken.append(entry)
            self.remaining -= entry.cost
        else:
            self.refused = True

    def fits(self, entry: Entry) -> bool:
        return entry.cost <= self.remaining
