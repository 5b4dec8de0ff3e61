"""Writes that arrive together are committed together (group commit).

On Neo4j every write takes the event log's lock first (:mod:`memexd.graph.neo4j`),
so writes run one at a time, and each would pay a whole commit alone (the
transaction log forced to disk) while the others wait for the lock. Here the
writes of one process go one transaction at a time instead: those that arrive
while a transaction runs wait, and go together in the next. Its statements
run one after the other, each as it would alone (it reads what those before
it wrote, and places its events after theirs), and one commit makes them all
durable. A statement's rows reach its caller only once that commit succeeded.

If the engine rolls a group back (a statement failed, the time or memory
limit, a deadlock with another process), nothing of it was written: each
statement is sent again alone, so each caller gets its own answer and a
failure stays with the statement that caused it. Any other failure (the
connection broke, perhaps during the commit) is every caller's answer, as
it would be for a write sent alone: the outcome is unknown.

Each group runs in a context of its own, waiting for the bookmarks its
callers carried; what its commit leaves is handed to each of them.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from memexd.graph import bookmarks
from memexd.types import Params, Row

__all__ = ["MOST", "GroupCommit", "RolledBack"]

#: Statements in one transaction at most.
MOST = 64


class RolledBack(Exception):
    """The engine rolled a group's transaction back: nothing of it was written."""


@dataclass(slots=True)
class Write:
    """One caller's statement, waiting for its group's commit."""

    text: str
    params: Params
    done: asyncio.Future[list[Row]]
    carried: bookmarks.Carried | None = field(default=None)


#: Runs a group in one transaction: each statement's rows, in order.
RunGroup = Callable[[list[Write]], Awaitable[list[list[Row]]]]
#: Runs one statement alone, in a transaction of its own.
RunAlone = Callable[[str, Params], Awaitable[list[Row]]]


class GroupCommit:
    """The write queue of one store."""

    def __init__(self, group: RunGroup, alone: RunAlone, most: int = MOST) -> None:
        self._group, self._alone, self._most = group, alone, most
        self._waiting: list[Write] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, text: str, params: Params) -> list[Row]:
        loop = asyncio.get_running_loop()
        write = Write(text, params, loop.create_future(), bookmarks.current())
        self._waiting.append(write)
        if self._flusher is None or self._flusher.done():
            # a context of its own: the groups are no one caller's
            self._flusher = loop.create_task(self._flush(), context=contextvars.Context())
        return await write.done

    async def drain(self) -> None:
        """Wait until every write queued so far is answered."""
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)

    async def _flush(self) -> None:
        while self._waiting:
            taken, self._waiting = self._waiting[: self._most], self._waiting[self._most :]
            group = [w for w in taken if not w.done.done()]  # a caller that gave up
            if len(group) > 1:
                await self._together(group)
            elif group:
                await self._one(group[0])

    async def _together(self, group: list[Write]) -> None:
        given = tuple(dict.fromkeys(t for w in group if w.carried for t in w.carried.given))
        shared = bookmarks.bind_given(given)
        try:
            answers = await self._group(group)
        except RolledBack:
            for write in group:
                await self._one(write)
            return
        except Exception as exc:  # the outcome is unknown: every caller's answer
            for write in group:
                _fail(write, exc)
            return
        bookmarks.hand_on(shared, [w.carried for w in group if w.carried is not None])
        for write, rows in zip(group, answers, strict=True):
            if not write.done.done():
                write.done.set_result(rows)

    async def _one(self, write: Write) -> None:
        shared = bookmarks.bind_given(write.carried.given if write.carried else ())
        try:
            rows = await self._alone(write.text, write.params)
        except Exception as exc:
            _fail(write, exc)
            return
        if write.carried is not None:
            bookmarks.hand_on(shared, [write.carried])
        if not write.done.done():
            write.done.set_result(rows)


def _fail(write: Write, exc: Exception) -> None:
    if not write.done.done():
        write.done.set_exception(exc)
