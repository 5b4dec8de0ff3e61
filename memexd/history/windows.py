"""Walking items in id order, a window of id keys at a time.

A query that wants the first few items by id among many cannot ask the
engines for them cheaply: FalkorDB sorts every match of ``ORDER BY n.id
LIMIT k``, and its index answers a range of strings only roughly (the upper
bound takes in a whole subtree of its trie). So items keep their id's first
52 bits as an indexed integer, the id key (``cypher/shapes/id_key.cypher``):
a range of keys is an exact range of ids, found by index, and a walk over
consecutive windows of keys meets the items in id order, window by window.

:class:`Windows` picks each window to hold about as many items as asked for.
One query (``item_key_ladder``) counts the items up to a ladder of eight
bounds, each count stopping at four times the target, so it costs about the
window it finds; the width one item took last time is the next guess, so a
walk seldom needs a second ladder. The counts only size windows: nothing is
read through them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memexd.graph import Graph
from memexd.ids import ID_KEY_END

__all__ = ["Window", "Windows"]

#: Bounds per ladder, and the ratio between neighbours on a first ladder.
_RUNGS, _RATIO = 8, 4.0
#: Ladders tried before taking what the last one found.
_LADDERS = 6
#: A count stops at this many times the target.
_CAP = 4


@dataclass(frozen=True, slots=True)
class Window:
    """The keys ``lo <= key < hi``, holding ``held`` items (or more, when
    ``held`` is where the count stopped)."""

    lo: int
    hi: int
    held: int


class Windows:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        #: keys per item in the last window found (a guess, right or wrong)
        self.width_per_item = float(1 << 20)

    async def after(self, lo: int, target: int) -> Window:
        """The window from ``lo`` holding about ``target`` items: at least
        ``target`` unless it reaches the last key; past the target only as
        far as one rung of the ladder, or a crowd of items under one rung."""
        base = max(1.0, self.width_per_item * target / _RATIO**2)
        ratio = _RATIO
        found = Window(lo, ID_KEY_END, 0)
        for _ in range(_LADDERS):
            rungs = await self._counts(lo, _ladder(lo, base, ratio), target * _CAP)
            below = [w for w in rungs if w.held < target]
            above = [w for w in rungs if w.held >= target]
            if not above:  # the ladder is too short: climb from its top
                found = rungs[-1]
                if found.hi >= ID_KEY_END:
                    break
                base, ratio = float(found.hi - lo) * _RATIO, _RATIO
                continue
            found = above[0]
            crowded = found.held >= target * _CAP and found.hi - lo > 1
            if not crowded:
                break
            # a crowd between the last rung below and this one: look closer
            width = float(found.hi - lo)
            base = float(below[-1].hi - lo) if below else max(1.0, width / _RATIO ** (_RUNGS - 1))
            ratio = max(1.0 + 1e-9, (width / base) ** (1 / (_RUNGS - 1)))
        self._remember(found)
        return found

    async def _counts(self, lo: int, bounds: list[int], cap: int) -> list[Window]:
        rows = await self.graph.read("item_key_ladder", {"lo": lo, "bounds": bounds, "cap": cap})
        return sorted((Window(lo, int(r["hi"]), int(r["held"])) for r in rows),
                      key=lambda w: w.hi)  # fmt: skip

    def _remember(self, window: Window) -> None:
        if window.held and window.hi < ID_KEY_END:
            self.width_per_item = max(1.0, (window.hi - window.lo) / window.held)


def _ladder(lo: int, base: float, ratio: float) -> list[int]:
    """Upper bounds ``lo + base * ratio**k``, increasing, the last key at most."""
    bounds = {min(ID_KEY_END, lo + max(1, math.ceil(base * ratio**k))) for k in range(_RUNGS)}
    return sorted(bounds)
