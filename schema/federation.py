"""memexd as an Apollo Federation 2 subgraph.

The entity types declare their keys where they are defined — ``MemoryItem(id)``,
``Edge(edgeId)``, ``Intent(id)``, ``Task(id)`` — and each has a
``resolve_reference(info, key)`` that reads through the per-request loaders:
all references to one type in one ``_entities`` call are one database read,
under the caller's grants. A reference to an item the caller cannot read, a
retracted item or a missing id all resolve to null, alike.

Strawberry's federation schema serves ``_service { sdl }`` and ``_entities``;
:class:`SubgraphSchema` checks each representation before anything is read
(its ``__typename`` names an entity, its key is an id), so a malformed one is
``BAD_USER_INPUT``, never an internal error. The plain schema is built from
the same types with the federation directives stripped
(:func:`without_federation`): ``memexd serve`` without ``MEMEXD_FEDERATION``
answers exactly what it answered before federation existed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, Final, Protocol, cast

import strawberry
from graphql import GraphQLDirective, GraphQLSchema, get_named_type, specified_scalar_types
from memexd.schema.common import Info, QuietErrors
from strawberry.federation.schema import FederationAny
from strawberry.federation.schema_directives import FederationDirective, Inaccessible, Key
from strawberry.schema_directive import StrawberrySchemaDirective
from strawberry.types.base import StrawberryObjectDefinition

from memexd.errors import BadUserInput

__all__ = [
    "FEDERATION_VERSION",
    "OPERATOR_TOOL",
    "Entity",
    "SubgraphSchema",
    "without_federation",
]

#: The Federation 2 spec the subgraph links to (Apollo composition 2.14 knows it).
FEDERATION_VERSION: Final = "2.11"
#: Directives of the operations meant for memexd's operators (replaying logs,
#: importing slices: restores and migrations, run against memexd itself with
#: an admin key). ``@inaccessible`` keeps them out of a supergraph's API.
OPERATOR_TOOL = (Inaccessible(),)
#: Longest key accepted in a representation (ids are UUIDs; this leaves room).
MAX_KEY_LENGTH = 128


class Entity(Protocol):
    """A type other subgraphs can reference by its one key field."""

    @classmethod
    def resolve_reference(cls, info: Info, key: str) -> Awaitable[object | None]: ...


class SubgraphSchema(QuietErrors, strawberry.federation.Schema):
    """Strawberry's federation schema with checked, batched entity references."""

    def __init__(self, *, max_references: int, **kwargs: Any) -> None:
        self.max_references = max_references
        super().__init__(federation_version=FEDERATION_VERSION, **kwargs)
        self.entities = _entity_keys(self)

    def entities_resolver(
        self, info: Info, representations: list[FederationAny]
    ) -> list[FederationAny]:
        if len(representations) > self.max_references:
            raise BadUserInput(
                f"_entities takes at most {self.max_references:,} representations "
                f"(MEMEXD_MAX_PAGE), got {len(representations):,}"
            )
        # every representation is checked before any is read
        references = [self._reference(i, r) for i, r in enumerate(representations)]
        return [cast(FederationAny, entity.resolve_reference(info, key))
                for entity, key in references]  # fmt: skip

    def _reference(self, index: int, representation: object) -> tuple[type[Entity], str]:
        where = f"representations[{index}]"
        if not isinstance(representation, Mapping):
            raise BadUserInput(f"{where} must be an object")
        typename = representation.get("__typename")
        if typename not in self.entities:
            names = ", ".join(sorted(self.entities))
            raise BadUserInput(f"{where}.__typename must name an entity type: {names}")
        entity, field = self.entities[typename]
        key = representation.get(field)
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_LENGTH:
            raise BadUserInput(f"{where}.{field} must be an id of 1 to {MAX_KEY_LENGTH} chars")
        return entity, key


def _entity_keys(schema: strawberry.Schema) -> dict[str, tuple[type[Entity], str]]:
    """Entity type name → (its class, its one key field), from the ``@key``s."""
    found: dict[str, tuple[type[Entity], str]] = {}
    for name, concrete in schema.schema_converter.type_map.items():
        definition = concrete.definition
        if not isinstance(definition, StrawberryObjectDefinition) or definition.is_input:
            continue
        for directive in definition.directives or ():
            if isinstance(directive, Key):
                found[name] = (cast(type[Entity], definition.origin), str(directive.fields))
    return found


def without_federation(schema: GraphQLSchema) -> GraphQLSchema:
    """``schema`` without the federation directives' definitions and the
    scalars only they use (``_FieldSet``), which graphql-core collects from
    the keys on the entity types."""
    dropped = [d for d in schema.directives if _is_federation(d)]
    if not dropped:
        return schema
    support = {get_named_type(a.type).name for d in dropped for a in d.args.values()}
    support -= set(specified_scalar_types)
    kwargs = schema.to_kwargs()
    kwargs["directives"] = tuple(d for d in schema.directives if d not in dropped)
    kwargs["types"] = tuple(t for t in kwargs["types"] or () if t.name not in support)
    return GraphQLSchema(**kwargs)


def _is_federation(directive: GraphQLDirective) -> bool:
    definition = directive.extensions.get("strawberry-definition")
    origin = definition.origin if isinstance(definition, StrawberrySchemaDirective) else None
    return isinstance(origin, type) and issubclass(origin, FederationDirective)
