"""The ASGI application factory: Starlette + Strawberry over one graph store."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

from memexd.access.gate import Gate
from memexd.core import Memex
from memexd.errors import MemexError
from memexd.feed.hub import Feed
from memexd.feed.settings import FeedSettings
from memexd.feed.signals import drain_on_exit
from memexd.feed.store import WakingStore
from memexd.graph import Graph
from memexd.graph.notices import follow_writes
from memexd.graph.open import open_migrated
from memexd.jobs.worker import jobs_running
from memexd.mcp.http import PATH as MCP_PATH
from memexd.mcp.http import McpEndpoint
from memexd.recall import ensure_indexes
from memexd.recall.embedding import embedding
from memexd.server import explorer, graphiql, nesting
from memexd.server.http import BodyLimit, BookmarkHeader, Shortcut
from memexd.server.ingest import PATH as INGEST_PATH
from memexd.server.ingest import ingest_route
from memexd.server.origin import TraceIds, origin_of
from memexd.server.view import GraphQLApp, Holder
from memexd.settings import Settings, load_settings
from memexd.types import GraphStore

__all__ = ["create_app"]


def create_app(
    settings: Settings | None = None, *, store: GraphStore | None = None, embeds: bool = True
) -> Starlette:
    """Build the app. With ``store`` the caller owns the engine (and its
    migrations); without, start-up opens the configured engine, applies
    pending migrations, and shutdown closes it. ``embeds``: this process
    runs the embedding loop while it serves (one worker of several does)."""
    settings = settings or load_settings()
    nesting.install()  # graphql-core's variable walk, skipped where types bound it
    holder = Holder()
    gate = Gate(settings)
    feed = Feed(FeedSettings.of(settings))
    if store is not None:
        holder.memex = Memex(WakingStore(store, feed.wake), settings)
    mcp = McpEndpoint(lambda: holder.memex, gate, feed, settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restore = drain_on_exit(feed)
        try:
            async with (
                mcp.running(),
                _core(holder, settings, store, feed) as memex,
                embedding(memex, embeds),
                jobs_running(memex, settings),
            ):
                yield
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

    graphql = GraphQLApp(holder, settings, gate, feed)
    app = Starlette(
        routes=[
            *(graphiql.asset_routes() if settings.ide else []),
            Route("/graphql", graphql, methods=None),  # the view refuses other methods
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
            Route(MCP_PATH, mcp, methods=None),  # the SDK answers each method
            ingest_route(lambda: holder.memex, gate, origin_of),
            *explorer.routes(),
        ],
        lifespan=lifespan,
    )
    app.state.gate = gate
    app.state.feed = feed
    if not app.exception_handlers:  # the shortcut would pass them by
        app.add_middleware(Shortcut, path="/graphql", target=graphql)
    app.add_middleware(BookmarkHeader)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes,
                       paths={INGEST_PATH: settings.max_ingest_bytes})  # fmt: skip
    app.add_middleware(TraceIds)
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
                "memexd-bookmarks",
            ],
            expose_headers=["memexd-bookmarks", "x-trace-id"],
        )
    return app


@asynccontextmanager
async def _core(
    holder: Holder, settings: Settings, store: GraphStore | None, feed: Feed
) -> AsyncIterator[Memex]:
    """The core the app serves: over the caller's store, or over the
    configured engine, opened and migrated here and closed at shutdown."""
    if holder.memex is not None and store is not None:
        async with _noticed(store, feed):
            yield holder.memex
        return
    opened, _ = await open_migrated(settings)
    try:
        async with _noticed(opened, feed):
            await ensure_indexes(Graph(opened), settings.text_search)
            holder.memex = Memex(WakingStore(opened, feed.wake), settings)
            yield holder.memex
    finally:
        holder.memex = None
        await opened.close()


@asynccontextmanager
async def _noticed(store: GraphStore, feed: Feed) -> AsyncIterator[None]:
    """Other processes' writes wake the feed too (memexd.graph.notices)."""
    notices = asyncio.create_task(follow_writes(store, feed.wake), name="memexd-write-notices")
    try:
        yield
    finally:
        notices.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await notices
