"""The MCP server: memexd's tools and resources for agents, on the official
SDK, whichever transport carries it.

Every tool and resource runs as the caller :mod:`memexd.mcp.caller` binds,
through the same core, grants and limits as GraphQL.
"""

from __future__ import annotations

from typing import Any

import orjson
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from memexd import __version__
from memexd.errors import MemexError
from memexd.mcp.answers import item_data
from memexd.mcp.caller import Bind
from memexd.mcp.changes import ItemChanges, ListenGuard
from memexd.mcp.history import HistoryTools
from memexd.mcp.integrity import IntegrityTools
from memexd.mcp.memory import MemoryTools
from memexd.mcp.plans import PlanTools
from memexd.memory.context import ContextRequest

__all__ = ["ITEM_URI", "build_server"]

ITEM_URI = "memexd://item/{id}"
CONTEXT_URI = "memexd://context{?scope_prefix,cue}"

INSTRUCTIONS = """\
memexd is your long-term memory: items with provenance (the items each was
derived from), trust (authority) and typed links. Recall before you act;
remember what you learn with its parents; ask why before you rely on
something; check impact before you forget with cascade. Ids are UUIDs.
What a write did can be taken back with undo and its trace id; as_of tells
what memory held at an instant.
"""


def build_server(bind: Bind, changes: ItemChanges) -> MCPServer:
    server: MCPServer = MCPServer(
        "memexd", version=__version__, instructions=INSTRUCTIONS,
        subscriptions=changes.bus, middleware=[ListenGuard(bind, changes)],
    )  # fmt: skip
    for tools in (MemoryTools(bind), IntegrityTools(bind), PlanTools(bind), HistoryTools(bind)):
        tools.register(server)
    _resources(server, bind)
    return server


def _resources(server: MCPServer, bind: Bind) -> None:
    @server.resource(ITEM_URI, name="item", mime_type="application/json",
                     description="A memory item by id, as JSON (MemEX's fields).")  # fmt: skip
    async def item(id: str, ctx: Context[Any, Any]) -> str:
        try:
            found = await bind(ctx).memex.item_reads.get(id, include_retracted=True)
        except MemexError as exc:
            raise ResourceError(f"{exc.code}: {exc.message}") from None
        if found is None:
            raise ResourceNotFoundError(f"MEMORY_NOT_FOUND: no item {id}")
        return orjson.dumps(item_data(found)).decode()

    @server.resource(CONTEXT_URI, name="context", mime_type="text/markdown",
                     description="The context block: memories worth having in mind now, "
                     "optionally within a scope prefix and led by a cue.")  # fmt: skip
    async def context(
        ctx: Context[Any, Any], scope_prefix: str | None = None, cue: str | None = None
    ) -> str:
        try:
            request = ContextRequest(scope_prefix=scope_prefix, cue=cue)
            block = await bind(ctx).memex.contexts.block(request)
        except MemexError as exc:
            raise ResourceError(f"{exc.code}: {exc.message}") from None
        return block.text
