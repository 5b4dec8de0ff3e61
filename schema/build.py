"""Assembling the schema: root types plus the cross-cutting extensions.

Two schemas come from the same types. The plain one is what ``memexd serve``
answers by default; with ``MEMEXD_FEDERATION`` it answers the Federation 2
subgraph (:mod:`memexd.schema.federation`), a superset of the plain one.
"""

from __future__ import annotations

import warnings
from typing import Any

import strawberry
from graphql import print_schema
from memexd.schema.common import Names, QuietErrors
from memexd.schema.federation import SubgraphSchema, without_federation
from memexd.schema.mutation import Mutation
from memexd.schema.query import Query
from memexd.schema.subscription import Subscription
from strawberry.schema.config import StrawberryConfig

from memexd.server.extensions import schema_extensions
from memexd.settings import Settings

__all__ = ["build_schema", "sdl", "subgraph_sdl"]


class _Schema(QuietErrors, strawberry.Schema):
    def __init__(self, **kwargs: Any) -> None:
        # The entity types carry their federation keys for the subgraph build;
        # the plain schema neither serves nor prints them (stripped below).
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Federation directive found", UserWarning)
            super().__init__(**kwargs)
        self._schema = without_federation(self._schema)
        self._schema._strawberry_schema = self  # type: ignore[attr-defined]


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or Settings()
    common: dict[str, Any] = {
        "query": Query,
        "mutation": Mutation,
        "subscription": Subscription,
        "extensions": schema_extensions(settings),
        # production: no "Did you mean …?" hints about fields a caller guesses
        "config": StrawberryConfig(
            disable_field_suggestions=settings.production, name_converter=Names()
        ),
    }
    if settings.federation:
        return SubgraphSchema(max_references=settings.max_page, **common)
    return _Schema(**common)


def sdl() -> str:
    """The plain schema as SDL text, as exported to ``schema/schema.graphql``
    (graphql-core's printer: Strawberry's would print the federation keys)."""
    return print_schema(build_schema()._schema) + "\n"


def subgraph_sdl() -> str:
    """The subgraph's SDL, as ``_service { sdl }`` serves it and as exported
    to ``schema/subgraph.graphql``."""
    return build_schema(Settings(federation=True)).as_str() + "\n"
