"""Who a tool call runs as: the core bound to the caller's grants, and the
origin its events carry.

Over Streamable HTTP each request was authenticated by :mod:`memexd.mcp.http`
before the SDK saw it, and the caller's :class:`Access` rides in the ASGI
scope; a tool binds the core to it. Over stdio the process runs as one
caller, fixed when it starts (:mod:`memexd.mcp.stdio`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context

from memexd.access.grants import Access
from memexd.core import Memex
from memexd.errors import StorageUnavailable, Unauthenticated
from memexd.events.vocabulary import Origin
from memexd.server.origin import origin_of

__all__ = ["ACCESS_KEY", "Bind", "Caller", "fixed", "from_request"]

#: Where :mod:`memexd.mcp.http` leaves the caller's access in the ASGI scope.
ACCESS_KEY = "memexd.access"


@dataclass(frozen=True, slots=True)
class Caller:
    memex: Memex
    origin: Origin

    @property
    def name(self) -> str:
        return self.memex.access.name


Bind = Callable[[Context[Any, Any]], Caller]


def fixed(memex: Memex) -> Bind:
    """Every call as ``memex``'s caller (stdio: one process, one caller)."""
    caller = Caller(memex, Origin())
    return lambda _ctx: caller


def from_request(core: Callable[[], Memex | None]) -> Bind:
    """Each call as the caller its HTTP request authenticated."""

    def bind(ctx: Context[Any, Any]) -> Caller:
        memex = core()
        if memex is None:
            raise StorageUnavailable("memexd is starting")
        request = ctx.request_context.request
        access = None if request is None else getattr(request, "scope", {}).get(ACCESS_KEY)
        if not isinstance(access, Access):
            raise Unauthenticated("this call carried no credentials memexd checked")
        return Caller(memex.as_caller(access), origin_of(request.headers))  # type: ignore[union-attr]

    return bind
