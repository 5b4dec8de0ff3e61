"""Who a tool call runs as: the core bound to the caller's grants, and the
origin its events carry.

Over Streamable HTTP each request was authenticated by :mod:`memexd.mcp.http`
before the SDK saw it, and the caller's :class:`Access` rides in the ASGI
scope; a call binds the core to it. Over stdio the process runs as one
caller, fixed when it starts (:mod:`memexd.mcp.stdio`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context

from memexd.access.grants import Access
from memexd.core import Memex
from memexd.errors import StorageUnavailable, Unauthenticated
from memexd.events.vocabulary import Origin
from memexd.ids import new_id
from memexd.server.origin import origin_of

__all__ = ["ACCESS_KEY", "Bind", "Caller", "Fixed", "FromRequest"]

#: Where :mod:`memexd.mcp.http` leaves the caller's access in the ASGI scope.
ACCESS_KEY = "memexd.access"


@dataclass(frozen=True, slots=True)
class Caller:
    memex: Memex
    origin: Origin

    @property
    def name(self) -> str:
        return self.memex.access.name


class Bind:
    """The caller of a tool call (:meth:`__call__`) or of any request (:meth:`of`)."""

    def __call__(self, ctx: Context[Any, Any]) -> Caller:
        return self.of(ctx.request_context)

    def of(self, request: ServerRequestContext[Any, Any]) -> Caller:
        raise NotImplementedError


class Fixed(Bind):
    """Every call as ``memex``'s caller (stdio: one process, one caller),
    each under a trace of its own (an undo takes one call back)."""

    def __init__(self, memex: Memex) -> None:
        self.memex = memex

    def of(self, request: ServerRequestContext[Any, Any]) -> Caller:
        return Caller(self.memex, Origin(trace_id=new_id()))


class FromRequest(Bind):
    """Each call as the caller its HTTP request authenticated."""

    def __init__(self, core: Callable[[], Memex | None]) -> None:
        self.core = core

    def of(self, request: ServerRequestContext[Any, Any]) -> Caller:
        memex = self.core()
        if memex is None:
            raise StorageUnavailable("memexd is starting")
        http = request.request
        access = getattr(http, "scope", {}).get(ACCESS_KEY)
        if not isinstance(access, Access):
            raise Unauthenticated("this call carried no credentials memexd checked")
        return Caller(memex.as_caller(access), origin_of(getattr(http, "headers", {})))
