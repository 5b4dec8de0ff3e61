"""memexd's graphql-transport-ws connection: Strawberry's, plus what a
long-lived feed needs (docs/feed.md).

- every error sent on the connection carries ``extensions.code`` (Strawberry
  sends subscription errors before the schema extensions that add it run), and
  a GraphQL syntax error is an ``error`` message, not a closed connection;
- a subscriber too far behind the log: the connection closes with 4413;
- heartbeats: a ``ping`` every ``heartbeat_s`` once acknowledged; a connection
  silent (no ``pong``, nothing) for two heartbeats closes with 4408; the
  credentials are checked again at each beat (a revoked key or an expired
  token closes with 4401);
- shutdown: each subscription completes, then the connection closes with 1001.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator
from functools import lru_cache
from typing import Any

from graphql import GraphQLError, OperationType, get_operation_ast, parse
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.schema.schema import StreamResult
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
    _OperationStreamClosed,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    Message,
    SubscribeMessage,
)
from strawberry.types import ExecutionResult
from strawberry.utils.aio import aclosing

from memexd.errors import MemexError, ResourceExhausted, Unauthenticated
from memexd.feed.stream import SlowConsumer
from memexd.server.context import Context
from memexd.server.extensions import coded

__all__ = [
    "WS_GOING_AWAY",
    "WS_SILENT",
    "WS_SLOW_CONSUMER",
    "WS_UNAUTHENTICATED",
    "FeedTransport",
    "close_reason",
    "subscribes",
]

log = logging.getLogger("memexd.feed")

#: Close codes (docs/feed.md).
WS_GOING_AWAY, WS_SILENT, WS_SLOW_CONSUMER, WS_UNAUTHENTICATED = 1001, 4408, 4413, 4401


@lru_cache(maxsize=512)
def subscribes(query: str, operation: str | None, max_tokens: int) -> bool:
    """Whether the operation a request runs is a subscription (a document that
    does not parse is not: its own error is reported where it is run)."""
    try:
        document = parse(query, max_tokens=max_tokens)
    except GraphQLError:
        return False
    found = get_operation_ast(document, operation)
    return found is not None and found.operation is OperationType.SUBSCRIPTION


def close_reason(code: str, message: str) -> str:
    """``CODE: message``, cut to the 123 bytes a close reason may hold."""
    return f"{code}: {message}".encode()[:123].decode(errors="ignore")


class FeedTransport(BaseGraphQLTransportWSHandler[Context, None]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._heard = time.monotonic()
        self._heartbeat: asyncio.Task[None] | None = None
        self._closed = False

    async def handle(self) -> None:
        feed = self.context.feed
        if feed is not None:
            feed.connections.add(self)
        try:
            await super().handle()
        finally:
            if feed is not None:
                feed.connections.discard(self)
            if self._heartbeat is not None:
                self._heartbeat.cancel()

    async def handle_message(self, message: Message) -> None:
        self._heard = time.monotonic()
        await super().handle_message(message)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        await super().handle_connection_init(message)
        feed = self.context.feed
        if self.connection_acknowledged and feed is not None and self._heartbeat is None:
            beat = self._beat(feed.settings.heartbeat_s)
            self._heartbeat = asyncio.create_task(beat, name="memexd-feed-heartbeat")

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        """Strawberry refuses an operation past the connection's limit with an
        error without a code: give it one."""
        limit = self.max_subscriptions_per_connection
        if self.connection_acknowledged and limit is not None and len(self.operations) >= limit:
            error = ResourceExhausted(f"at most {limit} operations at once on one connection "
                                      "(MEMEXD_FEED_MAX_SUBSCRIPTIONS)")  # fmt: skip
            extensions = {"code": error.code}
            payload = [GraphQLError(error.message, extensions=extensions).formatted]
            await self.send_message({"id": message["id"], "type": "error", "payload": payload})
            return
        await super().handle_subscribe(message)

    async def handle_task_exception(self, error: Exception) -> None:
        if self._closed or isinstance(error, WebSocketDisconnected):
            return  # a send raced the close: nothing to report
        await super().handle_task_exception(error)

    # ---------------------------------------------------------------- results

    async def _send_result_stream(
        self, operation: Operation[Context, None], result_source: StreamResult
    ) -> None:
        await super()._send_result_stream(operation, self._coded(operation, result_source))

    async def _coded(
        self, operation: Operation[Context, None], source: StreamResult
    ) -> AsyncGenerator[Any, None]:
        """Each result with coded errors; a slow consumer closes the connection."""
        caller = self.context.access.name
        async with aclosing(source):
            async for result in source:
                if isinstance(result, ExecutionResult) and result.errors:
                    result.errors = [coded(e, caller) for e in result.errors]
                    slow = _code_of(result, SlowConsumer.code)
                    if slow is not None:
                        self.operations.pop(operation.id, None)
                        await self.close(WS_SLOW_CONSUMER, close_reason(SlowConsumer.code, slow))
                        raise _OperationStreamClosed
                yield result

    # ---------------------------------------------------------------- heartbeats

    async def _beat(self, interval: float) -> None:
        while not self._closed:
            await asyncio.sleep(interval)
            if time.monotonic() - self._heard >= 2 * interval:
                await self.close(WS_SILENT, f"no pong within {2 * interval:g} s")
                return
            if not await self._still_authenticated():
                return
            with contextlib.suppress(WebSocketDisconnected, RuntimeError):
                await self.send_message({"type": "ping"})

    async def _still_authenticated(self) -> bool:
        """Check the ``connection_init`` credentials again: a key revoked or a
        token expired since ends the connection."""
        recheck = self.context.recheck
        if recheck is None:
            return True
        try:
            recheck()
        except Unauthenticated as exc:
            await self.close(WS_UNAUTHENTICATED, close_reason(exc.code, exc.message))
            return False
        except MemexError:  # the key file cannot be read now: check again next beat
            log.debug("feed: credentials cannot be checked now", exc_info=True)
        return True

    # ---------------------------------------------------------------- closing

    async def drain(self) -> None:
        """Shutdown (the feed is closing, so its streams end): let every
        operation finish, so each subscription sends ``complete``, then close."""
        tasks = [op.task for op in list(self.operations.values()) if op.task is not None]
        if tasks:
            await asyncio.wait(tasks)
        await self.close(WS_GOING_AWAY, "memexd is shutting down: resume with `after`")

    async def close(self, code: int, reason: str) -> None:
        """Close once; a connection already gone is closed."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(WebSocketDisconnected, RuntimeError, OSError):
            await self.websocket.close(code, reason)


def _code_of(result: ExecutionResult, code: str) -> str | None:
    """The message of the first error with ``code``, if any."""
    for error in result.errors or ():
        if (error.extensions or {}).get("code") == code:
            return error.message
    return None
