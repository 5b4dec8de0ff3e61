"""The GraphQL view's WebSocket adapter: text frames, and the close code
memexd chose for a rejected ``connection_init``."""

from __future__ import annotations

import contextlib
from typing import Any

import orjson
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import WebSocketDisconnected

from memexd.feed.transport import WS_UNAUTHENTICATED

__all__ = ["WS_FORBIDDEN", "WS_UNAUTHENTICATED", "TextWebSocket", "reject"]

#: graphql-transport-ws's close code for a refused ``connection_init``.
WS_FORBIDDEN = 4403
#: Where a rejected ``connection_init`` leaves its close code and reason.
_REJECTION = "memexd.rejection"


def reject(connection: HTTPConnection, code: int, reason: str) -> None:
    """Close ``connection`` with ``code`` when Strawberry rejects its
    ``connection_init`` (it would close with 4403)."""
    connection.scope[_REJECTION] = (code, reason)


class TextWebSocket(ASGIWebSocketAdapter):
    """Sends text frames, as graphql-transport-ws requires (browsers' clients
    cannot parse binary ones), and closes a rejected ``connection_init`` with
    the code memexd chose (Strawberry closes every rejection as 4403)."""

    async def send_json(self, message: Any) -> None:
        if self.ws.application_state is not WebSocketState.CONNECTED:
            raise WebSocketDisconnected  # closed already: nothing more goes out
        try:
            await self.ws.send_text(orjson.dumps(message).decode())
        except WebSocketDisconnect as exc:
            raise WebSocketDisconnected from exc

    async def close(self, code: int, reason: str) -> None:
        if self.ws.application_state is not WebSocketState.CONNECTED:
            return
        rejected = self.ws.scope.get(_REJECTION)
        if code == WS_FORBIDDEN and rejected is not None:
            code, reason = rejected
        with contextlib.suppress(WebSocketDisconnect):  # the peer left: closed already
            await super().close(code, reason)
