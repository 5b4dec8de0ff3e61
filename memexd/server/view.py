"""The GraphQL endpoint: Strawberry's ASGI view with memexd's context,
credentials, error codes, body parsing and the WebSocket feed."""

from __future__ import annotations

import json
import logging
from typing import Any, overload

import orjson
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError, MissingQueryError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData, process_result
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UNSET

from memexd.access.gate import Gate
from memexd.access.grants import NOBODY
from memexd.core import Memex
from memexd.errors import Overloaded, StorageUnavailable, Unauthenticated
from memexd.feed.hub import Feed
from memexd.feed.transport import FeedTransport, close_reason, subscribes
from memexd.graph.gate import one_wait
from memexd.memory.validation import long_number
from memexd.schema.build import build_schema
from memexd.server import graphiql
from memexd.server.context import Context
from memexd.server.execution import Operations
from memexd.server.extensions import coded
from memexd.server.http import error_body
from memexd.server.origin import origin_of
from memexd.server.prepared import Prepared
from memexd.server.websocket import WS_UNAUTHENTICATED, TextWebSocket, reject
from memexd.settings import Settings

__all__ = ["GraphQLApp", "Holder"]

log = logging.getLogger("memexd.server")

#: The headers of an answer the server had no capacity for, or whose engine
#: was unavailable (an engine restarting, a failover).
OVERLOADED = {"Retry-After": "1"}


class Holder:
    """The running core; filled at start-up (or at once when a store is given)."""

    memex: Memex | None = None


def _no_constants(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


class GraphQLApp(GraphQL[Context, None]):
    websocket_adapter_class = TextWebSocket
    graphql_transport_ws_handler_class = FeedTransport

    def __init__(self, holder: Holder, settings: Settings, gate: Gate, feed: Feed) -> None:
        schema = build_schema(settings)
        super().__init__(
            schema,
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
        #: Schema.execute without its per-phase extension machinery (if the schema allows)
        self.operations = Operations.of(self.schema)
        #: point reads answered without the executor (memexd.server.prepared)
        self.prepared = Prepared(schema._schema)

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

    @overload
    async def run(
        self, request: Request, context: Context = UNSET, root_value: None = UNSET
    ) -> Response: ...

    @overload
    async def run(
        self, request: WebSocket, context: Context = UNSET, root_value: None = UNSET
    ) -> WebSocket: ...

    async def run(
        self, request: Request | WebSocket, context: Context = UNSET, root_value: None = UNSET
    ) -> Response | WebSocket:
        """Strawberry's ``run``; a POST takes the same steps without those that
        do nothing in this view (a root value, sub-response headers, HTTP
        streaming transports, batches, incremental delivery; checking a result
        against Strawberry's runtime protocol alone takes ~10 µs)."""
        if isinstance(request, WebSocket):
            return await super().run(request, context, root_value)
        if (
            request.method != "POST"
            or context is not UNSET
            or root_value is not UNSET
            or self._stream_transport_map
        ):
            return await super().run(request, context, root_value)
        adapter = self.request_adapter_class(request)
        # never sent: the context has no use for it, nothing sets its headers
        sub_response = Response()
        own = await self.get_context(request, response=sub_response)
        try:
            data = await self.parse_http_body(adapter)
        except json.JSONDecodeError as exc:
            raise HTTPException(400, "Unable to parse request body as JSON") from exc
        except KeyError as exc:
            raise HTTPException(400, "File(s) missing in form data") from exc
        with one_wait():
            result = await self.prepared.answer(
                data.query, data.operation_name, data.variables, own
            )
            if result is None:
                result = await self.execute_operation(
                    request=request,
                    request_adapter=adapter,
                    request_data=data,
                    context=own,
                    root_value=None,
                    sub_response=sub_response,
                )
                if not isinstance(result, ExecutionResult):  # only the cases skipped above
                    raise TypeError(f"unexpected execution result {type(result).__name__}")
                self.prepared.learn(data.query, data.operation_name, not result.errors)
        response_data = await self.process_result(request=request, result=result)
        headers = None
        if result.errors:
            self._handle_errors(result.errors, response_data)
            causes = [e.original_error for e in result.errors]
            if any(isinstance(cause, Overloaded) for cause in causes):
                # more work than the server can do: as the connection cap says it
                return Response(self.encode_json(response_data), 503, OVERLOADED,
                                media_type="application/json")  # fmt: skip
            if any(isinstance(cause, StorageUnavailable) for cause in causes):
                headers = OVERLOADED  # the engine restarts, or a failover: soon again
        return Response(self.encode_json(response_data), headers=headers,
                        media_type="application/json")  # fmt: skip

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        """Strawberry's, with a shortcut for the usual ``Content-Type:
        application/json`` POST (its parser builds an email message)."""
        if (
            request.method != "POST"
            or request.content_type != "application/json"
            or self._stream_transport_map
        ):
            return await super().parse_http_body(request)
        data = self.parse_json(await request.get_body())  # a dict: see parse_json
        query, variables = data.get("query"), data.get("variables")
        extensions = data.get("extensions")
        if not isinstance(query, str | None):
            raise HTTPException(
                400, "The GraphQL operation's `query` must be a string or null, if provided."
            )
        if not isinstance(variables, dict | None):
            raise HTTPException(
                400, "The GraphQL operation's `variables` must be an object or null, if provided."
            )
        if not isinstance(extensions, dict | None):
            raise HTTPException(
                400,
                "The GraphQL operation's `extensions` must be an object or null, if provided.",
            )
        return GraphQLRequestData(
            query=query,
            variables=variables,
            operation_name=data.get("operationName"),
            extensions=extensions,
        )

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
            if log.isEnabledFor(logging.DEBUG):  # request.url costs a parse
                log.debug("%s %s by %s", request.method, request.url.path, access.name)
        return Context.of(memex.as_caller(access), origin_of(request.headers), request, self.feed)

    async def execute_operation(self, *args: Any, **kwargs: Any) -> Any:
        """HTTP runs queries and mutations; a subscription needs the WebSocket
        (graphql-core would run it as a query and fail on its non-null root)."""
        data = kwargs.get("request_data", args[2] if len(args) > 2 else None)
        query, name = getattr(data, "query", None), getattr(data, "operation_name", None)
        if isinstance(query, str) and subscribes(query, name, self.max_tokens):
            raise HTTPException(400, "subscriptions are served over WebSocket: "
                                     "graphql-transport-ws on /graphql")  # fmt: skip
        return await super().execute_operation(*args, **kwargs)

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """Strawberry's, through :class:`Operations` when the schema allows."""
        operations = self.operations
        if operations is None:
            return await super().execute_single(
                request, request_adapter, sub_response, context, root_value, request_data
            )
        method = request_adapter.method
        allowed = OperationType.from_http(method)
        if not self.allow_queries_via_get and method == "GET":
            allowed = allowed - {OperationType.QUERY}
        try:
            return await operations.execute(
                request_data.query,
                request_data.variables,
                context,
                root_value,
                request_data.operation_name,
                allowed,
                request_data.extensions,
            )
        except CannotGetOperationTypeError as exc:
            raise HTTPException(400, exc.as_http_error_reason()) from exc
        except InvalidOperationTypeError as exc:
            raise HTTPException(400, exc.as_http_error_reason(method)) from exc
        except MissingQueryError as exc:
            raise HTTPException(400, "No GraphQL query found in the request") from exc

    def _ide_page(self, request: Request) -> bool:
        # only a GET renders the page
        return (
            self.graphql_ide is not None
            and request.method == "GET"
            and self.should_render_graphql_ide(self.request_adapter_class(request))
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
                reject(context.request, WS_UNAUTHENTICATED, reason)
            raise ConnectionRejectionError from None
        context.rebind(context.memex.as_caller(access))
        # the connection may live for days: its heartbeats check the credentials again
        context.recheck = lambda: self.gate.authenticate(credential)
