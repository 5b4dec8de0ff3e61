"""Where filters and sorts meet the engines' indexes (docs/filters.md, "Indexes").

- A scope prefix becomes an index range: every scope starting with ``p``
  sorts at or after ``p`` and before ``p`` with its last character moved one
  up (:func:`prefix_below`).
- Equality on a meta segmentation key (:data:`INDEXED_META`) reads a fixed
  property name that migration 0008 indexes; other meta paths are looked up
  by a computed name, which no index serves.
- A sorted top-k by a score or recency, newest or highest first, is asked
  first within a band at the top of the key's range (:func:`bands`): the
  index hands over that band only, not every match. When the band holds the
  whole page, nothing outside it can belong (everything outside sorts
  strictly lower); otherwise the band widens, and the last try has none.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

__all__ = ["BAND_PAGE", "INDEXED_META", "SELECTIVE", "bands", "prefix_below"]

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

_HOUR_MS = 3_600_000
#: Per sort field: the fragment bounding a band from below, the first band's
#: width and its growth (scores live in [0, 1]; recency counts back in ms).
_BANDS = {
    "authority": ("authority_min", 1 / 1024, 8.0),
    "conviction": ("conviction_min", 1 / 1024, 8.0),
    "importance": ("importance_min", 1 / 1024, 8.0),
    "recency": ("created_after", _HOUR_MS / 6, 8.0),
}
_TRIES = 5


def prefix_below(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix``, or
    None where no such bound is safe in every engine's order."""
    if not prefix or ord(prefix[-1]) >= _SAFE_LAST:
        return None
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def bands(field: str, now_ms: int) -> Iterator[tuple[str, float | int]]:
    """``(fragment, lower bound)`` to try, widening, for a descending sort on
    ``field`` (none for fields without bands). Recency counts back from
    ``now_ms`` in whole ms; score bounds stay above 0, where a missing
    importance sorts."""
    if field not in _BANDS:
        return
    fragment, width, growth = _BANDS[field]
    for _ in range(_TRIES):
        if field == "recency":
            yield fragment, math.floor(now_ms - width)
        elif 1.0 - width > 0:
            yield fragment, 1.0 - width
        else:
            return
        width *= growth
