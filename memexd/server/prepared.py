"""Prepared reads: point-read documents answered without the GraphQL executor.

Of a point read's ~330 µs of Python, ~230 µs are graphql-core's executor and
Strawberry's per-field machinery around one resolver call and six attribute
reads. A document whose shape needs none of that is answered directly:

* one ``query`` operation, no fragments, directives or ``__`` fields;
* each root field (aliases allowed) has a Strawberry resolver, arguments of
  the built-in scalar types only, and returns one object, or null;
* under it, only leaf fields that read an attribute (no resolvers).

Such a document is prepared after it has once run the ordinary way without
errors (so validation and the document limits, which for this shape depend
on the text alone, have passed). Then variables are coerced and arguments
read by graphql-core's own functions, the resolver is called as Strawberry
calls it, and each leaf is serialized by the schema's own scalar, in
selection order. What the resolver raises (a bad id, the engine down or
overloaded, a timeout) is answered here, located as the executor locates it,
so a failing read never runs twice. Anything else unusual (variables that do
not coerce, a null where the schema says non-null, a failure among several
root fields) gives up before or without a second query's worth of harm, and
the view takes the ordinary path, which answers exactly as always: the
operation is a read, so running it again changes nothing.
``tests/test_prepared.py`` compares both paths byte for byte.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    located_error,
    parse,
)
from graphql.execution.values import VariableValues, get_argument_values, get_variable_values
from graphql.type import specified_scalar_types
from strawberry.types import ExecutionResult

from memexd.server.context import Context
from memexd.server.extensions import coded

__all__ = ["Prepared"]

#: Documents remembered (prepared or not), most recent kept.
_CAPACITY = 512


class _GiveUp(Exception):
    """This request goes the ordinary way."""


class _Failed(Exception):
    """A root field's resolver raised: its error is the answer."""

    def __init__(self, root: _Root, error: GraphQLError) -> None:
        self.root, self.error = root, error


@dataclass(frozen=True, slots=True)
class _Leaf:
    key: str
    attr: str
    serialize: Callable[[Any], Any]
    nullable: bool
    #: a list of scalars: whether its elements may be null (``None``: not a list)
    elements_nullable: bool | None = None

    def value(self, source: object) -> Any:
        raw = getattr(source, self.attr)
        if raw is None:
            if not self.nullable:
                raise _GiveUp
            return None
        if self.elements_nullable is None:
            return self._one(raw, nullable=False)
        if isinstance(raw, str | bytes | dict) or not hasattr(raw, "__iter__"):
            raise _GiveUp
        return [self._one(x, nullable=self.elements_nullable) for x in raw]

    def _one(self, raw: Any, *, nullable: bool) -> Any:
        if raw is None:
            if not nullable:
                raise _GiveUp
            return None
        serialized = self.serialize(raw)
        if serialized is None:
            raise _GiveUp
        return serialized


@dataclass(frozen=True, slots=True)
class _Root:
    key: str
    field: GraphQLField
    node: FieldNode
    resolve: Callable[..., Any]
    names: dict[str, str]
    takes_info: bool
    nullable: bool
    leaves: tuple[_Leaf, ...]

    async def value(self, context: object, variables: VariableValues) -> Any:
        arguments = get_argument_values(self.field, self.node, variables)
        kwargs = {self.names[name]: value for name, value in arguments.items()}
        if self.takes_info:
            kwargs["info"] = _Info(context)
        try:
            found = self.resolve(**kwargs)
            if inspect.isawaitable(found):
                found = await found
        except Exception as exc:  # as the executor: the field's error, located
            raise _Failed(self, located_error(exc, [self.node], [self.key])) from None
        if found is None:
            if not self.nullable:
                raise _GiveUp
            return None
        return {leaf.key: leaf.value(found) for leaf in self.leaves}


@dataclass(frozen=True, slots=True)
class _Info:
    """What a resolver reads of Strawberry's ``Info`` on this path."""

    context: object


@dataclass(frozen=True, slots=True)
class _Plan:
    operation: OperationDefinitionNode
    roots: tuple[_Root, ...]


class Prepared:
    """The prepared documents of one schema, learnt as they are answered."""

    def __init__(self, schema: GraphQLSchema) -> None:
        self.schema = schema
        #: requests answered here (the rest went the ordinary way)
        self.hits = 0
        self._plans: OrderedDict[tuple[str, str | None], _Plan | None] = OrderedDict()

    async def answer(
        self, query: object, operation: object, variables: object, context: Context
    ) -> ExecutionResult | None:
        """The result for a prepared document, or ``None``: take the ordinary
        path."""
        if not isinstance(query, str) or not isinstance(operation, str | None):
            return None
        plan = self._plans.get((query, operation))
        if plan is None or not isinstance(variables, dict | None):
            return None
        coerced = get_variable_values(
            self.schema, plan.operation.variable_definitions or (), variables or {}
        )
        if isinstance(coerced, list):
            return None
        try:
            data = {root.key: await root.value(context, coerced) for root in plan.roots}
        except _Failed as failed:
            if len(plan.roots) > 1:  # the executor's error order among several: its own
                return None
            self.hits += 1
            value = {failed.root.key: None} if failed.root.nullable else None
            # coded as the ErrorCodes extension codes it (the caller names a logged fault)
            return ExecutionResult(data=value, errors=[coded(failed.error, context.access.name)])
        except (_GiveUp, GraphQLError):  # arguments that do not coerce, a non-null broken
            return None
        self.hits += 1
        return ExecutionResult(data=data, errors=None)

    def learn(self, query: object, operation: object, succeeded: bool) -> None:
        """After the ordinary path answered ``query``: prepare it if it
        succeeded and has the shape (see the module); remember either way."""
        if not succeeded or not isinstance(query, str) or not isinstance(operation, str | None):
            return
        key = (query, operation)
        if key in self._plans:
            return
        self._plans[key] = _plan(self.schema, query, operation)
        if len(self._plans) > _CAPACITY:
            self._plans.popitem(last=False)


def _plan(schema: GraphQLSchema, query: str, name: str | None) -> _Plan | None:
    try:
        document = parse(query)
    except GraphQLError:
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(document.definitions) != 1 or len(operations) != 1:
        return None
    operation = operations[0]
    if operation.operation is not OperationType.QUERY or operation.directives:
        return None
    if name is not None and (operation.name is None or operation.name.value != name):
        return None
    if schema.query_type is None:
        return None
    roots = []
    for node in operation.selection_set.selections:
        root = _root(schema.query_type, node)
        if root is None:
            return None
        roots.append(root)
    return _Plan(operation, tuple(roots))


def _root(query: GraphQLObjectType, node: object) -> _Root | None:
    if not isinstance(node, FieldNode) or not _plain(node) or node.selection_set is None:
        return None
    field = query.fields.get(node.name.value)
    definition = None if field is None else field.extensions.get("strawberry-definition")
    resolver = getattr(definition, "base_resolver", None)
    if field is None or resolver is None or getattr(definition, "extensions", True):
        return None
    if getattr(definition, "permission_classes", True):
        return None
    nullable = not isinstance(field.type, GraphQLNonNull)
    target = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
    if not isinstance(target, GraphQLObjectType):
        return None
    names = {}
    for arg_name, argument in field.args.items():
        kind = argument.type.of_type if isinstance(argument.type, GraphQLNonNull) else argument.type
        strawberry_arg = argument.extensions.get("strawberry-definition")
        if kind not in specified_scalar_types.values() or strawberry_arg is None:
            return None
        names[arg_name] = strawberry_arg.python_name
    parameters = inspect.signature(resolver.wrapped_func).parameters
    leaves = [_leaf(target, leaf) for leaf in node.selection_set.selections]
    if any(leaf is None for leaf in leaves):
        return None
    key = (node.alias or node.name).value
    return _Root(key, field, node, resolver.wrapped_func, names, "info" in parameters,
                 nullable, tuple(leaf for leaf in leaves if leaf is not None))  # fmt: skip


def _leaf(parent: GraphQLObjectType, node: object) -> _Leaf | None:
    if not isinstance(node, FieldNode) or not _plain(node) or node.selection_set is not None:
        return None
    field = parent.fields.get(node.name.value)
    definition = None if field is None else field.extensions.get("strawberry-definition")
    if field is None or definition is None or node.arguments:
        return None
    if definition.base_resolver is not None or definition.extensions:
        return None
    nullable, kind = _unwrapped(field.type)
    elements_nullable = None
    if isinstance(kind, GraphQLList):
        elements_nullable, kind = _unwrapped(kind.of_type)
    if not isinstance(kind, GraphQLScalarType):
        return None
    key = (node.alias or node.name).value
    return _Leaf(key, definition.python_name, kind.serialize, nullable, elements_nullable)


def _unwrapped(kind: GraphQLOutputType) -> tuple[bool, GraphQLOutputType]:
    """Whether ``kind`` may be null, and the type inside its non-null."""
    if isinstance(kind, GraphQLNonNull):
        return False, kind.of_type
    return True, kind


def _plain(node: FieldNode) -> bool:
    """Without directives, and not ``__typename`` & co."""
    return not node.directives and not node.name.value.startswith("__")
