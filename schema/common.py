"""What every schema module shares: the resolver ``Info`` type, ``Direction``,
the schema classes' error and naming behaviour."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from functools import lru_cache
from typing import Annotated, Any, TypeAlias, TypeVar

import strawberry
from strawberry.schema.name_converter import NameConverter
from strawberry.utils.str_converters import to_camel_case

from memexd.memory.model import Direction as DirectionRecord
from memexd.server.context import Context

__all__ = ["Direction", "IncludeArchived", "Info", "Names", "QuietErrors", "flat"]

Info: TypeAlias = strawberry.Info[Context, None]


#: Walks and nested lists leave archived items out unless asked (SPEC §11).
IncludeArchived: TypeAlias = Annotated[
    bool | None,
    strawberry.argument(description="Archived items too (left out unless true)."),
]


class QuietErrors:
    """For the schema classes (plain and subgraph): Strawberry logs every error
    of every request, but a caller's mistake is not a server incident."""

    def process_errors(self, errors: Any, execution_context: Any = None) -> None:
        """Nothing: ``ErrorCodes`` logs the internal ones."""


#: A Python name's GraphQL name (names are few; requests many).
_camel = lru_cache(maxsize=4096)(to_camel_case)


class Names(NameConverter):
    """Strawberry's names, each converted once: it converts the names of a
    field's arguments at every request (2-4 % of a point read's CPU)."""

    def apply_naming_config(self, name: str) -> str:
        return _camel(name) if self.auto_camel_case else name


@strawberry.enum(description="Which edges of an item: leaving it, entering it, or both.")
class Direction(Enum):
    FROM = strawberry.enum_value("FROM", description="Edges from this item to another.")
    TO = strawberry.enum_value("TO", description="Edges from another item to this one.")
    BOTH = strawberry.enum_value("BOTH", description="Edges in either direction.")

    def record(self) -> DirectionRecord:
        return DirectionRecord(
            outgoing=self is not Direction.TO, incoming=self is not Direction.FROM
        )


T = TypeVar("T")


def flat(cls: type[T]) -> type[T]:
    """Build this input straight from its GraphQL value.

    Every field of a flat input is a scalar, JSON or a list of them, which
    graphql-core has already coerced, so Strawberry's generic per-field
    conversion is pure overhead (it was most of a 1,000-item ``createItems``).
    This sets the definition's ``from_input``, the hook Strawberry documents for
    building an input value; omitted fields take their (null) defaults.
    """
    definition = cls.__strawberry_definition__  # type: ignore[attr-defined]
    names = Names()
    pairs = [(f.python_name, names.get_graphql_name(f)) for f in definition.fields]

    def from_input(type_: type[T], value: Mapping[str, Any], context: object) -> T:
        # the fields straight into the instance: a dataclass __init__ of a
        # dozen keyword arguments was a third of this, per item of a batch
        made = object.__new__(type_)
        made.__dict__ = {python: value.get(graphql) for python, graphql in pairs}
        return made

    definition.from_input = from_input
    return cls
