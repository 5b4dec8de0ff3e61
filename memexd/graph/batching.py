"""Reads by id that are in flight at once, sent as one query.

Under load many requests each read one item by id at the same moment. Sent
one by one, each pays the engine's whole per-query cost (a socket write that
wakes the engine, its parameters parsed, the plan run, a reply read) for one
row: on FalkorDB that is most of a point read's engine time and a fifth of
memexd's. Gathered, the reads of one named query with the same other
parameters, the same grants and the same bookmarks that start in one turn of
the event loop become one query over their ids, and each reader gets its
own rows. A lone read waits one turn of the loop (microseconds) and is sent
as it would have been. Under load, reads of a query whose batch is at the
engine (``IN_FLIGHT``) wait for it to come back and go in the next: the
busier the engine, the fuller the batches, so each read costs it less. On
Neo4j a query costs the engine about 1 ms of CPU however small (a bare
``RETURN 1`` here): from 16 clients, one batch at a time per query took
point reads from 1,421/s to 1,596/s (two at a time had not helped), from
32 clients from 2,294/s to 2,669/s; FalkorDB's did not move (5,044 and
5,128/s).

The gathered query runs in a task of its own, in a fresh context carrying
the readers' shared bookmarks; what it leaves is handed to each reader's
request. Its failure is each reader's failure; a reader that gives up
(cancelled) leaves the others their answer.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from memexd.graph import bookmarks
from memexd.types import Row

__all__ = ["IN_FLIGHT", "MAX_IDS", "Batches"]

#: Ids in one gathered query at most (a fuller batch is sent at once).
MAX_IDS = 256
#: Batches of one query at the engine at once (per process; each worker has its own).
IN_FLIGHT = 1

Send = Callable[[list[str]], Awaitable[list[Row]]]
IdOf = Callable[[Row], Any]


class _Batch:
    __slots__ = ("carried", "id_of", "send", "waiters")

    def __init__(self, send: Send, id_of: IdOf) -> None:
        self.send, self.id_of = send, id_of
        self.waiters: dict[str, list[asyncio.Future[list[Row]]]] = {}
        self.carried: list[bookmarks.Carried] = []


class Batches:
    """The open batches of one process (shared by every caller's graph)."""

    def __init__(self) -> None:
        self._open: dict[Hashable, _Batch] = {}
        self._running: set[asyncio.Task[None]] = set()
        self._in_flight: dict[Hashable, int] = {}

    async def read(self, key: Hashable, item_id: str, send: Send, id_of: IdOf) -> list[Row]:
        """The rows of ``item_id``: those ``send`` returns for a batch of ids
        (read under ``key``: query, parameters, grants) whose ``id_of`` is it."""
        loop = asyncio.get_running_loop()
        batch = self._open.get(key)
        if batch is None:
            batch = self._open[key] = _Batch(send, id_of)
            if self._in_flight.get(key, 0) < IN_FLIGHT:
                loop.call_soon(self._flush, key, batch)
            # else: sent when a batch of the key comes back (_landed)
        waiter: asyncio.Future[list[Row]] = loop.create_future()
        batch.waiters.setdefault(item_id, []).append(waiter)
        if (carried := bookmarks.current()) is not None:
            batch.carried.append(carried)
        if len(batch.waiters) >= MAX_IDS:
            self._flush(key, batch)
        return await waiter

    def _flush(self, key: Hashable, batch: _Batch) -> None:
        if self._open.get(key) is not batch:
            return  # sent already (it was full)
        del self._open[key]
        given = batch.carried[0].given if batch.carried else ()
        context = contextvars.Context()
        shared = context.run(bookmarks.bind_given, given)
        task = asyncio.get_running_loop().create_task(self._run(batch, shared), context=context)
        self._running.add(task)
        self._in_flight[key] = self._in_flight.get(key, 0) + 1
        task.add_done_callback(lambda done: self._landed(key, done))

    def _landed(self, key: Hashable, task: asyncio.Task[None]) -> None:
        """A batch came back: the one gathered meanwhile goes now."""
        self._running.discard(task)
        left = self._in_flight[key] - 1
        if left:
            self._in_flight[key] = left
        else:
            del self._in_flight[key]
        waiting = self._open.get(key)
        if waiting is not None:
            self._flush(key, waiting)

    @staticmethod
    async def _run(batch: _Batch, shared: bookmarks.Carried) -> None:
        try:
            rows = await batch.send(list(batch.waiters))
        except asyncio.CancelledError:
            for waiters in batch.waiters.values():
                for waiter in waiters:
                    waiter.cancel()
            raise
        except Exception as exc:  # every reader's failure
            for waiters in batch.waiters.values():
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(exc)
            return
        bookmarks.hand_on(shared, batch.carried)
        found: dict[Any, list[Row]] = {}
        for row in rows:
            found.setdefault(batch.id_of(row), []).append(row)
        for item_id, waiters in batch.waiters.items():
            mine = found.get(item_id, [])
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(mine)
