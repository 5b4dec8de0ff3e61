"""Streamable HTTP at ``/mcp`` on ``memexd serve``.

Every request is authenticated by the same :class:`Gate` as GraphQL (API key
or JWT in ``Authorization: Bearer …``) before the SDK sees it: bad or missing
credentials are HTTP 401, a key file that cannot be read 503. The caller's
access rides in the ASGI scope to :mod:`memexd.mcp.caller`.

Stateless: each POST is answered on its own, with no session kept in this
process, so any worker or replica can answer any request (2026-07-28
clients work this way anyway; older clients' handshakes are answered
per request too).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import orjson
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from memexd.access.gate import Gate
from memexd.core import Memex
from memexd.errors import MemexError, Unauthenticated
from memexd.feed.hub import Feed
from memexd.mcp.caller import ACCESS_KEY, FromRequest
from memexd.mcp.changes import ItemChanges
from memexd.mcp.server import build_server
from memexd.settings import Settings

__all__ = ["PATH", "McpEndpoint"]

PATH = "/mcp"


class McpEndpoint:
    """The ASGI app at :data:`PATH`; :meth:`running` is its lifespan."""

    def __init__(
        self, core: Callable[[], Memex | None], gate: Gate, feed: Feed, settings: Settings
    ) -> None:
        self.gate = gate
        self.changes = ItemChanges(feed, core)
        self.server = build_server(FromRequest(core), self.changes)
        self.app = self.server.streamable_http_app(
            streamable_http_path=PATH, stateless_http=True, host=settings.host,
            max_request_body_size=settings.max_body_bytes,
        )  # fmt: skip

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        try:
            async with self.server.session_manager.run():
                yield
        finally:
            await self.changes.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            access = self.gate.authenticate(Headers(scope=scope).get("authorization"))
        except MemexError as exc:
            await _refuse(send, exc)
            return
        scope[ACCESS_KEY] = access
        await self.app(scope, receive, send)


async def _refuse(send: Send, exc: MemexError) -> None:
    status = 401 if isinstance(exc, Unauthenticated) else 503
    body = orjson.dumps({"error": {"code": exc.code, "message": exc.message}})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="memexd"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
