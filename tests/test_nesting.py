"""graphql-core's "nested too deeply" check, answered from the type where it
bounds the nesting (memexd.server.nesting): the same answers, walk or not."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import (
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLString,
    graphql_sync,
)
from graphql.execution import values
from graphql.language.parser import MAX_NESTING_DEPTH
from hypothesis import given
from hypothesis import strategies as st
from memexd.schema.build import build_schema

from memexd.server import nesting
from tests.support import Api

SCHEMA = build_schema()._schema


def _input(name: str) -> GraphQLInputObjectType:
    found = SCHEMA.get_type(name)
    assert isinstance(found, GraphQLInputObjectType)
    return found


def _chain(levels: int) -> GraphQLInputObjectType:
    """An acyclic input type ``levels`` objects deep."""
    inner = GraphQLInputObjectType("L0", {"v": GraphQLInputField(GraphQLString)})
    for k in range(1, levels):
        inner = GraphQLInputObjectType(f"L{k}", {"next": GraphQLInputField(inner)})
    return inner


NODE = GraphQLInputObjectType(
    "Node",
    lambda: {"v": GraphQLInputField(GraphQLString), "kids": GraphQLInputField(GraphQLList(NODE))},
)


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"v": "leaf"}
    for _ in range(levels):
        value = {"kids": [value]}
    return value


def test_type_depth_counts_lists_and_objects() -> None:
    items = GraphQLNonNull(GraphQLList(GraphQLNonNull(_input("MemoryItemInput"))))
    assert nesting.type_depth(items) == 3  # the list, an item, a list field of it
    assert nesting.type_depth(GraphQLString) == 0
    assert nesting.type_depth(GraphQLList(GraphQLList(GraphQLString))) == 2
    assert nesting.type_depth(_chain(5)) == 5
    assert nesting.type_depth(_input("MemoryFilter")) is None  # and/or hold filters
    assert nesting.type_depth(GraphQLList(NODE)) is None


def test_a_type_deeper_than_the_limit_is_still_walked() -> None:
    deep = _chain(MAX_NESTING_DEPTH + 2)
    value: dict[str, Any] = {"v": "x"}
    for _ in range(MAX_NESTING_DEPTH + 1):
        value = {"next": value}
    assert nesting.input_is_nested_too_deeply(value, deep) is True
    assert nesting.input_is_nested_too_deeply({"next": None}, deep) is False


@pytest.mark.parametrize("levels", [0, 1, 50, MAX_NESTING_DEPTH - 1, MAX_NESTING_DEPTH + 1])
def test_a_cyclic_type_gets_graphql_cores_answer(levels: int) -> None:
    value = _nested(levels)
    assert nesting._walk is not None  # graphql-core 3.3 has the check
    expected = nesting._walk(value, NODE)
    assert nesting.input_is_nested_too_deeply(value, NODE) is expected
    assert expected is (2 * levels > MAX_NESTING_DEPTH)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)
ITEM_KEYS = ["id", "scope", "kind", "content", "author", "sourceKind", "parents", "meta"]
items = st.lists(st.dictionaries(st.sampled_from(ITEM_KEYS), json_values) | json_values, max_size=4)


@given(value=items)
def test_same_answer_as_graphql_core_for_item_batches(value: Any) -> None:
    type_ = GraphQLNonNull(GraphQLList(GraphQLNonNull(_input("MemoryItemInput"))))
    assert nesting._walk is not None
    assert nesting.input_is_nested_too_deeply(value, type_) is nesting._walk(value, type_)


def test_install_puts_it_where_coercion_looks() -> None:
    nesting.install()
    assert values.input_is_nested_too_deeply is nesting.input_is_nested_too_deeply
    query = GraphQLObjectType(
        "Query",
        {"echo": GraphQLField(GraphQLString, args={"n": NODE}, resolve=lambda *_, **__: "ok")},  # type: ignore[arg-type]
    )
    schema = GraphQLSchema(query)
    document = "query($n: Node) { echo(n: $n) }"
    shallow = graphql_sync(schema, document, variable_values={"n": _nested(3)})
    assert shallow.errors is None
    assert shallow.data == {"echo": "ok"}
    deep = graphql_sync(schema, document, variable_values={"n": _nested(MAX_NESTING_DEPTH)})
    assert deep.errors
    assert deep.errors[0].message == "Variable values are nested too deeply."


async def test_a_filter_nested_too_deeply_is_refused_with_a_code(api: Api) -> None:
    query = "query($f: MemoryFilter) { items(filter: $f) { id } }"
    deep: dict[str, Any] = {"scope": "s"}
    for _ in range(MAX_NESTING_DEPTH + 1):
        deep = {"not": deep}
    body = await api.run(query, {"f": deep})
    assert [e["message"] for e in body["errors"]] == ["Variable values are nested too deeply."]
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_USER_INPUT"]
    assert await api.run(query, {"f": {"not": {"not": {"scope": "s"}}}}) == {"data": {"items": []}}
