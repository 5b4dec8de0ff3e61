"""GraphQL inputs to domain records (the only place that knows both)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memexd.schema import inputs as gql

from memexd.errors import BadUserInput, InvalidTimestamp
from memexd.events.log import EventFilter
from memexd.memory.edges import EdgeFilter, EdgePatch, NewEdge
from memexd.memory.filters import DecayConfig, MemoryFilter, Range
from memexd.memory.items import ItemPatch, NewItem
from memexd.memory.model import SortKey

__all__ = [
    "edge_filter",
    "edge_patch",
    "event_filter",
    "item_patch",
    "memory_filter",
    "new_edge",
    "new_item",
    "sort_keys",
    "to_ms",
]


def to_ms(value: datetime, field: str) -> int:
    """Epoch milliseconds; naive datetimes are taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return int(value.timestamp() * 1000)
    except (OverflowError, OSError, ValueError) as exc:
        raise InvalidTimestamp(f"{field}: timestamp out of range") from exc


def _range(r: gql.FloatRange | gql.IntRange | None) -> Range | None:
    return None if r is None else Range(r.min, r.max)


def memory_filter(f: gql.MemoryFilter | None) -> MemoryFilter | None:
    if f is None:
        return None
    ranges = f.range or gql.ScoreRanges()
    parents = f.parents or gql.ParentsFilter()
    created = f.created or gql.TimeRange()
    decay = f.decay
    return MemoryFilter(
        ids=f.ids,
        scope=f.scope,
        scope_prefix=f.scope_prefix,
        author=f.author,
        kind=f.kind,
        source_kind=f.source_kind,
        intent_id=f.intent_id,
        intent_ids=f.intent_ids,
        task_id=f.task_id,
        task_ids=f.task_ids,
        authority=_range(ranges.authority),
        conviction=_range(ranges.conviction),
        importance=_range(ranges.importance),
        has_parent=f.has_parent,
        is_root=f.is_root,
        parents_includes=parents.includes,
        parents_any=parents.includes_any,
        parents_all=parents.includes_all,
        parents_count=_range(parents.count),
        decay=None if decay is None else DecayConfig(
            decay.config.rate, decay.config.interval.value, decay.config.type.value
        ),
        decay_min=None if decay is None else decay.min,
        created_before=None if created.before is None else to_ms(created.before, "created.before"),
        created_after=None if created.after is None else to_ms(created.after, "created.after"),
        meta=_meta_filter(f.meta),
        meta_has=f.meta_has,
        not_=memory_filter(f.not_),
        or_=None if f.or_ is None else [_required(memory_filter(o)) for o in f.or_],
    )  # fmt: skip


def _required(f: MemoryFilter | None) -> MemoryFilter:
    return f if f is not None else MemoryFilter()


def _meta_filter(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadUserInput("must be a JSON object of dot paths to values", field="filter.meta")
    return value


def sort_keys(options: list[gql.SortOption] | None) -> list[SortKey]:
    return [SortKey(o.field.value, o.order.value == "DESC") for o in options or ()]


def new_item(i: gql.MemoryItemInput) -> NewItem:
    return NewItem(
        id=i.id,
        scope=i.scope,
        kind=i.kind,
        content=i.content,
        author=i.author,
        source_kind=i.source_kind,
        authority=i.authority,
        parents=i.parents,
        conviction=i.conviction,
        importance=i.importance,
        intent_id=i.intent_id,
        task_id=i.task_id,
        meta=i.meta,
    )


def item_patch(p: gql.MemoryItemPatch) -> ItemPatch:
    return ItemPatch(
        scope=p.scope,
        kind=p.kind,
        content=p.content,
        author=p.author,
        source_kind=p.source_kind,
        parents=p.parents,
        authority=p.authority,
        conviction=p.conviction,
        importance=p.importance,
        intent_id=p.intent_id,
        task_id=p.task_id,
        meta=p.meta,
    )


def new_edge(e: gql.EdgeInput) -> NewEdge:
    return NewEdge(
        edge_id=e.edge_id,
        from_id=e.from_,
        to_id=e.to,
        kind=e.kind,
        author=e.author,
        source_kind=e.source_kind,
        authority=e.authority,
        weight=e.weight,
        active=True if e.active is None else e.active,
        meta=e.meta,
    )


def edge_patch(p: gql.EdgePatch) -> EdgePatch:
    return EdgePatch(kind=p.kind, weight=p.weight, authority=p.authority, active=p.active,
                     meta=p.meta)  # fmt: skip


def edge_filter(f: gql.EdgeFilter | None) -> EdgeFilter:
    if f is None:
        return EdgeFilter()
    return EdgeFilter(
        from_id=f.from_,
        to_id=f.to,
        kind=f.kind,
        min_weight=f.min_weight,
        active_only=True if f.active_only is None else f.active_only,
    )


def event_filter(f: gql.EventFilter | None) -> EventFilter | None:
    if f is None:
        return None
    return EventFilter(namespaces=f.namespaces, types=f.types, scope_prefix=f.scope_prefix)
