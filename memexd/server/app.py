"""The ASGI application factory: Starlette + Strawberry over one graph store."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, process_result
from strawberry.types import ExecutionResult

from memexd.core import Memex
from memexd.errors import MemexError
from memexd.events.vocabulary import Origin
from memexd.graph.open import open_migrated
from memexd.memory.validation import long_number
from memexd.schema.build import build_schema
from memexd.server import graphiql
from memexd.server.context import Context
from memexd.server.extensions import coded
from memexd.server.http import BodyLimit, error_body
from memexd.server.loaders import Loaders
from memexd.settings import Settings, load_settings
from memexd.types import GraphStore

__all__ = ["create_app"]

_TRACE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")


class _Holder:
    """The running core; filled at start-up (or at once when a store is given)."""

    memex: Memex | None = None


def _origin(headers: Any) -> Origin:
    """Trace id from ``x-trace-id`` or a W3C ``traceparent`` header."""
    trace = headers.get("x-trace-id")
    if trace and _TRACE.fullmatch(trace):
        return Origin(trace_id=trace)
    parent = _TRACEPARENT.fullmatch(headers.get("traceparent", ""))
    return Origin(trace_id=parent.group(1) if parent else None)


def _no_constants(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


class _GraphQLApp(GraphQL[Context, None]):
    def __init__(self, holder: _Holder, settings: Settings) -> None:
        super().__init__(
            build_schema(settings), graphql_ide="graphiql" if settings.graphiql else None
        )
        self.holder = holder

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
        memex = self.holder.memex
        if memex is None:
            raise HTTPException(503, "memexd is starting")
        return Context(
            memex=memex,
            loaders=Loaders(memex),
            origin=_origin(request.headers),
            request=request if isinstance(request, Request) else None,
        )


def create_app(settings: Settings | None = None, *, store: GraphStore | None = None) -> Starlette:
    """Build the app. With ``store`` the caller owns the engine (and its
    migrations); without, start-up opens the configured engine, applies
    pending migrations, and shutdown closes it."""
    settings = settings or load_settings()
    holder = _Holder()
    if store is not None:
        holder.memex = Memex(store, settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if store is not None:
            yield
            return
        opened, _ = await open_migrated(settings)
        try:
            holder.memex = Memex(opened, settings)
            yield
        finally:
            holder.memex = None
            await opened.close()

    async def healthz(request: Request) -> JSONResponse:
        memex = holder.memex
        if memex is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        try:
            await memex.graph.store.ping()
        except MemexError:
            return JSONResponse({"status": "graph engine unavailable"}, status_code=503)
        return JSONResponse({"status": "ok", "backend": memex.graph.backend})

    graphql = _GraphQLApp(holder, settings)
    app = Starlette(
        routes=[
            *graphiql.asset_routes(),
            Route("/graphql", graphql, methods=None),  # the view refuses other methods
            Route("/healthz", healthz),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    return app
