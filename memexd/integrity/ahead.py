"""Reads about a walk's items, started while the walk goes on.

A long walk is many short round trips, each waiting on the engine, and what
follows it (the items of a support set, a cascade's plan) is one big read
of everything it reached. Told each batch of items as the walk finds them,
:class:`Ahead` reads them in parts of ``part`` on the side, at most
``AT_ONCE`` at a time: the engine answers a part on another thread while the
walk goes on, so the caller waits for about the longer of the two, not
their sum. What is left when the walk ends is read then, in parts at once.

Reads started early are as consistent as reads after the walk: neither is
atomic with it (a cascade's write checks what it read at the versions read).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Generic, TypeVar

__all__ = ["AT_ONCE", "PART", "Ahead"]

#: Items per read: a walk's support set, dependents or alias group (item
#: records), or a cascade's plan.
PART = 2_500
#: Parts read on the side at a time while the walk goes on (the walk's own
#: round trips keep one engine thread busy).
AT_ONCE = 1

T = TypeVar("T")


class Ahead(Generic[T]):
    """``read`` (ids → found values by id) over every id :meth:`add` is told,
    in parts; :meth:`result` merges them. Use as ``async with``: a walk that
    fails cancels the reads it started."""

    def __init__(
        self, read: Callable[[list[str]], Awaitable[dict[str, T]]], part: int = PART
    ) -> None:
        self._read, self._part = read, part
        self._pending: list[str] = []
        self._running: list[asyncio.Task[dict[str, T]]] = []
        self._found: dict[str, T] = {}

    def add(self, ids: Iterable[str]) -> None:
        self._pending.extend(ids)
        self._collect()
        if len(self._pending) >= self._part and len(self._running) < AT_ONCE:
            part, self._pending = self._pending[: self._part], self._pending[self._part :]
            self._running.append(asyncio.ensure_future(self._read(part)))

    async def result(self) -> dict[str, T]:
        """Everything read: the parts under way, then the rest at once."""
        ids, self._pending = self._pending, []
        rest = [self._read(ids[i : i + self._part]) for i in range(0, len(ids), self._part)]
        running, self._running = self._running, []
        for found in await asyncio.gather(*running, *rest):
            self._found.update(found)
        return self._found

    def _collect(self) -> None:
        for task in [t for t in self._running if t.done()]:
            self._running.remove(task)
            self._found.update(task.result())

    async def __aenter__(self) -> Ahead[T]:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for task in self._running:
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
