"""Numbers read back to the last digit.

FalkorDB prints every double in a reply with 15 significant digits, so a score
such as ``0.8 * 0.1 = 0.08000000000000002`` would come back as ``0.08``.
Statements return stored doubles through ``shapes/exact``, as whole numbers,
which print exactly; these functions rebuild the double. Neo4j carries
doubles exactly, so its ``shapes/exact`` passes the number as it is.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["exact", "exact_or_none"]

_HALF = float(2**27)


def exact(cell: float | list[Any]) -> float:
    """The number a ``shapes/exact`` cell carries: ``cell·2^-62`` for a whole
    number, ``(hi·2^27 + lo)·2^(e-52)`` for ``[hi, lo, e]``, a double as itself."""
    if isinstance(cell, float):
        return cell
    if isinstance(cell, int):
        return math.ldexp(cell, -62)
    hi, lo, e = cell
    return math.ldexp(hi * _HALF + lo if hi else lo, e - 52)  # lo alone keeps -0.0


def exact_or_none(cell: float | list[Any] | None) -> float | None:
    return None if cell is None else exact(cell)
