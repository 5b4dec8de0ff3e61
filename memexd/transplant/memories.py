"""Importing a file of bare MemEX memory records: NDJSON (one record a line)
or a JSON array, as ``memexd import`` takes them besides export objects.

Each record is what a slice's ``memories[i]`` holds, checked the same way
(:func:`~memexd.transplant.slice_parse.memory_record`) and imported by the
same table (:class:`~memexd.transplant.slices.Importer`), but written the
fast way: records go straight into batched creates
(:mod:`memexd.memory.batches`: one statement a batch, the next batch built
while the engine writes the previous one). A batch is planned record by
record, as a slice, only when the engine refuses it because an id exists:
then each record is skipped, updated or a conflict as the options say. So a
fresh import pays for no reads, and every record still meets MemEX's table
(a second copy of an id meets the first, in file order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from memexd.errors import BadUserInput, InvalidTimestamp, MemexError
from memexd.events.vocabulary import Origin
from memexd.memory.batches import BatchWriter, Entry
from memexd.memory.validation import Limits, ValidItem
from memexd.transplant.export import KEYS
from memexd.transplant.slice_parse import memory_record
from memexd.transplant.slices import Importer, ImportOptions, ImportReport

if TYPE_CHECKING:
    from memexd.core import Memex

__all__ = ["checked_record", "import_records"]

#: A record and where it is in its file (``line 3``, ``element 2``).
Placed = tuple[str, Any]


def checked_record(limits: Limits, where: str, raw: Any) -> ValidItem:
    """The record checked, or ``BAD_USER_INPUT`` / ``INVALID_TIMESTAMP``
    naming where it is."""
    try:
        return memory_record(raw, limits)
    except (BadUserInput, InvalidTimestamp) as exc:
        raise type(exc)(f"{where}: {exc.message}") from None


async def import_records(
    memex: Memex,
    records: Iterable[Placed],
    options: ImportOptions,
    origin: Origin,
    progress: Callable[[int], None] = lambda _: None,
) -> ImportReport:
    """Import every record, in batches of ``MEMEXD_MAX_BATCH`` (a refused one
    is planned as a slice, so at most ``MEMEXD_TRAVERSAL_MAX_NODES``). With
    ``re_id_on_difference`` the records are imported as one slice (re-id
    rewrites references across the whole file): callers keep those small."""
    if options.re_id_on_difference:
        slice_ = {"memories": [raw for _, raw in records]}
        report = await Importer(memex).slice(slice_, options, origin)
        progress(len(slice_["memories"]))
        return report
    run = _Run(memex, options, origin, progress)
    size = min(memex.limits.max_batch, memex.settings.traversal_max_nodes)
    writer: BatchWriter[Any] = BatchWriter(memex.items, origin, size, run.settled, run.refused)
    try:
        for where, raw in records:
            valid = checked_record(memex.limits, where, raw)
            memex.access.require_write(valid.item.scope, field=f"{where}.scope")
            await writer.add(raw, valid)
        await writer.close()
    except BaseException:
        await writer.cancel()
        raise
    return run.report


class _Run:
    """One import's report, filled batch by batch in file order."""

    def __init__(
        self, memex: Memex, options: ImportOptions, origin: Origin, progress: Callable[[int], None]
    ) -> None:
        self.memex, self.options, self.origin = memex, options, origin
        self.progress = progress
        self.report = ImportReport()

    async def settled(self, entries: list[Entry[Any]]) -> None:
        self.report.created.memories.extend(str(e.id) for e in entries if e.created)
        self.progress(len(entries))

    async def refused(
        self, writer: BatchWriter[Any], entries: list[Entry[Any]], exc: MemexError
    ) -> None:
        """An id of the batch exists (or a parent stayed fenced): the batch as a
        slice, through MemEX's table."""
        part = await Importer(self.memex).slice(
            {"memories": [e.tag for e in entries]}, self.options, self.origin
        )
        for bucket in ("created", "updated", "skipped", "conflicts"):
            mine, theirs = getattr(self.report, bucket), getattr(part, bucket)
            for kind in KEYS:
                getattr(mine, kind).extend(getattr(theirs, kind))
