"""HTTP guards: the request body size limit, a shortcut past Starlette's
routing for the GraphQL path, the bookmarks a request carries, and error
bodies given outside GraphQL."""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memexd.errors import BadUserInput
from memexd.graph import bookmarks

__all__ = ["BodyLimit", "BookmarkHeader", "Shortcut", "error_body", "with_header"]


def error_body(message: str, code: str = "BAD_USER_INPUT") -> bytes:
    """A GraphQL-shaped error document, for answers given outside GraphQL."""
    return json.dumps(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}
    ).encode()


def with_header(send: Send, name: bytes, value: Callable[[], bytes | None]) -> Send:
    """``send`` adding the header ``name`` to the response's start, its value
    asked for then (``None``: no header)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and (found := value()) is not None:
            message = {**message, "headers": [*message.get("headers", ()), (name, found)]}
        await send(message)

    return sending


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Reject bodies over ``max_bytes`` (or the path's own limit in
    ``paths``) with 413 and a GraphQL-shaped error.

    Checks ``Content-Length`` up front and counts streamed chunks too, so a
    chunked upload cannot slip past the header check. A body with one
    ``Content-Length`` within the limit (and no ``Transfer-Encoding``) is not
    counted: HTTP/1.1 framing ends it there, the server delivers no more.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, paths: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.paths = paths or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.paths.get(scope["path"], self.max_bytes)
        lengths = 0
        framed = True
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                if value.isdigit() and int(value) > limit:
                    await self._reject(send, limit)
                    return
                lengths += 1
                framed = framed and value.isdigit()
            elif name == b"transfer-encoding":
                framed = False
        if framed and lengths == 1:
            await self.app(scope, receive, send)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._reject(send, limit)

    async def _reject(self, send: Send, limit: int) -> None:
        await _answer(send, 413, error_body(f"request body larger than {limit} bytes"))


class Shortcut:
    """HTTP requests for ``path`` go straight to ``target``, past Starlette's
    exception middleware and router (a request object, two wrappers and a
    route scan on every request). For that path they do nothing: its route
    always matches, and ``target`` answers its own errors (no Starlette
    ``HTTPException``; the app registers no exception handlers). Outer
    middleware (errors, CORS, the body limit) still applies. Requests behind
    a root path, other paths and other scope types take the usual way.
    """

    def __init__(self, app: ASGIApp, path: str, target: ASGIApp) -> None:
        self.app = app
        self.path = path
        self.target = target

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self.path and not scope.get("root_path"):
            await self.target(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BookmarkHeader:
    """Read your writes across replicas: the request's ``Memexd-Bookmarks``
    header binds its transactions to start after those, and the bookmarks
    they leave go back in the response's header of the same name (Neo4j, and
    FalkorDB read from its replicas; see :mod:`memexd.graph.bookmarks`). A
    malformed header is 400."""

    _NAME = bookmarks.HEADER.lower().encode()

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((v for k, v in scope.get("headers", ()) if k == self._NAME), None)
        try:
            state, token = bookmarks.bind(None if sent is None else sent.decode("latin-1"))
        except BadUserInput as exc:
            await _answer(send, 400, error_body(exc.message))
            return

        def latest() -> bytes | None:
            return " ".join(state.latest).encode() if state.latest else None

        try:
            await self.app(scope, receive, with_header(send, self._NAME, latest))
        finally:
            bookmarks.unbind(token)


async def _answer(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
