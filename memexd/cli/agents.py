"""``memexd mcp``: memexd for an agent host, over stdio (memexd.mcp.stdio)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from memexd.access.grants import Access, parse_grants
from memexd.settings import Settings

__all__ = ["HANDLERS", "add_parsers"]


def add_parsers(commands: Any) -> list[argparse.ArgumentParser]:
    mcp = commands.add_parser(
        "mcp", help="serve MCP over stdio (for agent hosts)",
        description="Serve the Model Context Protocol on stdin/stdout. With --url, relay to a "
        "running memexd (key in MEMEXD_API_KEY); without, open the data directory itself.",
    )  # fmt: skip
    mcp.add_argument("--url", default=os.environ.get("MEMEXD_URL"),
                     help="a memexd's endpoint: http://HOST:PORT/mcp (MEMEXD_URL)")  # fmt: skip
    mcp.add_argument("--grant", action="append", metavar="GRANT",
                     help="without --url: act with only these grants (e.g. read:proj/), "
                     "repeatable; default every right")  # fmt: skip
    return [mcp]


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from memexd.mcp import stdio

    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, force=True)
    if args.url:
        if args.grant:
            print("memexd: --grant is for the data directory; a server's key sets the grants",
                  file=sys.stderr)  # fmt: skip
            return 1
        asyncio.run(stdio.relay(args.url, os.environ.get("MEMEXD_API_KEY")))
        return 0
    access = Access.everything("local") if not args.grant else Access.of(
        "local", parse_grants(args.grant)
    )  # fmt: skip
    asyncio.run(stdio.serve_alone(settings, access))
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {"mcp": _run}
