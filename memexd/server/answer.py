"""An HTTP answer streamed back while the request's body is still read."""

from __future__ import annotations

import asyncio

from starlette.types import Send

__all__ = ["StreamedAnswer"]


class StreamedAnswer:
    """A ``200`` answer whose body is sent as fast as the client reads it,
    without holding up the reading of the request: most clients send their
    whole body before they read, so a reader that waited for its answer to be
    taken would stall both sides once the answer filled the socket. What the
    client has not read yet waits here; the caller bounds it (``POST /items``:
    a line's result is a fraction of the line, and the body is bounded by
    ``MEMEXD_MAX_INGEST_BYTES``)."""

    def __init__(self, send: Send, media_type: str) -> None:
        self._send = send
        self._media_type = media_type.encode()
        self._pending: list[bytes] = []
        self._ready = asyncio.Event()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        headers = [(b"content-type", self._media_type), (b"cache-control", b"no-store")]
        await self._send({"type": "http.response.start", "status": 200, "headers": headers})
        self._task = asyncio.create_task(self._run())

    def put(self, body: bytes) -> None:
        self._pending.append(body)
        self._ready.set()

    async def close(self, last: bytes) -> None:
        """Send ``last``, after everything put before it, and end the answer."""
        self.put(last)
        self._closed = True
        if self._task is not None:
            await self._task

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            body, self._pending = b"".join(self._pending), []
            last = self._closed
            await self._send({"type": "http.response.body", "body": body, "more_body": not last})
            if last:
                return
