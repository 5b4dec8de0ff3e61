"""Replaying MemEX logs into the live graph, as the caller (docs/replay.md).

``commands`` applies a command log in order; ``envelopes`` first orders an
envelope log by ``ts`` (stable: equal times keep input order), then applies
the payloads. A command memexd cannot apply fails its index with a code and
the replay goes on; only faults that are not the caller's (storage down,
engine limits) stop it, and what was applied before stays (each command is
atomic, the log is not: MemEX's replay starts from an empty state instead).

Logs are streamed in chunks of ``limits.max_batch``: a command log costs
memory per chunk, not per log. An envelope log must be read whole before the
first payload can run, so it keeps only what sorting needs (about 70 bytes
per envelope: its time, index and where its payload is) and spools payloads
to a temporary file (in memory up to 8 MiB), unless the log is already a list.
Runs of consecutive ``memory.create`` commands are applied as one batch.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from tempfile import SpooledTemporaryFile
from typing import IO, TYPE_CHECKING, Any, TypeAlias

import orjson

from memexd.errors import (
    BadUserInput,
    DuplicateMemory,
    MemexError,
    ResourceExhausted,
    StorageError,
)
from memexd.events.vocabulary import Event, Origin
from memexd.memory.validation import ValidItem, new_item
from memexd.transplant.commands import Command, ItemCreate, parse_command
from memexd.transplant.timestamps import parse_iso_ts

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = ["Progress", "Replay", "ReplayFailure", "ReplayOutcome", "Source"]

#: Decoded JSON values, from a list, a generator or an async stream.
Source: TypeAlias = Iterable[Any] | AsyncIterable[Any]
#: Told how many more commands are done (for a progress bar's ``advance``).
Progress: TypeAlias = Callable[[int], None]
_SPOOL_IN_MEMORY = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ReplayFailure:
    index: int
    code: str
    message: str


@dataclass(slots=True)
class ReplayOutcome:
    applied: int = 0
    #: commands: by index; envelopes: ts failures by index, then apply
    #: failures in the order the payloads were applied (as MemEX lists them)
    failures: list[ReplayFailure] = field(default_factory=list)
    #: the events of applied commands, only when asked for (tests)
    events: list[Event] = field(default_factory=list)


class Replay:
    """MemEX replay over one core (bound to the caller's grants)."""

    def __init__(self, memex: Memex) -> None:
        self.memex = memex

    async def commands(
        self, source: Source, origin: Origin, *, progress: Progress | None = None,
        keep_events: bool = False,
    ) -> ReplayOutcome:  # fmt: skip
        run = _Run(self.memex, origin, progress, keep_events)
        start = 0
        async for chunk in _chunks(_values(source), self.memex.limits.max_batch):
            await run.apply(list(enumerate(chunk, start)))
            start += len(chunk)
        return await run.finished()

    async def envelopes(
        self, source: Source, origin: Origin, *, progress: Progress | None = None,
        keep_events: bool = False,
    ) -> ReplayOutcome:  # fmt: skip
        run = _Run(self.memex, origin, progress, keep_events)
        with SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY) as spool:
            ordered = _Ordered(source, spool)
            index = 0
            async for envelope in _values(source):
                try:
                    ordered.add(index, _ts(envelope), envelope)
                except MemexError as exc:  # told first, in input order, like MemEX
                    run.outcome.failures.append(ReplayFailure(index, exc.code, exc.message))
                    run.done(1)
                index += 1
            async for chunk in _chunks(ordered.payloads(), self.memex.limits.max_batch):
                await run.apply(chunk)
        return await run.finished()


# ---------------------------------------------------------------- applying


@dataclass(frozen=True, slots=True)
class _Draft:
    position: int
    index: int
    item_id: str
    valid: ValidItem  # checked once: batches are prepared from it


class _Run:
    """One replay's progress: applies chunks of (index, command) in order."""

    def __init__(
        self, memex: Memex, origin: Origin, progress: Progress | None, keep_events: bool
    ) -> None:
        self.memex, self.origin = memex, origin
        self.progress, self.keep_events = progress, keep_events
        self.outcome = ReplayOutcome()
        self._failed: list[tuple[int, ReplayFailure]] = []  # by position in the chunk

    def done(self, count: int) -> None:
        if self.progress is not None and count:
            self.progress(count)

    async def apply(self, steps: list[tuple[int, Any]]) -> None:
        parsed: list[tuple[int, int, Command]] = []
        for position, (index, value) in enumerate(steps):
            try:
                parsed.append((position, index, _parse(value)))
            except MemexError as exc:
                self._fail(position, index, exc)
        self.done(len(steps) - len(parsed))
        creates: list[tuple[int, int, ItemCreate]] = []
        for position, index, command in parsed:
            if isinstance(command, ItemCreate):
                creates.append((position, index, command))
                continue
            await self._create(creates)
            creates = []
            try:
                self._applied(1, await command.run(self.memex, self.origin))
            except MemexError as exc:
                self._fail(position, index, _callers(exc))
            self.done(1)
        await self._create(creates)
        self._failed.sort(key=lambda pair: pair[0])
        self.outcome.failures.extend(failure for _, failure in self._failed)
        self._failed.clear()

    def _fail(self, position: int, index: int, exc: MemexError) -> None:
        self._failed.append((position, ReplayFailure(index, exc.code, exc.message)))

    async def finished(self) -> ReplayOutcome:
        """The outcome, its kept events with every payload filled in."""
        if self.keep_events:
            self.outcome.events[:] = await self.memex.events.completed(self.outcome.events)
        return self.outcome

    def _applied(self, count: int, events: Sequence[Event]) -> None:
        self.outcome.applied += count
        if self.keep_events:
            self.outcome.events.extend(events)

    async def _create(self, run: list[tuple[int, int, ItemCreate]]) -> None:
        """A run of ``memory.create``: each draft checked alone first (so a bad
        one fails alone), a repeated id fails after its first, the rest in
        one ``items.create``."""
        drafts: list[_Draft] = []
        seen: set[str] = set()
        for position, index, command in run:
            try:
                valid = new_item(command.draft, self.memex.limits)
                item = valid.item
                self.memex.access.require_write(item.scope, field="item.scope")
                if item.id in seen:
                    raise DuplicateMemory([item.id])
            except MemexError as exc:
                self._fail(position, index, exc)
                continue
            seen.add(item.id)
            drafts.append(_Draft(position, index, item.id, valid))
        await self._batches(drafts)
        self.done(len(run))

    async def _batches(self, drafts: list[_Draft]) -> None:
        """Create, and when the batch is refused, take out the drafts whose ids
        are taken and try the rest again; when the refusal names no one draft,
        halve the batch (a few more round trips, each part atomic)."""
        queue = deque([drafts] if drafts else [])
        while queue:
            part = queue.popleft()
            try:
                batch = self.memex.items.prepare([d.valid for d in part], self.origin)
                await self.memex.items.write(batch)
                events = batch.events
            except MemexError as exc:
                taken = await self._taken(part, _callers(exc))
                if taken:
                    for d in part:
                        if d.item_id in taken:
                            self._fail(d.position, d.index, DuplicateMemory([d.item_id]))
                    rest = [d for d in part if d.item_id not in taken]
                    queue.extendleft([rest] if rest else [])
                elif len(part) == 1:
                    self._fail(part[0].position, part[0].index, exc)
                else:
                    half = len(part) // 2
                    queue.extendleft([part[half:], part[:half]])
            else:
                self._applied(len(part), events)

    async def _taken(self, part: list[_Draft], exc: MemexError) -> set[str]:
        if not isinstance(exc, DuplicateMemory):
            return set()
        ids = {d.item_id for d in part}
        taken = ids & set(exc.ids)
        if len(taken) == len(ids) > 1:
            # the service names the whole batch when it sees none of the taken
            # ids (the caller cannot read them): ask which ones are readable
            found = await self.memex.item_reads.fetch(sorted(ids), include_retracted=True)
            taken = ids & set(found)
        return taken


def _callers(exc: MemexError) -> MemexError:
    """The error if it is the caller's (a per-index failure); faults of the
    engine (down, timed out, out of memory) stop the replay."""
    if isinstance(exc, StorageError | ResourceExhausted):
        raise exc
    return exc


# ---------------------------------------------------------------- reading


class _NoPayload:
    """An envelope without a payload: it fails when its turn comes (MemEX)."""


_NO_PAYLOAD = _NoPayload()


def _parse(value: Any) -> Command:
    if isinstance(value, _NoPayload):
        raise BadUserInput("is required", field="payload")
    return parse_command(value)


def _ts(envelope: Any) -> int:
    if not isinstance(envelope, dict):
        raise BadUserInput("an envelope must be a JSON object")
    ts = envelope.get("ts")
    if ts is None:
        raise BadUserInput("is required", field="ts")
    if not isinstance(ts, str):
        raise BadUserInput("must be an ISO-8601 string", field="ts")
    return parse_iso_ts(ts)


class _Ordered:
    """Envelopes kept for a stable sort by time: time, index and payload
    position in arrays (8 bytes each), payloads in the source list or in a
    spool file."""

    def __init__(self, source: Source, spool: IO[bytes]) -> None:
        self.listed: Sequence[Any] | None = source if isinstance(source, list | tuple) else None
        self.spool = spool if self.listed is None else None
        self.ts, self.index = array("q"), array("q")
        self.start, self.length = array("q"), array("q")

    def add(self, index: int, ts: int, envelope: dict[str, Any]) -> None:
        if self.spool is not None:
            kept = {"p": envelope["payload"]} if "payload" in envelope else {}
            try:
                data = orjson.dumps(kept)
            except TypeError:  # not JSON (a big integer, an object): fails its index
                raise BadUserInput("is not storable as JSON", field="payload") from None
            self.start.append(self.spool.tell())
            self.length.append(len(data))
            self.spool.write(data)
        self.ts.append(ts)
        self.index.append(index)

    async def payloads(self) -> AsyncIterator[tuple[int, Any]]:
        for k in sorted(range(len(self.ts)), key=self.ts.__getitem__):  # stable
            yield self.index[k], self._payload(k)

    def _payload(self, k: int) -> Any:
        if self.spool is None:
            envelope = self.listed[self.index[k]] if self.listed is not None else {}
            return envelope.get("payload", _NO_PAYLOAD)
        self.spool.seek(self.start[k])
        return orjson.loads(self.spool.read(self.length[k])).get("p", _NO_PAYLOAD)


def _check_source(source: Source) -> None:
    if isinstance(source, str | bytes | Mapping):
        raise BadUserInput("a log must be a list of JSON values")


async def _values(source: Source) -> AsyncIterator[Any]:
    _check_source(source)
    if isinstance(source, AsyncIterable):
        async for value in source:
            yield value
    else:
        for value in source:
            yield value


async def _chunks(values: AsyncIterator[Any], size: int) -> AsyncIterator[list[Any]]:
    chunk: list[Any] = []
    async for value in values:
        chunk.append(value)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
