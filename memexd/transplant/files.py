"""MemEX files on disk: logs (a JSON array or NDJSON) and export objects,
read and written as streams, so that a file's size never becomes memory.

A log's format is told by its first non-blank byte: ``[`` is one JSON array,
anything else is NDJSON (one value per line, blank lines skipped). NDJSON
lines are decoded one at a time (orjson); an array and an export object go
through ijson's incremental parser, one element at a time. A value that is
not JSON stops the read with ``BAD_USER_INPUT`` naming the file and the line
(NDJSON) or the element's index (array, export). Integers must fit in 64
bits (what memexd stores); beyond that the C parser refuses the file, so a
log with one is refused too.

Writers never leave half a file: output goes to a temporary file beside the
target, renamed over it once complete (``-``, stdout, is written as it goes).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import ijson  # type: ignore[import-untyped]
import orjson

from memexd.errors import BadUserInput
from memexd.transplant.export import KEYS

if TYPE_CHECKING:
    from memexd.transplant.replay import ReplayFailure

__all__ = [
    "STDIO",
    "ExportWriter",
    "export_pages",
    "export_records",
    "holds_records",
    "local_copy",
    "log_values",
    "output",
    "placed_values",
    "write_failures",
]

#: The name that means stdin (to read) or stdout (to write).
STDIO = "-"
#: The longest NDJSON line read (a command holds at most two 256 KiB JSON
#: values by default): a bound on the memory one line can take.
MAX_LINE_BYTES = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\r\n"
_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})


# ---------------------------------------------------------------- reading


@contextmanager
def local_copy(name: str) -> Iterator[Path]:
    """The file ``name``, or for ``-`` stdin copied to a temporary file: the
    commands read a file twice (check it all, then apply it)."""
    if name != STDIO:
        path = Path(name)
        if not path.is_file():
            raise BadUserInput(f"{name}: no such file")
        yield path
        return
    with tempfile.NamedTemporaryFile(prefix="memexd-stdin-", suffix=".json") as copy:
        shutil.copyfileobj(sys.stdin.buffer, copy, 1024 * 1024)
        copy.flush()
        yield Path(copy.name)


def log_values(path: Path, label: str) -> Iterator[Any]:
    """The decoded values of a JSON array or NDJSON file, one at a time."""
    with path.open("rb") as f:
        if _first_byte(f) == b"[":
            yield from _array(f, label)
        else:
            yield from _ndjson(f, label)


def placed_values(path: Path, label: str) -> Iterator[tuple[str, Any]]:
    """:func:`log_values` with where each value is (``line 3`` of NDJSON,
    ``element 2`` of an array), for messages."""
    with path.open("rb") as f:
        if _first_byte(f) == b"[":
            for index, value in enumerate(_array(f, label)):
                yield f"element {index}", value
            return
        for number, value in _ndjson(f, label, numbered=True):
            yield f"line {number}", value


def holds_records(path: Path) -> bool:
    """Whether a file for ``import`` holds bare memory records (a JSON array,
    or NDJSON: one per line) rather than one MemEX export object: it starts
    with ``[``, or its first line is a whole JSON object that is a record
    (it has an ``id``, as every memory record must)."""
    with path.open("rb") as f:
        first = _first_byte(f)
        if first == b"[":
            return True
        if first != b"{":
            return False
        line = f.readline(MAX_LINE_BYTES).strip(_BLANK)
        while not line and (line := f.readline(MAX_LINE_BYTES)):
            line = line.strip(_BLANK)
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False  # an export object over several lines
    return isinstance(value, dict) and "id" in value


def _first_byte(f: IO[bytes]) -> bytes:
    """The first non-blank byte (a UTF-8 BOM skipped); ``f`` is left at the start
    of the content."""
    start = len(_BOM) if f.read(len(_BOM)) == _BOM else 0
    f.seek(start)
    while chunk := f.read(4096):
        text = chunk.lstrip(_BLANK)
        if text:
            f.seek(start)
            return text[:1]
    f.seek(start)
    return b""


def _ndjson(f: IO[bytes], label: str, *, numbered: bool = False) -> Iterator[Any]:
    for number, line in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
        if len(line) > MAX_LINE_BYTES:
            raise BadUserInput(f"{label}: line {number} is longer than {MAX_LINE_BYTES} bytes")
        if not line.strip(_BLANK):
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            hint = " (a JSON file must be an array or NDJSON)" if number == 1 else ""
            raise BadUserInput(
                f"{label}: line {number}, column {exc.colno}: bad JSON: {exc.msg}{hint}"
            ) from None
        yield (number, value) if numbered else value


def _array(f: IO[bytes], label: str) -> Iterator[Any]:
    index = 0
    try:
        for value in ijson.items(f, "item", use_float=True):
            yield value
            index += 1
    except ijson.JSONError as exc:
        raise BadUserInput(f"{label}: element {index} of the JSON array: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """ijson's message on one line (its C parser adds a drawing of the spot)."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else "bad JSON"
    if "integer overflow" in first:
        return "an integer does not fit in 64 bits"
    return f"bad JSON: {first}"


def export_records(path: Path, label: str, only: str | None = None) -> Iterator[tuple[str, Any]]:
    """The records of a MemEX export file as ``(kind, record)``, in file
    order (of ``only`` that kind, when given). The file must be one JSON
    object whose keys are among memories, edges, intents and tasks, each a
    list or null; anything else stops the read, naming where."""
    with path.open("rb") as f:
        if f.read(len(_BOM)) != _BOM:
            f.seek(0)
        reader = _ExportReader(label, only)
        try:
            for prefix, event, value in ijson.parse(f, use_float=True):
                yield from reader.feed(prefix, event, value)
        except ijson.JSONError as exc:
            raise BadUserInput(f"{label}: {reader.where()}: {_reason(exc)}") from None
        if not reader.opened:
            raise BadUserInput(f"{label}: empty file: {_SHAPE}")


def export_pages(
    path: Path, label: str, counts: Mapping[str, int], size: int
) -> Iterator[dict[str, list[Any]]]:
    """The records of an export file (``counts`` per kind, already checked)
    as slices of at most ``size`` records, in MemEX's import order (memories,
    edges, intents, tasks) whatever the order of the file's keys: one pass
    over the file per kind present."""
    page: dict[str, list[Any]] = {k: [] for k in KEYS}
    held = 0
    for kind in (k for k in KEYS if counts.get(k)):
        for _, record in export_records(path, label, only=kind):
            page[kind].append(record)
            held += 1
            if held == size:
                yield page
                page, held = {k: [] for k in KEYS}, 0
    if held:
        yield page


_SHAPE = 'a MemEX export is one JSON object {"memories": [...], "edges": [...], ...}'


class _ExportReader:
    """Turns ijson's events into records, checking the object's shape."""

    def __init__(self, label: str, only: str | None) -> None:
        self.label, self.only = label, only
        self.opened = False
        self.kind: str | None = None
        self.kinds: set[str] = set()
        self.index = 0
        self.depth = 0  # inside the current record
        self.builder: Any = None  # ijson.ObjectBuilder, None when skipping

    def where(self) -> str:
        return "the top level" if self.kind is None else f"{self.kind}[{self.index}]"

    def feed(self, prefix: str, event: str, value: Any) -> Iterator[tuple[str, Any]]:
        if self.depth:
            yield from self._inside(event, value)
        elif prefix == "":
            self._top(event, value)
        elif prefix == self.kind:
            if event not in ("start_array", "end_array", "null"):
                raise BadUserInput(f"{self.label}: {self.kind}: must be a list")
        elif event in _STARTS:  # a record that is an object or a list
            self.depth = 1
            self.builder = ijson.ObjectBuilder() if self._wanted() else None
            if self.builder is not None:
                self.builder.event(event, value)
        else:  # a record that is a scalar (the import refuses it, naming it)
            if self._wanted():
                yield str(self.kind), value
            self.index += 1

    def _wanted(self) -> bool:
        return self.only is None or self.kind == self.only

    def _inside(self, event: str, value: Any) -> Iterator[tuple[str, Any]]:
        if self.builder is not None:
            self.builder.event(event, value)
        self.depth += (event in _STARTS) - (event in _ENDS)
        if not self.depth:
            if self.builder is not None:
                yield str(self.kind), self.builder.value
            self.builder = None
            self.index += 1

    def _top(self, event: str, value: Any) -> None:
        if event == "start_map" and not self.opened:
            self.opened = True
        elif event == "map_key":
            if value not in KEYS:
                raise BadUserInput(f"{self.label}: unknown key {value!r}: {_SHAPE}")
            if value in self.kinds:
                raise BadUserInput(f"{self.label}: the key {value!r} appears twice")
            self.kinds.add(value)
            self.kind, self.index = value, 0
        elif event != "end_map":
            raise BadUserInput(f"{self.label}: {_SHAPE}")


# ---------------------------------------------------------------- writing


@contextmanager
def output(name: str) -> Iterator[IO[bytes]]:
    """A binary stream for ``name``: stdout for ``-``, else a temporary file
    beside ``name`` that replaces it only when the block ends without error."""
    if name == STDIO:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(name)
    if not target.parent.is_dir():
        raise BadUserInput(f"{name}: no such directory {str(target.parent)!r}")
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.chmod(temporary, 0o666 & ~_umask())  # as open() would make it, not mkstemp's 0600
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class ExportWriter:
    """Writes one MemEX export object from pages that come in kind order
    (``Exporter.everything``: all memories, then edges, intents, tasks), one
    record per line, so no more than a page is ever held."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.counts = dict.fromkeys(KEYS, 0)
        self._at = -1  # the index in KEYS of the list being written
        self._first = True

    def add(self, page: Mapping[str, Iterable[Any]]) -> int:
        """Write ``page``'s records; the number written."""
        written = 0
        for at, key in enumerate(KEYS):
            for record in page.get(key) or ():
                self._open(at)
                self.out.write(b"\n" if self._first else b",\n")
                self.out.write(orjson.dumps(record))
                self._first = False
                self.counts[key] += 1
                written += 1
        return written

    def close(self) -> None:
        self._open(len(KEYS))
        self.out.write(b"}\n")

    def _open(self, at: int) -> None:
        """Close the lists before ``at`` and open ``at``'s (once each)."""
        if at < self._at:
            raise ValueError(f"export pages out of order: {KEYS[at]} after {KEYS[self._at]}")
        while self._at < at:
            if self._at >= 0:
                self.out.write(b"\n]" if not self._first else b"]")
            self._at += 1
            if self._at < len(KEYS):
                prefix = b"{" if self._at == 0 else b",\n"
                self.out.write(prefix + orjson.dumps(KEYS[self._at]) + b": [")
                self._first = True


def write_failures(out: IO[bytes], failures: Iterable[ReplayFailure]) -> int:
    """NDJSON lines ``{"index", "code", "message"}``; the number written."""
    count = 0
    for failure in failures:
        line = {"index": failure.index, "code": failure.code, "message": failure.message}
        out.write(orjson.dumps(line) + b"\n")
        count += 1
    return count
