"""``memexd mcp``: MCP over stdin/stdout, for hosts that spawn a process.

Two ways to reach the memory, chosen by whether a URL is given:

- **Through a running server** (``--url``, with an API key in
  ``MEMEXD_API_KEY``): this process relays every request to the server's
  ``/mcp`` and its answers back. The server holds the data, the grants and
  the live feed, so several agents share one memory under their own keys;
  this is the way whenever a ``memexd serve`` runs.
- **On its own** (no URL): it opens the configured engine itself (the data
  directory's embedded FalkorDB, or ``MEMEXD_GRAPH_URI``), for one agent on
  one machine with nothing else to run. Whoever can open the data directory
  owns it, so it acts with every right unless ``--grant`` narrows it. A data
  directory a server holds is refused with the way to use the server.
"""

from __future__ import annotations

from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
)

from memexd import __version__
from memexd.access.grants import Access
from memexd.core import Memex
from memexd.errors import StartupError
from memexd.feed.hub import Feed
from memexd.feed.settings import FeedSettings
from memexd.feed.store import WakingStore
from memexd.graph import Graph
from memexd.mcp.caller import Fixed
from memexd.mcp.changes import ItemChanges
from memexd.mcp.server import INSTRUCTIONS, build_server
from memexd.recall import ensure_indexes
from memexd.recall.embedding import embedding
from memexd.settings import Settings

__all__ = ["relay", "serve_alone"]

Ctx = ServerRequestContext[Any, Any]


async def serve_alone(settings: Settings, access: Access) -> None:
    """Serve stdio over the configured engine, opened here, as ``access``."""
    from memexd.graph.open import open_migrated

    try:
        store, _ = await open_migrated(settings)
    except StartupError as exc:
        if "in use by another memexd" in exc.message:
            raise StartupError(
                f"{exc.message}: use that server with memexd mcp --url "
                "http://HOST:PORT/mcp and MEMEXD_API_KEY"
            ) from None
        raise
    feed = Feed(FeedSettings.of(settings))
    core = Memex(WakingStore(store, feed.wake), settings)
    changes = ItemChanges(feed, lambda: core)
    try:
        await ensure_indexes(Graph(store), settings.text_search)
        memex = core.as_caller(access)
        async with embedding(memex, True):  # what it remembers becomes recallable
            await build_server(Fixed(memex), changes).run_stdio_async()
    finally:
        await changes.close()
        await feed.close()
        await store.close()


async def relay(url: str, key: str | None) -> None:
    """Serve stdio by relaying each request to the memexd at ``url``."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(url, http_client=http), cache=None) as remote,
    ):
        server = _relaying(remote)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def _relaying(remote: Client) -> Server[Any]:
    async def list_tools(_: Ctx, params: PaginatedRequestParams | None) -> ListToolsResult:
        return await remote.list_tools()

    async def call_tool(_: Ctx, params: CallToolRequestParams) -> CallToolResult:
        return await remote.call_tool(params.name, params.arguments or {})

    async def list_resources(_: Ctx, params: PaginatedRequestParams | None) -> ListResourcesResult:
        return await remote.list_resources()

    async def list_templates(
        _: Ctx, params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return await remote.list_resource_templates()

    async def read_resource(_: Ctx, params: ReadResourceRequestParams) -> ReadResourceResult:
        return await remote.read_resource(str(params.uri))

    return Server(
        "memexd", version=__version__, instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_templates, on_read_resource=read_resource,
    )  # fmt: skip
