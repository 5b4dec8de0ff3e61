"""The typed per-request GraphQL context."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request

from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.server.loaders import Loaders

__all__ = ["Context"]


@dataclass(slots=True)
class Context:
    memex: Memex
    loaders: Loaders
    origin: Origin = field(default_factory=Origin)
    request: Request | None = None
