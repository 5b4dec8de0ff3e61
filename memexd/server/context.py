"""The typed per-request GraphQL context."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from memexd.access.grants import Access
from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.server.loaders import Loaders

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

    @classmethod
    def of(cls, memex: Memex, origin: Origin, request: HTTPConnection | None = None) -> Context:
        return cls(memex=memex, loaders=Loaders(memex), origin=origin, request=request)

    @property
    def access(self) -> Access:
        return self.memex.access

    def rebind(self, memex: Memex) -> None:
        """Run as another caller from now on (a WebSocket after ``connection_init``)."""
        self.memex, self.loaders = memex, Loaders(memex)
