"""Running one operation as Strawberry's ``Schema.execute`` does, without
its per-phase extension machinery.

``Schema.execute`` wraps the operation, parsing, validation and execution
each in an extension context manager: per request it looks up every
extension's hook for each phase, wraps hooks in context managers, enters an
exit stack per phase, and builds a runner and a middleware manager: ~35 µs
of a point read's ~300 µs of Python. memexd's schema has one extension,
:class:`DocumentLimits`, with one hook around the whole operation.
:class:`Operations` takes ``Schema.execute``'s steps (Strawberry 0.341's
``execute``, ``_prepare_operation_async``, ``_execute_operation`` and
``_handle_execution_result``, in the same order, with the same errors and
results) and drives that hook itself: the other phases have no hooks. It
applies only to such a schema (one :class:`Limits` extension that hooks
nothing else, no directives, no incremental delivery); :meth:`Operations.of`
says ``None`` for any other, which then runs through ``Schema.execute``.
``tests/test_point_read.py`` compares its answers with Strawberry's.
"""

from __future__ import annotations

from collections.abc import Iterable
from inspect import isawaitable
from typing import Any

from graphql import ExecutionResult as GraphQLExecutionResult
from graphql import GraphQLError
from graphql.execution.middleware import MiddlewareManager
from strawberry import Schema
from strawberry.exceptions import MissingQueryError
from strawberry.execution import optimized_is_awaitable
from strawberry.extensions import SchemaExtension
from strawberry.schema._graphql_core import execution_context_class_kwargs
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.schema.schema import _coerce_error, _parse_operation_document, _run_validation
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.execution import PreExecutionError
from strawberry.types.graphql import OperationType
from strawberry.utils.await_maybe import await_maybe

from memexd.server.extensions import DocumentLimits, Limits

__all__ = ["Operations"]

#: The phases whose hooks are skipped: :class:`DocumentLimits` must not define them.
_OTHER_HOOKS = ("on_parse", "on_validate", "on_execute", "resolve")
#: The steps of ``Schema.execute`` taken here: a schema must not change them.
_STEPS = (
    "execute",
    "get_extensions",
    "create_extensions_runner",
    "_prepare_operation_async",
    "_execute_operation",
    "_handle_execution_result",
)
#: What Strawberry passes when no extension resolves (it keeps no state then).
_NO_MIDDLEWARE = MiddlewareManager()


class Operations:
    """``Schema.execute`` for a schema whose one extension is :class:`Limits`'s."""

    def __init__(self, schema: Schema, limits: Limits) -> None:
        self.schema = schema
        self.limits = limits
        self.execute_function = schema._get_execute_function()
        self.executor = execution_context_class_kwargs(schema.execution_context_class)

    @classmethod
    def of(cls, schema: object) -> Operations | None:
        """For ``schema`` if it qualifies (see the module), else ``None``."""
        if not isinstance(schema, Schema) or any(
            getattr(type(schema), step) is not getattr(Schema, step) for step in _STEPS
        ):
            return None
        factories = schema.extensions
        if len(factories) != 1 or not isinstance(factories[0], Limits):
            return None
        if schema.directives or schema.config.enable_experimental_incremental_execution:
            return None
        if any(getattr(DocumentLimits, h) is not getattr(SchemaExtension, h) for h in _OTHER_HOOKS):
            return None
        return cls(schema, factories[0])

    async def execute(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None,
        context_value: Any,
        root_value: Any,
        operation_name: str | None,
        allowed_operation_types: Iterable[OperationType],
        operation_extensions: dict[str, Any] | None,
    ) -> ExecutionResult:
        """What ``Schema.execute`` gives: its steps, with the one hook."""
        context = self.schema._create_execution_context(
            query=query,
            allowed_operation_types=allowed_operation_types,
            variable_values=variable_values,
            context_value=context_value,
            root_value=root_value,
            operation_name=operation_name,
            operation_extensions=operation_extensions,
        )
        extension = self.limits()
        extension.execution_context = context
        answered: ExecutionResult | None = None
        try:
            hook = extension.on_operation()
            next(hook)
            try:
                if errors := self._prepare(context):
                    # answered inside the operation, as Strawberry does: the hook sees it
                    answered = await self._answer(context, extension, errors)
                else:
                    executed = await self._execute(context)
            except BaseException:
                hook.close()  # what leaving the hook's context with an exception does
                raise
            next(hook, None)
        except (MissingQueryError, CannotGetOperationTypeError, InvalidOperationTypeError):
            raise
        except Exception as exc:  # Strawberry's own answer to anything else
            failed = PreExecutionError(data=None, errors=[_coerce_error(exc)])
            return await self._answer(context, extension, failed)
        if answered is not None:
            return answered
        return await self._answer(context, extension, executed, processed=True)

    def _prepare(self, context: ExecutionContext) -> PreExecutionError | None:
        """``Schema._prepare_operation_async``: parse, check the operation
        type, validate (hooks in neither phase)."""
        if not context.query and context.graphql_document is None:
            raise MissingQueryError
        try:
            _parse_operation_document(context)
        except GraphQLError as error:
            context.pre_execution_errors = [error]
            return PreExecutionError(data=None, errors=[error])
        except Exception as error:  # as Strawberry does
            coerced = GraphQLError(str(error), original_error=error)
            context.pre_execution_errors = [coerced]
            return PreExecutionError(data=None, errors=[coerced])
        try:
            operation_type = context.operation_type
        except RuntimeError as error:
            raise CannotGetOperationTypeError(context.operation_name) from error
        if operation_type not in context.allowed_operations:
            raise InvalidOperationTypeError(operation_type)
        _run_validation(context)
        if context.pre_execution_errors:
            return PreExecutionError(data=None, errors=context.pre_execution_errors)
        return None

    async def _execute(self, context: ExecutionContext) -> Any:
        """``Schema._execute_operation`` (no hooks in that phase)."""
        schema = self.schema
        result: Any = context.result
        if not result:
            result = self.execute_function(
                schema._schema,
                context.graphql_document,
                root_value=context.root_value,
                middleware=_NO_MIDDLEWARE,
                variable_values=context.variables,
                operation_name=context.operation_name,
                context_value=context.context,
                is_awaitable=optimized_is_awaitable,
                **self.executor,
                operation_extensions=context.operation_extensions,
            )
            if isawaitable(result):
                result = await result
            context.result = result
        if isinstance(result, GraphQLExecutionResult) and result.errors:
            context.pre_execution_errors = result.errors
            schema._process_errors(result.errors, context)
        return result

    async def _answer(
        self,
        context: ExecutionContext,
        extension: DocumentLimits,
        result: Any,
        *,
        processed: bool = False,
    ) -> ExecutionResult:
        """``Schema._handle_execution_result``."""
        if result.errors:
            context.pre_execution_errors = result.errors
            if not processed:
                self.schema._process_errors(result.errors, context)
        if isinstance(result, GraphQLExecutionResult):
            result = ExecutionResult(data=result.data, errors=result.errors)
        extensions = dict(await await_maybe(extension.get_results()))
        extensions.update(context.extensions_results)
        result.extensions = extensions
        context.result = result
        answer: ExecutionResult = result
        return answer
