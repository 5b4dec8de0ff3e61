"""Cross-cutting GraphQL behaviour as schema extensions: limits and error codes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxTokensLimiter,
    ParserCache,
    SchemaExtension,
    ValidationCache,
)
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule

from memexd.errors import MemexError
from memexd.settings import Settings

__all__ = ["ErrorCodes", "schema_extensions"]

log = logging.getLogger("memexd.graphql")


class ErrorCodes(SchemaExtension):
    """Give every error an ``extensions.code`` and mask internal ones.

    Our own errors keep their message and code; request errors (syntax,
    validation, variable coercion) are ``BAD_USER_INPUT``; anything else is
    logged with its traceback and reaches the client as ``INTERNAL`` with a
    fixed message: no stack traces, Cypher or parameters.
    """

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            result.errors = [_coded(e) for e in errors]


def _coded(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    while isinstance(original, GraphQLError) and original.original_error is not None:
        original = original.original_error
    if isinstance(original, MemexError) and original.public:
        return _with(error, original.message, original.code)
    if original is None or isinstance(original, GraphQLError):
        return _with(error, error.message, "BAD_USER_INPUT")
    log.error("internal error in %s", error.path, exc_info=original)
    return _with(error, "Internal server error.", "INTERNAL")


def _with(error: GraphQLError, message: str, code: str) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={**(error.extensions or {}), "code": code},
    )


def schema_extensions(settings: Settings) -> list[Callable[[], Any]]:
    """Extension factories. Validation rules are built once, so the
    validation cache (keyed by the rule classes) keeps hitting."""
    rules = [
        depth_rule(settings.max_query_depth, None),
        aliases_rule(settings.max_aliases),
    ]
    return [
        ErrorCodes,
        lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
        lambda: AddValidationRules(rules),
        lambda: ParserCache(maxsize=512),
        lambda: ValidationCache(maxsize=512),
    ]
