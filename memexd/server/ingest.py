"""``POST /items``: new items as NDJSON, one per line, results streamed back.

Each line is one ``MemoryItemInput`` as JSON, with the GraphQL input's
(camelCase) field names: ``{"scope": …, "kind": …, "content": {…},
"author": …, "sourceKind": …, "authority": 0.9, "parents": […], "meta": {…}}``.
Lines are checked as ``createItems`` checks its inputs (the same validation,
grants and events), then created in batches of ``?batch=`` lines (default
1,000, at most ``MEMEXD_MAX_BATCH``), each batch one statement, the next batch
read and checked while the engine writes the previous one.

Every line stands alone: a bad line gets its error and the others are
created. The answer (``200``, ``application/x-ndjson``) streams one result per
non-blank line, in line order (lines count from 1, blank ones included)::

    {"line": 1, "id": "0190…"}
    {"line": 2, "error": {"code": "BAD_USER_INPUT", "message": "authority: …"}}
    {"done": {"lines": 2, "created": 1, "failed": 1}}

The last line is ``done``; if the run stops early (the engine went away), the
last line is ``{"error": {"code": …, "message": …}}`` instead, and the batch
being written when it stopped may or may not have been written. Credentials
are those of ``/graphql`` (401 / 503 before anything is read). Memory stays
bounded: a line is read at most ``2 * MEMEXD_MAX_CONTENT_BYTES + 64 KiB``
long (a longer one fails alone, unread), and one batch is held at a time.
The body streams: it is bounded by ``MEMEXD_MAX_INGEST_BYTES`` (256 MiB), not
by ``MEMEXD_MAX_BODY_BYTES``, and the server's body deadline is the longest
wait between two reads, not the time of the whole body.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson
from starlette.datastructures import Headers, QueryParams
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from memexd.access.gate import Gate
from memexd.core import Memex
from memexd.errors import BadUserInput, MemexError, StorageUnavailable, Unauthenticated
from memexd.events.vocabulary import Origin
from memexd.memory import validation as check
from memexd.memory.batches import BatchWriter, Entry
from memexd.memory.validation import Limits, ValidItem
from memexd.server.answer import StreamedAnswer
from memexd.server.http import error_body

__all__ = ["MEDIA_TYPE", "PATH", "ingest_route"]

log = logging.getLogger("memexd.server.ingest")

MEDIA_TYPE = "application/x-ndjson"
#: Where the endpoint is: its body streams (memexd.server.protocol, BodyLimit).
PATH = "/items"
#: A line may carry content and meta at their limits, plus the other fields.
LINE_SLACK = 64 * 1024
DEFAULT_BATCH = 1_000
#: MemoryItemInput's field names (GraphQL's, camelCase).
_FIELDS = frozenset({"id", "scope", "kind", "content", "author", "sourceKind", "parents",
                     "authority", "conviction", "importance", "intentId", "taskId",
                     "meta", "lifecycle", "priority", "tags", "sessionId"})  # fmt: skip
_NDJSON = frozenset({MEDIA_TYPE, "application/jsonl", "application/jsonlines"})


def ingest_route(
    memex: Callable[[], Memex | None], gate: Gate, origin: Callable[[Headers], Origin]
) -> Route:
    """The ``POST /items`` route: ``memex`` gives the running core (``None``
    while starting), ``gate`` authenticates as for ``/graphql``, ``origin``
    reads the trace headers as for ``/graphql``."""
    return Route(PATH, _Ingest(memex, gate, origin), methods=["POST"])


class _Ingest:
    """The ASGI endpoint. Plain ASGI: the body is read while results are
    sent (Starlette's streaming response would compete for ``receive``)."""

    def __init__(
        self, memex: Callable[[], Memex | None], gate: Gate, origin: Callable[[Headers], Origin]
    ) -> None:
        self.memex = memex
        self.gate = gate
        self.origin = origin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        try:
            memex, batch = self._admit(headers, QueryParams(scope.get("query_string", b"")))
        except _Refusal as refusal:
            await refusal.send(send)
            return
        run = _Run(memex, self.origin(headers), batch, send)
        await run.start()
        await run.lines(_body_lines(receive, memex))

    def _admit(self, headers: Headers, query: QueryParams) -> tuple[Memex, int]:
        """The caller's core and the batch size, or why not."""
        core = self.memex()
        if core is None:
            raise _Refusal(503, "memexd is starting", "UNAVAILABLE")
        try:
            access = self.gate.authenticate(headers.get("authorization"))
        except Unauthenticated as exc:
            raise _Refusal(401, exc.message, exc.code, unauthenticated=True) from None
        except StorageUnavailable as exc:  # the key file cannot be read: fail closed
            raise _Refusal(503, exc.message, exc.code) from None
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if media not in _NDJSON:
            raise _Refusal(415, f"send NDJSON: Content-Type: {MEDIA_TYPE}")
        log.debug("POST /items by %s", access.name)
        return core.as_caller(access), _batch_size(query.get("batch"), core.limits.max_batch)


def _batch_size(given: str | None, most: int) -> int:
    if given is None:
        return min(DEFAULT_BATCH, most)
    if not given.isdigit() or not 1 <= int(given) <= most:
        raise _Refusal(400, f"batch: must be an integer from 1 to {most} (MEMEXD_MAX_BATCH)")
    return int(given)


class _Refusal(Exception):
    """An answer given before the body is read."""

    def __init__(
        self, status: int, message: str, code: str = "BAD_USER_INPUT", *,
        unauthenticated: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.status, self.body = status, error_body(message, code)
        self.headers = [(b"content-type", b"application/json")]
        if unauthenticated:
            self.headers.append((b"www-authenticate", b'Bearer realm="memexd"'))

    async def send(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


# ---------------------------------------------------------------- reading


class _TooLong:
    """Stands for a line over the limit (its bytes are dropped as they come)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit


async def _body_lines(receive: Receive, memex: Memex) -> AsyncIterator[bytes | _TooLong]:
    """The body's lines (blank ones too, to keep the numbering), each at most
    ``limit`` bytes; the part of a longer one is never held."""
    limit = 2 * memex.limits.max_content_bytes + LINE_SLACK
    held, skipping, seen = b"", False, 0
    while True:
        try:
            message = await receive()
        except Exception:  # the body limit's guard (memexd.server.http) stops the read
            raise BadUserInput(
                f"the body was cut off after {seen:,} bytes: at most "
                f"{memex.settings.max_ingest_bytes:,} (MEMEXD_MAX_INGEST_BYTES); send fewer lines "
                "per request"
            ) from None
        if message["type"] != "http.request":
            return  # the client left: nothing more to answer
        chunk: bytes = message.get("body", b"")
        seen += len(chunk)
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if skipping:
                skipping = False
            elif len(held) + end - start > limit:
                yield _TooLong(limit)
            else:
                yield held + chunk[start:end]
            held, start = b"", end + 1
        if not skipping:
            held += chunk[start:]
            if len(held) > limit:
                held, skipping = b"", True
                yield _TooLong(limit)
        if not message.get("more_body", False):
            if held and not skipping:
                yield held
            return


def _decode(line: bytes) -> Any:
    """A line's JSON value; integers past 64 bits stay exact so that
    validation refuses them by name (orjson would refuse the line)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if not check.long_number(line):
            raise BadUserInput(f"bad JSON: {exc.msg}") from None
    try:
        return json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise BadUserInput(f"bad JSON: {exc}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _checked(value: Any, limits: Limits) -> ValidItem:
    """A line's item, checked as ``createItems`` checks an input (its fields
    read where they are: no draft is built first)."""
    if not isinstance(value, dict):
        raise BadUserInput("a line must be a JSON object (one MemoryItemInput)")
    unknown = value.keys() - _FIELDS
    if unknown:
        raise BadUserInput(f"unknown fields {sorted(unknown)} (MemoryItemInput's names, camelCase)")
    get = value.get
    return check.item_of(get("id"), get("scope"), get("kind"), get("content"), get("author"),
                         get("sourceKind"), get("authority"), get("parents"), get("conviction"),
                         get("importance"), get("intentId"), get("taskId"), get("meta"),
                         limits, lifecycle=get("lifecycle"), priority=get("priority"),
                         tags=get("tags"), session_id=get("sessionId"))  # fmt: skip


# ---------------------------------------------------------------- one request


class _Run:
    """One request's lines: checked, batched, written, answered in order."""

    def __init__(self, memex: Memex, origin: Origin, batch: int, send: Send) -> None:
        self.memex = memex
        self.answer = StreamedAnswer(send, MEDIA_TYPE)
        self.writer: BatchWriter[int] = BatchWriter(memex.items, origin, batch, self._settled)
        self.counts = {"lines": 0, "created": 0, "failed": 0}

    async def start(self) -> None:
        await self.answer.start()

    async def lines(self, lines: AsyncIterator[bytes | _TooLong]) -> None:
        number = 0
        try:
            async for line in lines:
                number += 1
                if isinstance(line, _TooLong):
                    await self.writer.add(number, None, BadUserInput(
                        f"line longer than {line.limit} bytes"))  # fmt: skip
                elif line.strip():
                    await self._line(number, line)
            await self.writer.close()
        except Exception as exc:  # the engine went away, the body was cut off: say so, stop
            await self.writer.cancel()
            await self._end({"error": _error(exc, "the request")})
            return
        await self._end({"done": self.counts})

    async def _line(self, number: int, line: bytes) -> None:
        try:
            valid = _checked(_decode(line), self.memex.limits)
            self.memex.access.require_write(valid.item.scope, field="scope")
        except MemexError as exc:  # BAD_USER_INPUT, INVALID_TIMESTAMP, FORBIDDEN
            await self.writer.add(number, None, exc)
            return
        await self.writer.add(number, valid)

    async def _settled(self, entries: list[Entry[int]]) -> None:
        out = bytearray()
        for entry in entries:
            self.counts["lines"] += 1
            if entry.created:
                self.counts["created"] += 1
                out += orjson.dumps({"line": entry.tag, "id": entry.id}) + b"\n"
            else:
                self.counts["failed"] += 1
                error = entry.error or MemexError("not written")
                out += orjson.dumps({"line": entry.tag, "error": _error(error)}) + b"\n"
        self.answer.put(bytes(out))

    async def _end(self, last: dict[str, Any]) -> None:
        await self.answer.close(orjson.dumps(last) + b"\n")


def _error(exc: BaseException, where: str = "a line") -> dict[str, str]:
    """An error as the client sees it: ours with their code and message,
    anything else masked as ``INTERNAL`` (and logged), as GraphQL does."""
    if isinstance(exc, MemexError) and exc.public:
        return {"code": exc.code, "message": exc.message}
    log.error("internal error while ingesting %s", where, exc_info=exc)
    return {"code": "INTERNAL", "message": "Internal server error."}
