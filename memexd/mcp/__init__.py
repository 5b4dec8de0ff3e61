"""memexd for agents over the Model Context Protocol (the official ``mcp``
SDK): the tools and resources (:mod:`memexd.mcp.server`), Streamable HTTP at
``/mcp`` on ``memexd serve`` (:mod:`memexd.mcp.http`) and ``memexd mcp`` over
stdio (:mod:`memexd.mcp.stdio`)."""

from memexd.mcp.server import build_server

__all__ = ["build_server"]
