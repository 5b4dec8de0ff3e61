"""The typed per-request GraphQL context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from memexd.access.grants import Access
from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.server.loaders import Loaders

if TYPE_CHECKING:
    from memexd.feed.hub import Feed

__all__ = ["Context"]


@dataclass(slots=True)
class Context:
    #: the core bound to the caller's grants: every query runs with them
    memex: Memex
    loaders: Loaders
    origin: Origin = field(default_factory=Origin)
    #: the HTTP request or the WebSocket
    request: HTTPConnection | None = None
    #: the WebSocket ``connection_init`` payload (Strawberry fills it in)
    connection_params: object = None
    #: the process's live feed (subscriptions); ``None`` outside a server
    feed: Feed | None = None
    #: a WebSocket's credentials checked again (raises ``Unauthenticated``
    #: once they stop working): long-lived connections call it now and then
    recheck: Callable[[], Access] | None = None

    @classmethod
    def of(
        cls,
        memex: Memex,
        origin: Origin,
        request: HTTPConnection | None = None,
        feed: Feed | None = None,
    ) -> Context:
        return cls(memex=memex, loaders=Loaders(memex), origin=origin, request=request, feed=feed)

    @property
    def access(self) -> Access:
        return self.memex.access

    def rebind(self, memex: Memex) -> None:
        """Run as another caller from now on (a WebSocket after ``connection_init``)."""
        self.memex, self.loaders = memex, Loaders(memex)
