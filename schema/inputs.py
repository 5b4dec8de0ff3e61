"""GraphQL input types of the contract (plus a few optional additions)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from memexd.schema.enums import DecayInterval, DecayType, SortField, SortOrder

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


@strawberry.input
class EdgePatch:
    kind: str | None = None
    weight: float | None = None
    authority: float | None = None
    active: bool | None = None
    meta: JSON | None = None
