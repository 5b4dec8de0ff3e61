"""Assembling the schema: root types plus the cross-cutting extensions."""

from __future__ import annotations

from typing import Any

import strawberry
from memexd.schema.mutation import Mutation
from memexd.schema.query import Query
from memexd.schema.subscription import Subscription
from strawberry.schema.config import StrawberryConfig

from memexd.server.extensions import schema_extensions
from memexd.settings import Settings

__all__ = ["build_schema", "sdl"]


class _Schema(strawberry.Schema):
    def process_errors(self, errors: Any, execution_context: Any = None) -> None:
        """Client errors are not server incidents; ``ErrorCodes`` logs internal ones."""


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or Settings()
    return _Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=schema_extensions(settings),
        # production: no "Did you mean …?" hints about fields a caller guesses
        config=StrawberryConfig(disable_field_suggestions=settings.production),
    )


def sdl() -> str:
    """The schema as SDL text, as exported to ``schema/schema.graphql``."""
    return build_schema().as_str() + "\n"
