"""Optimistic concurrency: read, plan, then write only if nothing changed.

Engines without multi-statement transactions (FalkorDB) cannot hold a read
and a write together, so commands that depend on what they read write with a
version check (``WHERE n.version = $version``) and start over when it fails.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from memexd.errors import Conflict

__all__ = ["ATTEMPTS", "compare_and_set"]

T = TypeVar("T")

#: Rounds before giving up with ``CONFLICT``. Every round some writer wins, so
#: this many writers racing on one thing all get through.
ATTEMPTS = 64


async def compare_and_set(attempt: Callable[[], Awaitable[T | None]], what: str) -> T:
    """Run ``attempt`` (read, plan, conditional write) until it returns a
    result; ``None`` means its write found the state changed since its read.
    Losers wait a little, at random, so racing writers spread out."""
    for round_ in range(ATTEMPTS):
        result = await attempt()
        if result is not None:
            return result
        await asyncio.sleep(random.uniform(0, 0.001 * min(round_ + 1, 20)))  # noqa: S311
    raise Conflict(f"{what} kept changing under concurrent writers; try again")
