"""Walking items in id order, a window of id keys at a time.

A query that wants the first few items by id among many cannot ask the
engines for them cheaply: FalkorDB sorts every match of ``ORDER BY n.id
LIMIT k``, and its index answers a range of strings only roughly (the upper
bound takes in a whole subtree of its trie). So items keep their id's first
52 bits as an indexed integer, the id key (``memexd.ids.id_key``):
a range of keys is an exact range of ids, found by index, and a walk over
consecutive windows of keys meets the items in id order, window by window.

:class:`Windows` picks each window to hold about as many items as asked for.
One query (``item_key_ladder``) counts the items in the slices between a
ladder of bounds, each count stopping at twice the items still wanted, so a
query costs a few times the window it finds. The ladder widens fourfold a rung from the
width one item took in the last window found; a slice that crowds past the
cap is cut into 32 and counted again. Where the first items lie is
remembered, so a walk from the first key does not search the empty keys
before them again (it counts them, in one slice). The counts only size
windows: nothing is read through them.
"""

from __future__ import annotations

from dataclasses import dataclass

from memexd.graph import Graph
from memexd.ids import ID_KEY_END

__all__ = ["Window", "Windows"]

#: Rungs of a widening ladder, and how much wider each is than the last.
_RUNGS, _RATIO = 8, 4
#: Slices a crowded slice is cut into.
_CUTS = 32
#: Ladders counted before taking what the last one found.
_LADDERS = 12
#: A count stops at this many times the items still wanted.
_CAP = 2


@dataclass(frozen=True, slots=True)
class Window:
    """The keys ``lo <= key < hi``, holding ``held`` items (or more, when a
    count stopped at its cap)."""

    lo: int
    hi: int
    held: int


class Windows:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        #: keys per item in the last window found (a guess, right or wrong)
        self.width_per_item = float(1 << 20)
        #: no key below this held an item when last looked (checked each walk)
        self.first = 0

    async def after(self, lo: int, target: int) -> Window:
        """The window from ``lo`` holding about ``target`` items: at least
        ``target`` unless it reaches the last key, and less than twice what
        was still wanted at the slice that reached it, unless one key holds
        more."""
        need = target
        bounds = self._widening(lo, target)
        for _ in range(_LADDERS):
            cap = _CAP * need
            rows = await self.graph.read("item_key_ladder", {"bounds": bounds, "cap": cap})
            for row in sorted(rows, key=lambda r: int(r["lo"])):
                a, b, held = int(row["lo"]), int(row["hi"]), int(row["held"])
                if lo == 0 and held and need == target:  # the first items lie past a
                    self.first = a
                if held < need:
                    need -= held
                    continue
                if held >= _CAP * need and b - a > 1:  # a crowd in this slice: cut it
                    bounds = _cut(a, b)
                    break
                return self._found(Window(lo, b, target - need + held))
            else:  # the ladder ended short of the target: widen from its top
                top = bounds[-1]
                if top >= ID_KEY_END:
                    return self._found(Window(lo, ID_KEY_END, target - need))
                bounds = _widen(top, (top - lo) * _RATIO)
        return self._found(Window(lo, bounds[-1], target - need))

    def _widening(self, lo: int, target: int) -> list[int]:
        base = max(1, int(self.width_per_item * target / _RATIO))
        if lo == 0 and self.first > 0:
            return [0, *_widen(self.first, base)]
        return _widen(lo, base)

    def _found(self, window: Window) -> Window:
        start = max(window.lo, self.first)
        if window.held and window.hi < ID_KEY_END and start < window.hi:
            self.width_per_item = (window.hi - start) / window.held
        return window


def _widen(lo: int, base: int) -> list[int]:
    """``lo`` and bounds ``base * RATIO**k`` past it, the last key at most."""
    bounds = {min(ID_KEY_END, lo + base * _RATIO**k) for k in range(_RUNGS)}
    return [lo, *sorted(bounds)]


def _cut(lo: int, hi: int) -> list[int]:
    """``[lo, hi)`` cut into up to ``CUTS`` slices."""
    step = max(1, -(-(hi - lo) // _CUTS))
    return sorted({*range(lo, hi, step), hi})
