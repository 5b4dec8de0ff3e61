"""Archives (SPEC §13): ARCHIVE_CREATE keeps a compressed export of a date
range and scope in the database; ARCHIVE_RESTORE imports one back.

An archive's content is MemEX export slices, one JSON object a line: the
memories first (every live item under the job's scope prefix the caller may
read, archived ones too, created in ``[from, to)``: a page of the scan a
line), then their edges (the live ones with both ends in the archive), all
gzip-compressed and stored as ``MemoryArchiveChunk`` nodes of at most
:data:`CHUNK` bytes (base64), the ``MemoryArchive`` node written last. So an
archive is restored by importing its lines as slices, MemEX's way: ids that
exist are skipped, and records the caller may not write are conflicts (the
result counts each). A run that fails or is cancelled leaves no archive (its
chunks are deleted); at most :data:`MAX_ITEMS` items an archive.

params: ARCHIVE_CREATE ``from``, ``to`` (epoch ms; all time unless given);
ARCHIVE_RESTORE ``archiveId``.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from memexd.errors import BadUserInput, NotFound, ResourceExhausted
from memexd.events.vocabulary import Origin
from memexd.graph import Graph
from memexd.ids import MAX_TIME_MS, new_id
from memexd.jobs.params import known
from memexd.jobs.run import JobRun, now_ms
from memexd.jobs.scan import Scan
from memexd.memory.records import edge_from_row, edge_json, item_from_row, item_json
from memexd.memory.validation import check_uuid
from memexd.transplant.slices import Importer, ImportOptions
from memexd.types import JSONObject, Row

__all__ = [
    "ArchiveCreate",
    "ArchiveRestore",
    "MemoryArchive",
    "archive_bytes",
    "archive_from_row",
    "store_archive",
]

#: Compressed bytes a chunk node holds at most.
CHUNK = 512 * 1024
#: Items one archive holds at most (their ids are held while it is made).
MAX_ITEMS = 1_000_000
#: Chunks read a round trip when restoring.
READ_CHUNKS = 8


@dataclass(frozen=True, slots=True)
class MemoryArchive:
    id: str
    scope_prefix: str | None
    from_ms: int | None
    to_ms: int | None
    entry_count: int
    bytes: int
    compressed: bool
    created_at: int
    job_id: str | None


def archive_from_row(row: Row) -> MemoryArchive:
    a = row["archive"]
    return MemoryArchive(a["id"], a.get("scope_prefix"), a.get("from"), a.get("to"),
                         int(a["entry_count"]), int(a["bytes"]), bool(a["compressed"]),
                         int(a["created_at"]), a.get("job_id"))  # fmt: skip


class ArchiveCreate:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("from", "to"))
        low, high = _instant(checked, "from", 0), _instant(checked, "to", MAX_TIME_MS)
        if low >= high:
            raise BadUserInput("must be after params.from", field="params.to")
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        low = _instant(run.params, "from", 0)
        high = _instant(run.params, "to", MAX_TIME_MS)
        chunks = _Chunks(run, new_id())
        try:
            return await self._write(run, chunks, low, high)
        except BaseException:
            await chunks.drop()
            raise

    async def _write(self, run: JobRun, chunks: _Chunks, low: int, high: int) -> JSONObject:
        ids: set[str] = set()
        scan = await Scan.start(run)
        while not scan.done:
            row = await scan.page("job_archivable", {"prefix": run.job.prefix, "from": low,
                                                     "to": high}, write=False)  # fmt: skip
            scan.advance(row)
            items = [item_from_row(r) for r in row["items"]]
            ids.update(i.id for i in items)
            if len(ids) > MAX_ITEMS:
                raise ResourceExhausted(f"more than {MAX_ITEMS:,} items: archive a narrower "
                                        "range or scope")  # fmt: skip
            if items:
                await chunks.line({"memories": [item_json(i) for i in items]})
            await run.step(scan.progress * 0.9, {"items": len(ids), "edges": 0})
        edges = 0
        for batch in _batches(sorted(ids), run.batch):
            rows = await run.graph.read("export_edges", {"ids": batch, "limit": 1_000_000})
            kept = [e for e in (edge_from_row(r["edge"]) for r in rows) if e.to_id in ids]
            edges += len(kept)
            if kept:
                await chunks.line({"edges": [edge_json(e) for e in kept]})
            await run.step(0.95, {"items": len(ids), "edges": edges})
        size = await chunks.close()
        result: JSONObject = {"items": len(ids), "edges": edges, "bytes": size}
        if run.dry_run:
            return result
        await run.graph.write("archive_create", {"archive": {
            "id": chunks.archive_id, "scope_prefix": run.job.scope_prefix,
            "from": low if low > 0 else None, "to": high if high < MAX_TIME_MS else None,
            "entry_count": len(ids) + edges, "bytes": size, "compressed": True,
            "created_at": now_ms(), "reach": list(run.job.reach), "job_id": run.job.id,
        }})  # fmt: skip
        return {"archiveId": chunks.archive_id, **result}


class ArchiveRestore:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("archiveId",))
        if "archiveId" not in checked:
            raise BadUserInput("is required", field="params.archiveId")
        check_uuid(checked["archiveId"], "params.archiveId")
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        archive_id = str(run.params["archiveId"])
        rows = await run.graph.read("archive_list", {"prefix": None, "ids": [archive_id],
                                                     "limit": 1})  # fmt: skip
        if not rows:
            raise NotFound(f"archive {archive_id} not found")
        archive = archive_from_row(rows[0])
        counts = {"created": 0, "skipped": 0, "conflicts": 0}
        importer, done = Importer(run.memex), 0
        async for line in _lines(run, archive_id):
            if not run.dry_run:
                report = await importer.slice(line, ImportOptions(), Origin(cause_id=run.job.id))
                for name in counts:
                    ids = getattr(report, name)
                    counts[name] += len(ids.memories) + len(ids.edges)
            done += len(line.get("memories", ())) + len(line.get("edges", ()))
            await run.step(done / max(archive.entry_count, 1), {**counts, "read": done})
        return {**counts, "read": done, "archiveId": archive_id}


class _Chunks:
    """An archive's gzip stream, stored a chunk at a time (not on a dry run)."""

    def __init__(self, run: JobRun, archive_id: str) -> None:
        self.run, self.archive_id = run, archive_id
        self.gzip = zlib.compressobj(6, zlib.DEFLATED, 31)
        self.pending, self.stored, self.size = b"", 0, 0

    async def line(self, record: JSONObject) -> None:
        self.pending += self.gzip.compress(orjson.dumps(record) + b"\n")
        while len(self.pending) >= CHUNK:
            await self._store(self.pending[:CHUNK])
            self.pending = self.pending[CHUNK:]

    async def close(self) -> int:
        self.pending += self.gzip.flush()
        if self.pending:
            await self._store(self.pending)
        return self.size

    async def _store(self, data: bytes) -> None:
        self.size += len(data)
        if not self.run.dry_run:
            await self.run.graph.write("archive_chunk_add", {
                "archive_id": self.archive_id, "ord": self.stored,
                "data": base64.b64encode(data).decode()})  # fmt: skip
        self.stored += 1

    async def drop(self) -> None:
        if self.stored and not self.run.dry_run:
            await self.run.graph.write("archive_orphans_drop", {"archive_id": self.archive_id})


async def _lines(run: JobRun, archive_id: str) -> AsyncIterator[JSONObject]:
    """The archive's slices, one a line, decompressed as its chunks are read."""
    gunzip, buffer, start = zlib.decompressobj(31), b"", 0
    while True:
        rows = await run.graph.read("archive_chunks", {"archive_id": archive_id, "from": start,
                                                       "limit": READ_CHUNKS})  # fmt: skip
        for row in rows:
            buffer += gunzip.decompress(base64.b64decode(row["data"]))
            *complete, buffer = buffer.split(b"\n")
            for text in complete:
                yield _slice(text)
        if len(rows) < READ_CHUNKS:
            break
        start += READ_CHUNKS
    if buffer.strip():
        yield _slice(buffer)


def _slice(text: bytes) -> JSONObject:
    value: JSONObject = orjson.loads(text)
    return value


def _batches(values: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]


def _instant(params: JSONObject, key: str, default: int) -> int:
    value = params.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIME_MS:
        raise BadUserInput("must be an instant in epoch milliseconds", field=f"params.{key}")
    return value


async def archive_bytes(graph: Graph, archive_id: str) -> AsyncIterator[bytes]:
    """An archive as a file holds it (gzip, MemEX slices one a line), a chunk
    at a time: ``memexd jobs archive-get``. NOT_FOUND unless the caller sees it."""
    if not await graph.read("archive_list", {"prefix": None, "ids": [archive_id], "limit": 1}):
        raise NotFound(f"archive {archive_id} not found")
    start = 0
    while True:
        rows = await graph.read("archive_chunks", {"archive_id": archive_id, "from": start,
                                                   "limit": READ_CHUNKS})  # fmt: skip
        for row in rows:
            yield base64.b64decode(row["data"])
        if len(rows) < READ_CHUNKS:
            return
        start += READ_CHUNKS


async def store_archive(graph: Graph, data: bytes, scope_prefix: str | None) -> str:
    """Keep an archive file made elsewhere (``memexd jobs archive-put``), so
    ARCHIVE_RESTORE restores it here: checked whole first (gzip of JSON lines,
    each a slice of memories or edges); its id."""
    entries = _entries(data)
    archive_id = new_id()
    for ord_, start in enumerate(range(0, len(data), CHUNK)):
        await graph.write("archive_chunk_add", {
            "archive_id": archive_id, "ord": ord_,
            "data": base64.b64encode(data[start : start + CHUNK]).decode()})  # fmt: skip
    reach = [scope_prefix] if scope_prefix is not None else list(graph.access.write)
    await graph.write("archive_create", {"archive": {
        "id": archive_id, "scope_prefix": scope_prefix, "entry_count": entries,
        "bytes": len(data), "compressed": True, "created_at": now_ms(), "reach": reach,
    }})  # fmt: skip
    return archive_id


def _entries(data: bytes) -> int:
    try:
        text = zlib.decompress(data, 31)
        lines = [orjson.loads(line) for line in text.splitlines() if line.strip()]
    except (zlib.error, orjson.JSONDecodeError):
        raise BadUserInput("not an archive: a gzip file of JSON lines") from None
    if not all(isinstance(x, dict) and set(x) <= {"memories", "edges"} for x in lines):
        raise BadUserInput("not an archive: each line must hold memories or edges")
    return sum(len(x.get("memories", ())) + len(x.get("edges", ())) for x in lines)
