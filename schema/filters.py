"""``MemoryFilter`` and sorting in GraphQL, and their domain forms."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import Enum

import strawberry
from memexd.schema.lifecycle import Lifecycle, Priority, value
from strawberry.scalars import JSON

from memexd.errors import InvalidTimestamp
from memexd.memory import filters as domain
from memexd.memory.model import SortKey

__all__ = [
    "DecayConfig",
    "DecayFilter",
    "DecayInterval",
    "DecayType",
    "FloatRange",
    "IntRange",
    "MemoryFilter",
    "ParentsFilter",
    "ScoreRanges",
    "SortField",
    "SortOption",
    "SortOrder",
    "TimeRange",
    "epoch_ms",
    "sort_keys",
]


@strawberry.enum(description="What to sort items by.")
class SortField(Enum):
    AUTHORITY = strawberry.enum_value("authority", description="The authority score.")
    CONVICTION = strawberry.enum_value("conviction", description="Conviction (absent is 0).")
    IMPORTANCE = strawberry.enum_value("importance", description="Importance (absent is 0).")
    RECENCY = strawberry.enum_value("recency", description="Creation time (from the id).")
    DECAY = strawberry.enum_value(
        "decay", description="The decay score now, with the server's half-life (`decayScore`)."
    )


@strawberry.enum(description="Sort direction.")
class SortOrder(Enum):
    ASC = strawberry.enum_value("ASC", description="Smallest (or oldest) first.")
    DESC = strawberry.enum_value("DESC", description="Largest (or newest) first.")


@strawberry.enum(description="The unit of age for decay.")
class DecayInterval(Enum):
    HOUR = strawberry.enum_value("HOUR", description="Age in hours.")
    DAY = strawberry.enum_value("DAY", description="Age in days.")
    WEEK = strawberry.enum_value("WEEK", description="Age in weeks.")


@strawberry.enum(description="How a multiplier decays with age n (in intervals).")
class DecayType(Enum):
    EXPONENTIAL = strawberry.enum_value("EXPONENTIAL", description="(1 - rate)^n")
    LINEAR = strawberry.enum_value("LINEAR", description="max(0, 1 - rate·n)")
    STEP = strawberry.enum_value("STEP", description="(1 - rate)^floor(n)")


@strawberry.input(description="A range of numbers; either bound may be left out (inclusive).")
class FloatRange:
    min: float | None = strawberry.field(default=None, description="At least this.")
    max: float | None = strawberry.field(default=None, description="At most this.")

    def draft(self) -> domain.Range:
        return domain.Range(self.min, self.max)


@strawberry.input(description="A range of integers; either bound may be left out (inclusive).")
class IntRange:
    min: int | None = strawberry.field(default=None, description="At least this.")
    max: int | None = strawberry.field(default=None, description="At most this.")

    def draft(self) -> domain.Range:
        return domain.Range(self.min, self.max)


@strawberry.input(
    description="Ranges on the trust scores (an item without the score is outside any bounded "
    "range)."
)
class ScoreRanges:
    authority: FloatRange | None = strawberry.field(default=None, description="On authority.")
    conviction: FloatRange | None = strawberry.field(default=None, description="On conviction.")
    importance: FloatRange | None = strawberry.field(default=None, description="On importance.")


@strawberry.input(description="Conditions on an item's parent list.")
class ParentsFilter:
    includes: strawberry.ID | None = strawberry.field(
        default=None, description="Lists this id as a parent."
    )
    includes_any: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Lists at least one of these ids."
    )
    includes_all: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Lists every one of these ids."
    )
    count: IntRange | None = strawberry.field(
        default=None, description="How many parents it lists."
    )


@strawberry.input(description="A decay curve: rate per interval, and its shape.")
class DecayConfig:
    rate: float = strawberry.field(description="Decay per interval, in [0, 1].")
    interval: DecayInterval = strawberry.field(description="The unit of age.")
    type: DecayType = strawberry.field(description="The shape of the curve.")


@strawberry.input(description="Keep items whose decay multiplier is at least `min`.")
class DecayFilter:
    config: DecayConfig = strawberry.field(description="The decay curve.")
    min: float = strawberry.field(description="The smallest multiplier kept.")


@strawberry.input(
    description="A time window: `after` inclusive, `before` exclusive (as MemEX); naive times "
    "are UTC."
)
class TimeRange:
    before: datetime | None = strawberry.field(default=None, description="Created before this.")
    after: datetime | None = strawberry.field(default=None, description="Created at or after this.")


@strawberry.input(
    description="Which items: every field given must hold (AND); `or` and `not` nest. "
    "Evaluated in the database; at most 8 levels of nesting and 128 conditions."
)
class MemoryFilter:
    ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="One of these ids."
    )
    scope: str | None = strawberry.field(default=None, description="Exactly this scope.")
    scope_prefix: str | None = strawberry.field(
        default=None, description="A scope starting with this, e.g. `project:`."
    )
    author: str | None = strawberry.field(default=None, description="Exactly this author.")
    kind: str | None = strawberry.field(default=None, description="Exactly this kind.")
    source_kind: str | None = strawberry.field(
        default=None, description="Exactly this source kind."
    )
    intent_id: strawberry.ID | None = strawberry.field(
        default=None, description="Serves this intent."
    )
    intent_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Serves one of these intents."
    )
    task_id: strawberry.ID | None = strawberry.field(
        default=None, description="Produced by this task."
    )
    task_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Produced by one of these tasks."
    )
    range: ScoreRanges | None = strawberry.field(default=None, description="Score ranges.")
    has_parent: strawberry.ID | None = strawberry.field(
        default=None, description="Lists this id as a parent."
    )
    is_root: bool | None = strawberry.field(
        default=None, description="True: lists no parents; false: lists at least one."
    )
    parents: ParentsFilter | None = strawberry.field(
        default=None, description="Conditions on the parent list."
    )
    decay: DecayFilter | None = strawberry.field(
        default=None, description="Drop items whose decay multiplier is below `min`."
    )
    created: TimeRange | None = strawberry.field(
        default=None, description="Creation time window (from the UUIDv7 id)."
    )
    not_: MemoryFilter | None = strawberry.field(
        name="not",
        default=None,
        description="Items this filter does not match (an item without a meta path "
        "does not match a condition on it).",
    )
    meta: JSON | None = strawberry.field(
        default=None, description='Dot paths to exact values, e.g. {"tags.env": "prod"}.'
    )
    meta_has: list[str] | None = strawberry.field(
        default=None, description="Dot paths that must exist in meta."
    )
    decay_score: FloatRange | None = strawberry.field(
        default=None,
        description="The decay score now, with the server's half-life, within this range.",
    )
    lifecycle: list[Lifecycle] | None = strawberry.field(
        default=None, description="One of these tiers."
    )
    priority: list[Priority] | None = strawberry.field(
        default=None, description="One of these priorities."
    )
    tags_any: list[str] | None = strawberry.field(
        default=None, description="Carries at least one of these tags."
    )
    tags_all: list[str] | None = strawberry.field(
        default=None, description="Carries every one of these tags."
    )
    session_id: str | None = strawberry.field(
        default=None, description="Belongs to this session (`meta.session_id`)."
    )
    include_archived: bool | None = strawberry.field(
        default=None,
        description="Archived items are left out of every read unless this is true (top level "
        "only).",
    )
    or_: list[MemoryFilter] | None = strawberry.field(
        name="or",
        default=None,
        description="At least one of these (an empty list matches every item, as MemEX).",
    )

    def draft(self) -> domain.MemoryFilter:
        ranges = self.range or ScoreRanges()
        parents = self.parents or ParentsFilter()
        created = self.created or TimeRange()
        decay = self.decay
        return domain.MemoryFilter(
            ids=self.ids, scope=self.scope, scope_prefix=self.scope_prefix, author=self.author,
            kind=self.kind, source_kind=self.source_kind, intent_id=self.intent_id,
            intent_ids=self.intent_ids, task_id=self.task_id, task_ids=self.task_ids,
            authority=_range(ranges.authority), conviction=_range(ranges.conviction),
            importance=_range(ranges.importance), has_parent=self.has_parent,
            is_root=self.is_root, parents_includes=parents.includes,
            parents_any=parents.includes_any, parents_all=parents.includes_all,
            parents_count=_range(parents.count),
            decay=None if decay is None else domain.DecayConfig(
                decay.config.rate, decay.config.interval.value, decay.config.type.value),
            decay_min=None if decay is None else decay.min,
            created_before=epoch_ms(created.before, "created.before"),
            created_after=epoch_ms(created.after, "created.after"),
            meta=self.meta, meta_has=self.meta_has,
            decay_score=_range(self.decay_score),
            lifecycle=None if self.lifecycle is None else [value(v) for v in self.lifecycle],
            priority=None if self.priority is None else [value(v) for v in self.priority],
            tags_any=self.tags_any, tags_all=self.tags_all, session_id=self.session_id,
            include_archived=self.include_archived,
            not_=None if self.not_ is None else self.not_.draft(),
            or_=None if self.or_ is None else [o.draft() for o in self.or_],
        )  # fmt: skip


@strawberry.input(description="One sort key; ties always break by id.")
class SortOption:
    field: SortField = strawberry.field(description="What to sort by.")
    order: SortOrder = strawberry.field(description="Which way.")


def sort_keys(options: list[SortOption] | None) -> list[SortKey]:
    return [SortKey(o.field.name.lower(), o.order is SortOrder.DESC) for o in options or ()]


def _range(r: FloatRange | IntRange | None) -> domain.Range | None:
    return None if r is None else r.draft()


def epoch_ms(value: datetime | None, field: str, *, up: bool = True) -> int | None:
    """Epoch milliseconds, rounded up (so ``after`` stays inclusive and
    ``before`` exclusive for times between two milliseconds), or down with
    ``up=False`` (an instant: an event at a millisecond counts from it on);
    naive datetimes are taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        micros = (value - _EPOCH) // timedelta(microseconds=1)
    except (OverflowError, OSError, ValueError) as exc:
        raise InvalidTimestamp(f"{field}: timestamp out of range") from exc
    return -(-micros // 1000) if up else micros // 1000


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
