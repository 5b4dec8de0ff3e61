"""Creating many items: batches written one statement each, the next batch
prepared while the engine writes the previous one.

The engine is a separate process, so parsing, validating, building and
encoding batch N+1 costs no time while it writes batch N: when N lands, N+1
is sent at once. One write is in flight at a time,
so batches apply in order (a parent created in batch N is there for batch
N+1, a repeated id fails after its first copy). Each record keeps its own
outcome: when a batch is refused, what happens to its records is the
caller's ``refused`` strategy (:func:`each_alone` by default: the records
whose ids are taken fail alone, the others are written again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from memexd.errors import Conflict, DuplicateMemory, MemexError
from memexd.events.vocabulary import Origin
from memexd.graph import Statement
from memexd.memory.creation import BatchBuilder, Prepared
from memexd.memory.items import ItemCommands
from memexd.memory.validation import ValidItem

__all__ = ["BatchWriter", "Entry", "Refused", "each_alone"]

T = TypeVar("T")

#: Records added between two yields to the event loop: often enough that the
#: write in flight sends its statement and reads its answer without delay.
YIELD_EVERY = 32


@dataclass(slots=True, eq=False)
class Entry(Generic[T]):
    """One record of a batch: the caller's tag (a line number, a record), the
    validated item (``None`` when it failed before), and its outcome."""

    tag: T
    valid: ValidItem | None
    error: MemexError | None = None
    created: bool = False

    @property
    def id(self) -> str | None:
        return None if self.valid is None else self.valid.item.id


#: What to do with a batch the engine refused: settle each entry (``created``
#: or ``error``). Raising stops the whole run.
Refused = Callable[["BatchWriter[T]", list[Entry[T]], MemexError], Awaitable[None]]
#: Called with each batch once every entry of it is settled, in order.
Settled = Callable[[list[Entry[T]]], Awaitable[None]]


class BatchWriter(Generic[T]):
    """Collects entries into batches of ``size`` and writes them, pipelined:
    one batch in flight while the next is built, settled in order."""

    def __init__(
        self,
        items: ItemCommands,
        origin: Origin,
        size: int,
        settled: Settled[T],
        refused: Refused[T] | None = None,
    ) -> None:
        self.items = items
        self.origin = origin
        self.size = size
        self.settled = settled
        self.refused: Refused[T] = refused or each_alone
        self._entries: list[Entry[T]] = []
        self._builder = BatchBuilder(origin)
        self._flight: _Flight[T] | None = None

    async def add(self, tag: T, valid: ValidItem | None, error: MemexError | None = None) -> None:
        """Add a record (or one that already failed, to keep its place)."""
        entry = Entry(tag, valid, error)
        if valid is not None:
            if valid.item.id in self._builder.seen:  # the first copy wins
                entry.valid, entry.error = None, DuplicateMemory([valid.item.id])
            else:
                self._builder.add(valid)
        self._entries.append(entry)
        if len(self._entries) >= self.size:
            await self.submit()
        elif len(self._entries) % YIELD_EVERY == 0:
            await asyncio.sleep(0)

    async def submit(self) -> None:
        """Send the batch collected so far, once the one in flight has landed.
        One at a time: the engine does not take statements sent on two
        connections in the order they were sent, and batches apply in order."""
        entries, builder = self._entries, self._builder
        self._entries, self._builder = [], BatchBuilder(self.origin)
        ready = self._ready(builder)  # while the batch in flight is written
        await self._land()
        self._flight = _Flight(asyncio.create_task(self._write(entries, ready)), entries)
        await asyncio.sleep(0)  # let it start sending

    async def close(self) -> None:
        """Write what is left and settle every batch."""
        if self._entries:
            await self.submit()
        await self._land()

    async def cancel(self) -> None:
        """Stop: the batch in flight may or may not have been written."""
        flight, self._flight = self._flight, None
        if flight is not None:
            flight.task.cancel()
            await asyncio.gather(flight.task, return_exceptions=True)

    async def write(self, entries: list[Entry[T]]) -> None:
        """Write the entries still pending (for ``refused`` strategies); a
        refusal goes to ``refused`` again."""
        builder = BatchBuilder(self.origin)
        for entry in entries:
            if entry.valid is not None:
                builder.add(entry.valid)
        await self._write(entries, self._ready(builder))

    async def _land(self) -> None:
        """Wait for the batch in flight and settle it (its errors, the engine
        gone, stop the run)."""
        flight, self._flight = self._flight, None
        if flight is not None:
            await flight.task
            await self.settled(flight.entries)

    def _ready(self, builder: BatchBuilder) -> tuple[Prepared, Statement] | None:
        """The batch and its statement, ready to send (``None``: nothing to write)."""
        if not builder.valid:
            return None
        batch = builder.build()
        return batch, self.items.statement(batch)

    async def _write(
        self, entries: list[Entry[T]], ready: tuple[Prepared, Statement] | None
    ) -> None:
        pending = [e for e in entries if e.valid is not None and e.error is None]
        if not pending or ready is None:
            return
        try:
            await self.items.write(*ready)
        except (DuplicateMemory, Conflict) as exc:
            await self.refused(self, pending, exc)
        else:
            for entry in pending:
                entry.created = True


@dataclass(frozen=True, slots=True)
class _Flight(Generic[T]):
    task: asyncio.Task[None]
    entries: list[Entry[T]]


async def each_alone(writer: BatchWriter[T], entries: list[Entry[T]], exc: MemexError) -> None:
    """The records whose ids are taken fail with ``DUPLICATE_MEMORY`` and the
    others are written again; anything else (``CONFLICT``: a parent kept
    fenced) fails every record of the batch."""
    taken = set(exc.ids) if isinstance(exc, DuplicateMemory) else set()
    rest = [entry for entry in entries if entry.id not in taken]
    if not taken or len(rest) == len(entries):  # nothing to take out: all fail
        rest = []
    kept = {id(entry) for entry in rest}
    for entry in entries:
        if id(entry) not in kept:
            entry.error = DuplicateMemory([str(entry.id)]) if entry.id in taken else exc
            entry.valid = None
    if rest:
        await writer.write(rest)
