"""Where filters and sorts meet the engines' indexes (docs/filters.md, "Indexes").

- A scope prefix becomes an index lookup. Items keep their scope's root
  (``scope_root``: the first segment, before the first '/'; migration 0011),
  so a root and its '/' (``tenant:t1/``) is one value of that index, and a
  prefix without '/' a range over the few roots starting with it. Any other
  prefix is a range of scopes: every scope starting with ``p`` sorts at or
  after ``p`` and before ``p`` with its last character moved one up
  (:func:`prefix_below`). On FalkorDB a string range is the union of every
  value in it, so a tenant's whole range (one value per agent or session
  scope) cost 20 ms at 1M items where its root costs under 1.
- Equality on a meta segmentation key (:data:`INDEXED_META`) reads a fixed
  property name that migration 0008 indexes; other meta paths are looked up
  by a computed name, which no index serves.
- A sorted top-k by a score or recency, newest or highest first, is asked
  first within a band at the top of the key's range (:class:`Bands`): the
  index hands over that band only, not every match. When the band holds the
  whole page, nothing outside it can belong (everything outside sorts
  strictly lower); otherwise the band widens as far as what it held
  suggests, and the last try has none.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["BAND_PAGE", "INDEXED_META", "SELECTIVE", "Band", "Bands", "prefix_below"]

#: Meta paths whose equality filters are served by an index (MemEX's
#: segmentation keys). Each has its fragment ``meta_<key>_eq``.
INDEXED_META = frozenset({"agent_id", "session_id", "crew_id"})

#: Equalities on indexed properties that few items share. A scope prefix
#: AND-ed with one of them is checked on its candidates instead of walked as
#: a range: on FalkorDB a string range is the union of every value in it
#: (every scope of a tenant), which costs more than the equality saves.
SELECTIVE = frozenset(
    {"ids_in", "scope_eq", "author_eq", "intent_eq", "task_eq"}
    | {f"meta_{key}_eq" for key in INDEXED_META}
)

#: Pages up to this size (offset included) are tried in bands first.
BAND_PAGE = 200

# Above U+D7FF the engines' string orders part (code points vs UTF-16 units).
_SAFE_LAST = 0xD7FF

_MINUTE_MS = 60_000
#: Per sort field: the fragment bounding a band from below and the first
#: band's width (scores live in [0, 1]; recency counts back in ms).
_BANDS = {
    "authority": ("authority_min", 1 / 1024),
    "conviction": ("conviction_min", 1 / 1024),
    "importance": ("importance_min", 1 / 1024),
    "recency": ("created_after", _MINUTE_MS),
}
_TRIES = 5
#: Growth bounds from one band to the next, and the growth after an empty one.
_GROWTH = (2.0, 64.0)
_EMPTY_GROWTH = 8.0


def prefix_below(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix``, or
    None where no such bound is safe in every engine's order."""
    if not prefix or ord(prefix[-1]) >= _SAFE_LAST:
        return None
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


@dataclass(frozen=True, slots=True)
class Band:
    """One try: ``fragment`` with its lower bound ``low``. ``narrow``: expected
    to hold few items (the first two bands, or one grown from a band that held
    matches), so a scope prefix is checked on its candidates rather than
    walked as an index range (:data:`SELECTIVE` says why)."""

    fragment: str
    low: float | int
    narrow: bool


class Bands:
    """Widening bands for a descending sort on ``field`` (none for fields
    without bands), each grown from what the last one held: a band that held
    ``held`` of the ``wanted`` rows is followed by one about ``1.5·wanted/held``
    times as wide (2 to 64 times; 8 after an empty one). Recency counts back
    from ``now_ms`` in whole ms; score bounds stay above 0, where a missing
    importance sorts. Tell each band's count with :meth:`held`."""

    def __init__(self, field: str, now_ms: int, wanted: int) -> None:
        self.field, self.now_ms, self.wanted = field, now_ms, wanted
        self._held = 0

    def held(self, count: int) -> None:
        self._held = count

    def __iter__(self) -> Iterator[Band]:
        if self.field not in _BANDS:
            return
        fragment, width = _BANDS[self.field]
        for k in range(_TRIES):
            narrow = k < 2 or self._held > 0
            if self.field == "recency":
                yield Band(fragment, math.floor(self.now_ms - width), narrow)
            elif 1.0 - width > 0:
                yield Band(fragment, 1.0 - width, narrow)
            else:
                return
            growth = 1.5 * self.wanted / self._held if self._held else _EMPTY_GROWTH
            width *= min(_GROWTH[1], max(_GROWTH[0], growth))
