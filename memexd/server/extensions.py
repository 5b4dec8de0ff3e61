"""Cross-cutting GraphQL behaviour as schema extensions: limits and error codes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from graphql import ASTValidationRule, GraphQLError
from graphql.language import DocumentNode, parse
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule
from strawberry.schema.schema import validate_document

from memexd.errors import MemexError
from memexd.settings import Settings

__all__ = ["ErrorCodes", "Limits", "schema_extensions"]

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


@lru_cache(maxsize=512)
def _parse(query: str, max_tokens: int) -> DocumentNode:
    return parse(query, max_tokens=max_tokens)


class Limits(SchemaExtension):
    """Document limits (tokens, depth, aliases) with parse and validation caches.

    One extension rather than Strawberry's five (each costs hooks on every
    request). The parse cache never raises inside its hook: a hook that
    raises skips the other extensions' operation hooks, so a syntax error
    would leave without its ``extensions.code``; on a syntax error the
    document stays unset and Strawberry's own parse reports it.
    """

    def __init__(self, max_tokens: int, rules: tuple[type[ASTValidationRule], ...]) -> None:
        self.max_tokens = max_tokens
        self.rules = rules

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        context.parse_options["max_tokens"] = self.max_tokens
        context.validation_rules = context.validation_rules + self.rules
        yield

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is None and context.query:
            with contextlib.suppress(GraphQLError):
                context.graphql_document = _parse(context.query, self.max_tokens)
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        context.pre_execution_errors = _validate(
            context.schema._schema, context.graphql_document, context.validation_rules
        )
        yield


# Strawberry's own validation (its extra rules included), memoised.
_validate = lru_cache(maxsize=512)(validate_document)


def schema_extensions(settings: Settings) -> list[Callable[[], Any]]:
    """Extension factories; the rule classes are built once, so cached
    validations (keyed by them) keep hitting."""
    rules = (
        depth_rule(settings.max_query_depth, None),
        aliases_rule(settings.max_aliases),
    )
    return [ErrorCodes, lambda: Limits(settings.max_tokens, rules)]
