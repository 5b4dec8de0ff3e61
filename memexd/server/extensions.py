"""Cross-cutting GraphQL behaviour as schema extensions: limits and error codes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphql import ASTValidationRule, GraphQLError, GraphQLSchema, ValidationRule, validate
from graphql.language import DocumentNode, FieldNode, parse
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule
from strawberry.schema.validation_rules.maybe_null import MaybeNullValidationRule
from strawberry.schema.validation_rules.one_of import OneOfInputValidationRule

from memexd.errors import BadUserInput, MemexError, ResourceExhausted
from memexd.server.cost import CostModel, count_fields, estimate
from memexd.settings import Settings

__all__ = ["DocumentLimits", "ErrorCodes", "Limits", "coded", "schema_extensions"]

log = logging.getLogger("memexd.graphql")


class ErrorCodes(SchemaExtension):
    """Give every error of an executed operation an ``extensions.code`` and
    mask internal ones (the HTTP view applies :func:`coded` again to whatever
    leaves before or outside execution, so nothing goes out without a code)."""

    def on_operation(self) -> Iterator[None]:
        yield
        self.code_errors()

    def code_errors(self) -> None:
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            access = getattr(self.execution_context.context, "access", None)
            caller = getattr(access, "name", None)
            result.errors = [coded(e, caller) for e in errors]


def coded(error: GraphQLError, caller: str | None = None) -> GraphQLError:
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
        return _with(error, original.message, original.code, original)
    if original is None or isinstance(original, GraphQLError):
        return _with(error, error.message, "BAD_USER_INPUT")
    # the caller by its key name or token subject: never a secret
    log.error("internal error in %s (caller %s)", error.path, caller, exc_info=original)
    return _with(error, "Internal server error.", "INTERNAL")


def _with(
    error: GraphQLError, message: str, code: str, original: MemexError | None = None
) -> GraphQLError:
    """The error as sent; ``original`` stays with our own public errors (the
    view answers 503 for :class:`~memexd.errors.Overloaded`)."""
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=original,
        extensions={**(error.extensions or {}), "code": code},
    )


def _refusal(problem: MemexError) -> list[GraphQLError]:
    return [GraphQLError(problem.message, original_error=problem)]


@lru_cache(maxsize=512)
def _parse(query: str, max_tokens: int) -> DocumentNode:
    return parse(query, max_tokens=max_tokens)


class _Checks:
    """What a document costs to check, computed once per query text (and per
    set of integer variables and list lengths for the cost). Keyed by the text, as hashing a
    document (a frozen dataclass) walks all of it on every lookup."""

    def __init__(self, settings: Settings, model: CostModel) -> None:
        self.max_tokens = settings.max_tokens
        self.hide_suggestions = settings.production
        self.model = model
        self.fields = lru_cache(maxsize=512)(self._fields)
        self.errors = lru_cache(maxsize=512)(self._errors)
        self.cost = lru_cache(maxsize=1024)(self._cost)

    def _fields(self, query: str) -> int:
        return count_fields(_parse(query, self.max_tokens))

    def _errors(
        self, schema: GraphQLSchema, query: str, rules: tuple[type[ASTValidationRule], ...]
    ) -> list[GraphQLError]:
        document = _parse(query, self.max_tokens)
        # Strawberry's own rules, as its validate_document adds them
        every = (*rules, MaybeNullValidationRule, OneOfInputValidationRule)
        return validate(schema, document, every, hide_suggestions=self.hide_suggestions)

    def _cost(
        self, schema: GraphQLSchema, query: str, operation: str | None,
        numbers: tuple[tuple[str, int], ...], lengths: tuple[tuple[str, int], ...],
    ) -> int:  # fmt: skip
        document = _parse(query, self.max_tokens)
        return estimate(schema, document, operation, dict(numbers), self.model, dict(lengths))


class DocumentLimits(ErrorCodes):
    """Document limits with parse and validation caches, then the cost limit;
    and :class:`ErrorCodes` once the operation is over.

    Tokens (while parsing), field count (before validation, which is
    quadratic in it), depth and aliases (validation rules), then the
    estimated cost with the request's variables (before execution). One
    extension with one hook: each hook Strawberry runs costs a few
    microseconds on every request. Parsing and checking happen when the
    operation starts; Strawberry then skips its own parse (the document is
    set) and its own validation (the errors are). The parse cache never
    raises: on a syntax error the document stays unset and Strawberry's own
    parse reports it. Strawberry checks the operation type (GET, names) after
    parsing either way, before it looks at these errors.
    """

    def __init__(
        self,
        settings: Settings,
        rules: tuple[type[ASTValidationRule], ...],
        checks: _Checks,
    ) -> None:
        self.settings = settings
        self.rules = rules
        self.checks = checks

    def on_operation(self) -> Generator[None, None, None]:
        context = self.execution_context
        max_tokens = self.settings.max_tokens
        context.parse_options["max_tokens"] = max_tokens
        rules = self.rules
        if self.settings.production and not _is_admin(context.context):
            rules = (*rules, AdminIntrospection)
        context.validation_rules = context.validation_rules + rules
        query = context.query
        if query:
            if context.graphql_document is None:
                with contextlib.suppress(GraphQLError):
                    context.graphql_document = _parse(query, max_tokens)
            if context.graphql_document is not None:
                context.pre_execution_errors = self._check(query)
        yield
        self.code_errors()

    def _check(self, query: str) -> list[GraphQLError]:
        context = self.execution_context
        schema = context.schema._schema
        limit = self.settings.max_fields
        fields = self.checks.fields(query)
        if fields > limit:
            too_many = f"the document selects {fields} fields; at most {limit} (MEMEXD_MAX_FIELDS)"
            return _refusal(BadUserInput(too_many))
        errors = self.checks.errors(schema, query, tuple(context.validation_rules))
        if errors:
            return list(errors)  # the cached list stays as it is
        variables = (context.variables or {}).items()
        numbers = tuple(
            sorted((k, v) for k, v in variables if isinstance(v, int) and not isinstance(v, bool))
        )
        lengths = tuple(sorted((k, len(v)) for k, v in variables if isinstance(v, list)))
        cost = self.checks.cost(schema, query, context.operation_name, numbers, lengths)
        if cost > self.settings.max_cost:
            return _refusal(
                ResourceExhausted(
                    f"the query's estimated cost is {cost:,}, over {self.settings.max_cost:,} "
                    "(MEMEXD_MAX_COST): give list fields a smaller `limit` or nest less"
                )
            )
        return []


class AdminIntrospection(ValidationRule):
    """Production: only callers with an admin grant may introspect the schema
    (``__typename`` stays open, clients use it everywhere)."""

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        # federation's _service { sdl } is the whole schema too
        if node.name.value in ("__schema", "__type", "_service"):
            self.report_error(
                GraphQLError(
                    "introspection needs an admin grant in production",
                    node,
                    extensions={"code": "FORBIDDEN"},
                )
            )


def _is_admin(context: Any) -> bool:
    access = getattr(context, "access", None)
    return bool(access is not None and access.is_admin)


def cost_model(settings: Settings) -> CostModel:
    """List sizes the schema bounds itself: walks by the traversal limit,
    batch results by the batch limit, federation's entities by the references."""
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
    entities = (("Query._entities", "representations"),)
    return CostModel(max_page=settings.max_page, bounds=tuple(bounds.items()), sized_by=entities)


def schema_extensions(settings: Settings) -> list[Callable[[], Any]]:
    """Extension factories; the rule classes are built once, so cached
    validations (keyed by them) keep hitting."""
    rules = (
        depth_rule(settings.max_query_depth, None),
        aliases_rule(settings.max_aliases),
    )
    checks = _Checks(settings, cost_model(settings))
    return [Limits(settings, rules, checks)]


@dataclass(frozen=True, slots=True)
class Limits:
    """The factory of :class:`DocumentLimits`, one per request (a class of
    its own, so the HTTP view can tell memexd's extension set from others)."""

    settings: Settings
    rules: tuple[type[ASTValidationRule], ...]
    checks: _Checks

    def __call__(self) -> DocumentLimits:
        return DocumentLimits(self.settings, self.rules, self.checks)
