"""Cross-cutting GraphQL behaviour as schema extensions: limits and error codes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from graphql import ASTValidationRule, GraphQLError
from graphql.language import DocumentNode, parse
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule
from strawberry.schema.schema import validate_document

from memexd.errors import BadUserInput, MemexError, ResourceExhausted
from memexd.server.cost import CostModel, count_fields, estimate
from memexd.settings import Settings

__all__ = ["ErrorCodes", "Limits", "coded", "schema_extensions"]

log = logging.getLogger("memexd.graphql")


class ErrorCodes(SchemaExtension):
    """Give every error of an executed operation an ``extensions.code`` and
    mask internal ones (the HTTP view applies :func:`coded` again to whatever
    leaves before or outside execution, so nothing goes out without a code)."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            result.errors = [coded(e) for e in errors]


def coded(error: GraphQLError) -> GraphQLError:
    """The error as a client may see it, with its ``extensions.code``.

    Our own errors keep their message and code; request errors (syntax,
    validation, variable coercion) are ``BAD_USER_INPUT``; anything else is
    logged with its traceback and reaches the client as ``INTERNAL`` with a
    fixed message: no stack traces, Cypher or parameters. Idempotent.
    """
    if (error.extensions or {}).get("code") and error.original_error is None:
        return error
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


def _refusal(problem: MemexError) -> list[GraphQLError]:
    return [GraphQLError(problem.message, original_error=problem)]


@lru_cache(maxsize=512)
def _parse(query: str, max_tokens: int) -> DocumentNode:
    return parse(query, max_tokens=max_tokens)


# Strawberry's own validation (its extra rules included), memoised per document.
_validate = lru_cache(maxsize=512)(validate_document)


class Limits(SchemaExtension):
    """Document limits with parse and validation caches, then the cost limit.

    Tokens (while parsing), field count (before validation, which is
    quadratic in it), depth and aliases (validation rules), then the
    estimated cost with the request's variables (before execution). One
    extension rather than Strawberry's several (each costs hooks on every
    request). The parse cache never raises inside its hook: a hook that
    raises skips the other extensions' operation hooks; on a syntax error the
    document stays unset and Strawberry's own parse reports it.
    """

    def __init__(
        self,
        settings: Settings,
        rules: tuple[type[ASTValidationRule], ...],
        model: CostModel,
    ) -> None:
        self.settings = settings
        self.rules = rules
        self.model = model

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        context.parse_options["max_tokens"] = self.settings.max_tokens
        context.validation_rules = context.validation_rules + self.rules
        yield

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is None and context.query:
            with contextlib.suppress(GraphQLError):
                context.graphql_document = _parse(context.query, self.settings.max_tokens)
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None:
            context.pre_execution_errors = self._check(document)
        yield

    def _check(self, document: DocumentNode) -> list[GraphQLError]:
        context = self.execution_context
        limit = self.settings.max_fields
        fields = count_fields(document)
        if fields > limit:
            return _refusal(
                BadUserInput(
                    f"the document selects {fields} fields; at most {limit} (MEMEXD_MAX_FIELDS)"
                )
            )
        errors: Sequence[GraphQLError] = _validate(
            context.schema._schema, document, context.validation_rules
        )
        if errors:
            return list(errors)
        cost = estimate(
            context.schema._schema, document, context.operation_name, context.variables, self.model
        )
        if cost > self.settings.max_cost:
            return _refusal(
                ResourceExhausted(
                    f"the query's estimated cost is {cost:,}, over {self.settings.max_cost:,} "
                    "(MEMEXD_MAX_COST): give list fields a smaller `limit` or nest less"
                )
            )
        return []


def cost_model(settings: Settings) -> CostModel:
    """List sizes the schema bounds itself: walks by the traversal limit,
    batch results by the batch limit."""
    walk, batch = settings.traversal_max_nodes, settings.max_batch
    bounds = {
        "Query.supportSet": walk,
        "Query.dependents": walk,
        "Query.aliasGroup": walk,
        "ProvenanceGraph.nodes": walk,
        "ProvenanceGraph.links": walk,
        "CascadeResult.events": walk,
        "ItemsResult.items": batch,
        "ItemsResult.events": batch,
    }
    return CostModel(max_page=settings.max_page, bounds=bounds)


def schema_extensions(settings: Settings) -> list[Callable[[], Any]]:
    """Extension factories; the rule classes are built once, so cached
    validations (keyed by them) keep hitting."""
    rules = (
        depth_rule(settings.max_query_depth, None),
        aliases_rule(settings.max_aliases),
    )
    model = cost_model(settings)
    return [ErrorCodes, lambda: Limits(settings, rules, model)]
