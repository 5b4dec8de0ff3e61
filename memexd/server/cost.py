"""What a GraphQL request may cost, measured before anything runs.

Two figures, both linear in the document (each fragment is measured once):

- :func:`count_fields`, before validation: graphql-core's overlapping-fields
  rule is quadratic in the fields of a selection set, so a 50 KB document of
  repeated fields would block the event loop; capped by ``max_fields``.
- :func:`estimate`, after validation, with the request's variables: how many
  values the response can hold. A field costs 1 plus, for a list, its size
  times the cost of what is selected in each element. A list's size is its
  ``limit`` argument when given, or the length of the list argument it
  answers one element per (``sized_by``), else a known bound (``bounds``: the traversal
  limits for walks, the batch size for batch results), else the page limit at
  the root and ``nested_list`` below it. Capped by ``max_cost``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLNamedType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    get_nullable_type,
    is_list_type,
)

__all__ = ["CostModel", "count_fields", "estimate"]

_CEILING = 10**15  # past any limit; keeps the arithmetic small


@dataclass(frozen=True, slots=True)
class CostModel:
    #: Size of a root list field without ``limit``.
    max_page: int
    #: Size assumed for a nested list without a known bound.
    nested_list: int = 10
    #: Known list sizes, as ``("Type.field", size)`` pairs.
    bounds: tuple[tuple[str, int], ...] = ()
    #: Lists as long as one of their list arguments, as ``("Type.field",
    #: "argument")`` pairs (federation's ``_entities``: one per representation).
    sized_by: tuple[tuple[str, str], ...] = ()


def count_fields(document: DocumentNode) -> int:
    """Field selections in the document, each fragment counted once."""
    count = 0
    stack: list[Any] = list(document.definitions)
    while stack:
        node = stack.pop()
        if isinstance(node, FieldNode):
            count += 1
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)
    return count


def estimate(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
    model: CostModel,
    lengths: Mapping[str, int] | None = None,
) -> int:
    """The estimated cost of the operation that will run (0 if none is found).
    ``variables`` needs only the integers, ``lengths`` the lengths of lists."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    walker = _Walker(schema, fragments, variables or {}, model, lengths or {})
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        name = definition.name.value if definition.name else None
        if operation_name is None or name == operation_name:
            root = schema.get_root_type(definition.operation)
            if root is None:
                return 0
            return walker.cost(definition.selection_set, root, at_root=True)
    return 0


class _Walker:
    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: Mapping[str, Any],
        model: CostModel,
        lengths: Mapping[str, int],
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.model = model
        self.lengths = lengths
        self.memo: dict[tuple[str, str, bool], int] = {}

    def cost(self, selections: SelectionSetNode, parent: GraphQLNamedType, *,
             at_root: bool = False) -> int:  # fmt: skip
        total = 0
        for node in selections.selections:
            if isinstance(node, FieldNode):
                total += self.field(node, parent, at_root)
            elif isinstance(node, InlineFragmentNode):
                condition = node.type_condition
                inner = self.schema.get_type(condition.name.value) if condition else parent
                total += self.cost(node.selection_set, inner or parent, at_root=at_root)
            elif isinstance(node, FragmentSpreadNode):
                total += self.spread(node.name.value, parent, at_root)
        return min(total, _CEILING)

    def spread(self, name: str, parent: GraphQLNamedType, at_root: bool) -> int:
        key = (name, parent.name, at_root)
        if key not in self.memo:
            self.memo[key] = 0  # a cycle (refused by validation anyway) adds nothing
            fragment = self.fragments.get(name)
            inner = self.schema.get_type(fragment.type_condition.name.value) if fragment else None
            if fragment is not None:
                self.memo[key] = self.cost(fragment.selection_set, inner or parent, at_root=at_root)
        return self.memo[key]

    def field(self, node: FieldNode, parent: GraphQLNamedType, at_root: bool) -> int:
        fields = getattr(parent, "fields", None)
        definition = fields.get(node.name.value) if fields else None
        if definition is None:  # __typename, introspection
            return 1
        inner = 0
        if node.selection_set is not None:
            inner = self.cost(node.selection_set, get_named_type(definition.type))
        if not is_list_type(get_nullable_type(definition.type)):
            return min(1 + inner, _CEILING)
        size = self.list_size(node, f"{parent.name}.{node.name.value}", at_root)
        return min(1 + size * max(inner, 1), _CEILING)

    def list_size(self, node: FieldNode, coordinate: str, at_root: bool) -> int:
        for argument in node.arguments or ():
            if argument.name.value != "limit":
                continue
            value = argument.value
            # a limit past the page limit is refused by the field itself, clearly
            if isinstance(value, IntValueNode):
                return min(max(int(value.value), 0), self.model.max_page)
            if isinstance(value, VariableNode):
                given = self.variables.get(value.name.value)
                if isinstance(given, int) and not isinstance(given, bool):
                    return min(max(given, 0), self.model.max_page)
        for known, argument_name in self.model.sized_by:
            if known == coordinate:
                return min(self.argument_length(node, argument_name), self.model.max_page)
        for known, size in self.model.bounds:
            if known == coordinate:
                return size
        return self.model.max_page if at_root else self.model.nested_list

    def argument_length(self, node: FieldNode, name: str) -> int:
        """Elements in the list argument ``name`` (the page limit when unknown)."""
        for argument in node.arguments or ():
            if argument.name.value != name:
                continue
            value = argument.value
            if isinstance(value, ListValueNode):
                return len(value.values)
            if isinstance(value, VariableNode) and value.name.value in self.lengths:
                return self.lengths[value.name.value]
        return self.model.max_page
