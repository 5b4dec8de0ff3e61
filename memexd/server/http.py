"""HTTP guards: the request body size limit, and error bodies given outside GraphQL."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit", "error_body"]


def error_body(message: str, code: str = "BAD_USER_INPUT") -> bytes:
    """A GraphQL-shaped error document, for answers given outside GraphQL."""
    return json.dumps(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}
    ).encode()


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Reject bodies over ``max_bytes`` with 413 and a GraphQL-shaped error.

    Checks ``Content-Length`` up front and counts streamed chunks too, so a
    chunked upload cannot slip past the header check.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._reject(send)
                return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
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
                await self._reject(send)

    async def _reject(self, send: Send) -> None:
        body = error_body(f"request body larger than {self.max_bytes} bytes")
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
