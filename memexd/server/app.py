"""The ASGI application factory: Starlette + Strawberry over one graph store."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter, GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, process_result
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult

from memexd.access.gate import Gate
from memexd.access.grants import NOBODY
from memexd.core import Memex
from memexd.errors import MemexError, StorageUnavailable, Unauthenticated
from memexd.events.vocabulary import Origin
from memexd.feed.hub import Feed
from memexd.feed.settings import FeedSettings
from memexd.feed.signals import drain_on_exit
from memexd.feed.store import WakingStore
from memexd.feed.transport import FeedTransport, close_reason, subscribes
from memexd.graph.open import open_migrated
from memexd.memory.validation import long_number
from memexd.schema.build import build_schema
from memexd.server import graphiql
from memexd.server.context import Context
from memexd.server.extensions import coded
from memexd.server.http import BodyLimit, error_body
from memexd.settings import Settings, load_settings
from memexd.types import GraphStore

__all__ = ["create_app"]

log = logging.getLogger("memexd.server")

_TRACE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")
#: Where a rejected ``connection_init`` leaves its close code and reason.
_REJECTION = "memexd.rejection"
#: graphql-transport-ws close codes: bad credentials, and no grant.
WS_UNAUTHENTICATED, WS_FORBIDDEN = 4401, 4403


class _Holder:
    """The running core; filled at start-up (or at once when a store is given)."""

    memex: Memex | None = None


def _origin(headers: Any) -> Origin:
    """Trace id from ``x-trace-id`` or a W3C ``traceparent`` header; cause id
    from ``x-cause-id`` (what made the caller act: an event id, a request id).
    Values that are not short plain tokens are ignored, never stored."""
    cause = headers.get("x-cause-id")
    cause = cause if cause and _TRACE.fullmatch(cause) else None
    trace = headers.get("x-trace-id")
    if trace and _TRACE.fullmatch(trace):
        return Origin(trace_id=trace, cause_id=cause)
    parent = _TRACEPARENT.fullmatch(headers.get("traceparent", ""))
    return Origin(trace_id=parent.group(1) if parent else None, cause_id=cause)


def _no_constants(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


class _WebSocket(ASGIWebSocketAdapter):
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


class _GraphQLApp(GraphQL[Context, None]):
    websocket_adapter_class = _WebSocket
    graphql_transport_ws_handler_class = FeedTransport

    def __init__(self, holder: _Holder, settings: Settings, gate: Gate, feed: Feed) -> None:
        super().__init__(
            build_schema(settings),
            graphql_ide="graphiql" if settings.ide else None,
            allow_queries_via_get=not settings.production,
            # the maintained protocol only: its connection_init carries credentials
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            max_subscriptions_per_connection=feed.settings.max_subscriptions,
        )
        self.holder = holder
        self.gate = gate
        self.feed = feed
        self.max_tokens = settings.max_tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:  # a malformed request: a GraphQL-shaped answer
            response = Response(
                error_body(exc.reason), exc.status_code, media_type="application/json"
            )
        except Unauthenticated as exc:
            response = Response(
                error_body(exc.message, exc.code),
                401,
                headers={"WWW-Authenticate": 'Bearer realm="memexd"'},
                media_type="application/json",
            )
        except StorageUnavailable as exc:  # the key file cannot be read: fail closed
            response = Response(
                error_body(exc.message, exc.code), 503, media_type="application/json"
            )
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(graphiql.page(str(request.url.path)))

    def decode_json(self, data: str | bytes) -> object:
        raw = data.encode() if isinstance(data, str) else data
        if long_number(raw):  # orjson would silently turn integers past 64 bits into floats
            # exact integers, so validation can refuse those beyond 64 bits
            try:
                return json.loads(raw, parse_constant=_no_constants)
            except RecursionError:
                raise json.JSONDecodeError("nested too deeply", "", 0) from None
        # orjson: several times faster on large batches, strict JSON, depth ≤ 1024
        return orjson.loads(raw)

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    def parse_json(self, data: str | bytes) -> Any:
        parsed = super().parse_json(data)
        if not isinstance(parsed, dict):
            raise HTTPException(400, "the request must be a JSON object (batches are not taken)")
        return parsed

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        if result.errors:  # errors raised before execution skip the extensions
            result.errors = [coded(e) for e in result.errors]
        return process_result(result)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        """The caller's context. A WebSocket starts with no grants and gets
        the caller's at ``connection_init``; the GraphiQL page needs none."""
        memex = self.holder.memex
        if memex is None:
            raise HTTPException(503, "memexd is starting")
        if isinstance(request, WebSocket) or self._ide_page(request):
            access = NOBODY
        else:
            access = self.gate.authenticate(request.headers.get("authorization"))
            log.debug("%s %s by %s", request.method, request.url.path, access.name)
        return Context.of(memex.as_caller(access), _origin(request.headers), request, self.feed)

    async def execute_operation(self, *args: Any, **kwargs: Any) -> Any:
        """HTTP runs queries and mutations; a subscription needs the WebSocket
        (graphql-core would run it as a query and fail on its non-null root)."""
        data = kwargs.get("request_data", args[2] if len(args) > 2 else None)
        query, name = getattr(data, "query", None), getattr(data, "operation_name", None)
        if isinstance(query, str) and subscribes(query, name, self.max_tokens):
            raise HTTPException(400, "subscriptions are served over WebSocket: "
                                     "graphql-transport-ws on /graphql")  # fmt: skip
        return await super().execute_operation(*args, **kwargs)

    def _ide_page(self, request: Request) -> bool:
        return self.graphql_ide is not None and self.should_render_graphql_ide(
            self.request_adapter_class(request)
        )

    async def on_ws_connect(self, context: Context) -> None:
        """Credentials in the ``connection_init`` payload, as
        ``{"Authorization": "Bearer …"}``; a bad one closes with 4401."""
        params = context.connection_params
        given = None
        if isinstance(params, dict):
            given = params.get("Authorization", params.get("authorization"))
        credential = given if isinstance(given, str) else None
        try:
            access = self.gate.authenticate(credential)
        except Unauthenticated as exc:
            if context.request is not None:
                reason = close_reason(exc.code, exc.message)
                context.request.scope[_REJECTION] = (WS_UNAUTHENTICATED, reason)
            raise ConnectionRejectionError from None
        context.rebind(context.memex.as_caller(access))
        # the connection may live for days: its heartbeats check the credentials again
        context.recheck = lambda: self.gate.authenticate(credential)


def create_app(settings: Settings | None = None, *, store: GraphStore | None = None) -> Starlette:
    """Build the app. With ``store`` the caller owns the engine (and its
    migrations); without, start-up opens the configured engine, applies
    pending migrations, and shutdown closes it."""
    settings = settings or load_settings()
    holder = _Holder()
    gate = Gate(settings)
    feed = Feed(FeedSettings.of(settings))
    if store is not None:
        holder.memex = Memex(WakingStore(store, feed.wake), settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restore = drain_on_exit(feed)
        try:
            if store is not None:
                yield
                return
            opened, _ = await open_migrated(settings)
            try:
                holder.memex = Memex(WakingStore(opened, feed.wake), settings)
                yield
            finally:
                holder.memex = None
                await opened.close()
        finally:
            restore()
            await feed.close()

    async def healthz(request: Request) -> JSONResponse:
        memex = holder.memex
        if memex is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        try:
            await memex.graph.store.ping()
        except MemexError:
            return JSONResponse({"status": "graph engine unavailable"}, status_code=503)
        return JSONResponse({"status": "ok", "backend": memex.graph.backend})

    graphql = _GraphQLApp(holder, settings, gate, feed)
    app = Starlette(
        routes=[
            *(graphiql.asset_routes() if settings.ide else []),
            Route("/graphql", graphql, methods=None),  # the view refuses other methods
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
        ],
        lifespan=lifespan,
    )
    app.state.gate = gate
    app.state.feed = feed
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=[
                "authorization",
                "content-type",
                "x-trace-id",
                "x-cause-id",
                "traceparent",
            ],
        )
    return app
