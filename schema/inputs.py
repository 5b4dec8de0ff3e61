"""GraphQL input types of the contract (plus a few optional additions)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

import strawberry
from memexd.schema.enums import DecayInterval, DecayType, SortField, SortOrder
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig

__all__ = [
    "DecayConfig",
    "DecayFilter",
    "EdgeFilter",
    "EdgeInput",
    "EdgePatch",
    "EventFilter",
    "FloatRange",
    "IntRange",
    "MemoryFilter",
    "MemoryItemInput",
    "MemoryItemPatch",
    "ParentsFilter",
    "ScoreRanges",
    "SortOption",
    "TimeRange",
]


T = TypeVar("T")


def flat(cls: type[T]) -> type[T]:
    """Build this input straight from its GraphQL value.

    Every field of a flat input is a scalar, JSON or a list of them, which
    graphql-core has already coerced; Strawberry's generic per-field
    conversion is then pure overhead (it was most of a 1,000-item
    ``createItems``). Omitted fields default to null, as the schema says.
    """
    definition = cls.__strawberry_definition__  # type: ignore[attr-defined]
    names = StrawberryConfig().name_converter
    pairs = [(f.python_name, names.get_graphql_name(f)) for f in definition.fields]

    def from_input(type_: type[T], value: Mapping[str, Any], context: object) -> T:
        return type_(**{python: value.get(graphql) for python, graphql in pairs})

    definition.from_input = from_input
    return cls


@strawberry.input
class FloatRange:
    min: float | None = None
    max: float | None = None


@strawberry.input
class IntRange:
    min: int | None = None
    max: int | None = None


@strawberry.input
class ScoreRanges:
    authority: FloatRange | None = None
    conviction: FloatRange | None = None
    importance: FloatRange | None = None


@strawberry.input
class ParentsFilter:
    includes: strawberry.ID | None = None
    includes_any: list[strawberry.ID] | None = None
    includes_all: list[strawberry.ID] | None = None
    count: IntRange | None = None


@strawberry.input
class DecayConfig:
    rate: float
    interval: DecayInterval
    type: DecayType


@strawberry.input
class DecayFilter:
    config: DecayConfig
    min: float


@strawberry.input
class TimeRange:
    before: datetime | None = None
    after: datetime | None = None


@strawberry.input
class MemoryFilter:
    ids: list[strawberry.ID] | None = None
    scope: str | None = None
    scope_prefix: str | None = None
    author: str | None = None
    kind: str | None = None
    source_kind: str | None = None
    intent_id: strawberry.ID | None = None
    intent_ids: list[strawberry.ID] | None = None
    task_id: strawberry.ID | None = None
    task_ids: list[strawberry.ID] | None = None
    range: ScoreRanges | None = None
    has_parent: strawberry.ID | None = None
    is_root: bool | None = None
    parents: ParentsFilter | None = None
    decay: DecayFilter | None = None
    created: TimeRange | None = None
    not_: MemoryFilter | None = strawberry.field(name="not", default=None)
    meta: JSON | None = strawberry.field(
        default=None, description='Dot paths to exact values, e.g. {"tags.env": "prod"}.'
    )
    meta_has: list[str] | None = None
    or_: list[MemoryFilter] | None = strawberry.field(name="or", default=None)


@strawberry.input
class SortOption:
    field: SortField
    order: SortOrder


@strawberry.input
class EdgeFilter:
    from_: strawberry.ID | None = strawberry.field(name="from", default=None)
    to: strawberry.ID | None = None
    kind: str | None = None
    min_weight: float | None = None
    active_only: bool | None = True


@strawberry.input
class EventFilter:
    namespaces: list[str] | None = None
    types: list[str] | None = None
    scope_prefix: str | None = None


@flat
@strawberry.input
class MemoryItemInput:
    id: strawberry.ID | None = None
    scope: str
    kind: str
    content: JSON
    author: str
    source_kind: str
    parents: list[strawberry.ID] | None = None
    authority: float
    conviction: float | None = None
    importance: float | None = None
    intent_id: strawberry.ID | None = None
    task_id: strawberry.ID | None = None
    meta: JSON | None = None


@flat
@strawberry.input
class MemoryItemPatch:
    scope: str | None = None
    kind: str | None = None
    content: JSON | None = None
    author: str | None = None
    source_kind: str | None = None
    parents: list[strawberry.ID] | None = None
    authority: float | None = None
    conviction: float | None = None
    importance: float | None = None
    intent_id: strawberry.ID | None = None
    task_id: strawberry.ID | None = None
    meta: JSON | None = None


@flat
@strawberry.input
class EdgeInput:
    edge_id: strawberry.ID | None = None
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    kind: str
    weight: float | None = None
    author: str
    source_kind: str
    authority: float
    active: bool | None = True
    meta: JSON | None = None


@flat
@strawberry.input
class EdgePatch:
    kind: str | None = None
    weight: float | None = None
    authority: float | None = None
    active: bool | None = None
    meta: JSON | None = None
