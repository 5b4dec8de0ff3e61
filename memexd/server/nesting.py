"""graphql-core's "nested too deeply" check on variables, answered from the
variable's type when the type alone bounds the nesting.

Before coercing a variable, graphql-core 3.3 walks its whole value to refuse
nesting deeper than ``MAX_NESTING_DEPTH`` levels (deeper coercion could
exhaust the stack). The walk follows the type, one level per list and per
input object, so a value nests at most as deep as its type does: for a type
with no cycle through input objects, the type's own depth bounds every value
of it, and when that bound is within the limit the walk cannot find anything.
On a 1,000-item ``createItems`` the walk took ~3 ms of the request's ~39 ms of
Python. Types with a cycle (a ``MemoryFilter`` of filters) are walked as
before, by graphql-core's own function, so every answer is graphql-core's.

graphql-core looks the function up in its module on each call, so
:func:`install` puts this one there; ``tests/test_nesting.py`` checks it
answers as graphql-core's does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from graphql import (
    GraphQLInputObjectType,
    GraphQLInputType,
    is_input_object_type,
    is_list_type,
    is_non_null_type,
)
from graphql.execution import values
from graphql.language import parser

__all__ = ["input_is_nested_too_deeply", "install", "type_depth"]

#: graphql-core's own walk, for the types that need it (None in a version
#: without it: nothing to replace then).
_walk: Callable[[Any, GraphQLInputType], bool] | None = getattr(
    values, "input_is_nested_too_deeply", None
)
#: graphql-core's limit (200 levels in 3.3).
MAX_NESTING_DEPTH: int = getattr(parser, "MAX_NESTING_DEPTH", 200)
#: Per input object type (owned by its schema): the depth below it, or None.
_depths: WeakKeyDictionary[GraphQLInputObjectType, int | None] = WeakKeyDictionary()


def install() -> None:
    """Make graphql-core's variable coercion use :func:`input_is_nested_too_deeply`
    (where graphql-core has the check: ``tests/test_nesting.py`` says if not)."""
    if _walk is not None:
        values.input_is_nested_too_deeply = input_is_nested_too_deeply


def input_is_nested_too_deeply(value: Any, type_: GraphQLInputType) -> bool:
    """graphql-core's answer: without walking ``value`` when its type is
    shallow enough that no value of it can be too deep."""
    bound = type_depth(type_)
    if (bound is not None and bound <= MAX_NESTING_DEPTH) or _walk is None:
        return False
    return _walk(value, type_)


def type_depth(type_: GraphQLInputType) -> int | None:
    """The deepest level graphql-core's walk can reach in a value of
    ``type_`` (a list or an input object is one level more than what it
    holds), or None when a cycle leaves it unbounded."""
    return _depth(type_, frozenset())


def _depth(type_: Any, seen: frozenset[GraphQLInputObjectType]) -> int | None:
    levels = 0
    while is_non_null_type(type_) or is_list_type(type_):
        levels += is_list_type(type_)
        type_ = type_.of_type
    if not is_input_object_type(type_):
        return levels
    below = _object_depth(type_, seen)
    return None if below is None else levels + below


def _object_depth(
    type_: GraphQLInputObjectType, seen: frozenset[GraphQLInputObjectType]
) -> int | None:
    if type_ in seen:
        return None
    if not seen and type_ in _depths:  # only whole answers are kept
        return _depths[type_]
    below = [_depth(field.type, seen | {type_}) for field in type_.fields.values()]
    known = [depth for depth in below if depth is not None]
    depth = None if len(known) < len(below) else 1 + max(known, default=0)
    if not seen:
        _depths[type_] = depth
    return depth
