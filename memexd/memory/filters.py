"""``MemoryFilter``: the domain form and its compilation to a Cypher predicate.

Every field becomes a parameterised fragment from ``cypher/fragments``; the
whole filter is evaluated by the database, never by loading items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.graph.cypher import Fragment, all_of, any_of, negate
from memexd.ids import check_uuid
from memexd.memory.meta import canonical_json, path_keys
from memexd.memory.model import SortKey
from memexd.types import JSONObject

__all__ = ["DecayConfig", "MemoryFilter", "Range", "compile_filter", "order_by"]

INTERVAL_MS = {"HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 604_800_000}
_MAX_NESTING = 16


@dataclass(frozen=True, slots=True)
class Range:
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True, slots=True)
class DecayConfig:
    rate: float
    interval: str  # HOUR | DAY | WEEK
    type: str  # EXPONENTIAL | LINEAR | STEP

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise BadUserInput("must be within [0, 1]", field="decay.rate")


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    ids: Sequence[str] | None = None
    scope: str | None = None
    scope_prefix: str | None = None
    author: str | None = None
    kind: str | None = None
    source_kind: str | None = None
    intent_id: str | None = None
    intent_ids: Sequence[str] | None = None
    task_id: str | None = None
    task_ids: Sequence[str] | None = None
    authority: Range | None = None
    conviction: Range | None = None
    importance: Range | None = None
    has_parent: str | None = None
    is_root: bool | None = None
    parents_includes: str | None = None
    parents_any: Sequence[str] | None = None
    parents_all: Sequence[str] | None = None
    parents_count: Range | None = None
    decay: DecayConfig | None = None
    decay_min: float | None = None
    created_before: int | None = None
    created_after: int | None = None
    meta: JSONObject | None = None
    meta_has: Sequence[str] | None = None
    not_: MemoryFilter | None = None
    #: ``None``: no disjunction; empty: matches nothing (an empty OR is false).
    or_: Sequence[MemoryFilter] | None = None


def compile_filter(flt: MemoryFilter | None, graph: Graph, now_ms: int) -> Fragment:
    """The filter as one boolean Cypher expression over ``n``."""
    if flt is None:
        return Fragment("true")
    return _Compiler(graph, now_ms).compile(flt, 0)


def order_by(graph: Graph, keys: Sequence[SortKey]) -> str:
    """``ORDER BY`` keys; ties always break by id (ascending)."""
    parts = [
        f"{graph.queries.get(f'fragments/sort_{k.field}').slot('key')} "
        f"{'DESC' if k.descending else 'ASC'}"
        for k in keys
    ]
    return ", ".join([*parts, "n.id ASC"])


class _Compiler:
    def __init__(self, graph: Graph, now_ms: int) -> None:
        self.graph = graph
        self.now_ms = now_ms

    def frag(self, name: str, **params: Any) -> Fragment:
        return self.graph.fragment(name, **params)

    def compile(self, f: MemoryFilter, depth: int) -> Fragment:
        if depth > _MAX_NESTING:
            raise BadUserInput(f"filters nest deeper than {_MAX_NESTING} levels", field="filter")
        parts: list[Fragment] = []
        for step in _STEPS:
            parts.extend(step(self, f))
        if f.not_ is not None:
            parts.append(negate(self.compile(f.not_, depth + 1)))
        if f.or_ is not None:
            parts.append(any_of(self.compile(sub, depth + 1) for sub in f.or_))
        return all_of(parts)


def _equalities(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    pairs = [
        ("scope_eq", f.scope), ("scope_prefix", f.scope_prefix), ("author_eq", f.author),
        ("kind_eq", f.kind), ("source_kind_eq", f.source_kind),
    ]  # fmt: skip
    out = [c.frag(name, value=value) for name, value in pairs if value is not None]
    if f.intent_id is not None:
        out.append(c.frag("intent_eq", value=check_uuid(f.intent_id, "intentId")))
    if f.task_id is not None:
        out.append(c.frag("task_eq", value=check_uuid(f.task_id, "taskId")))
    return out


def _id_lists(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    lists = [("ids_in", f.ids, "ids"), ("intent_in", f.intent_ids, "intentIds"),
             ("task_in", f.task_ids, "taskIds")]  # fmt: skip
    return [
        c.frag(name, values=[check_uuid(v, label) for v in values])
        for name, values, label in lists
        if values is not None
    ]


def _ranges(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    out: list[Fragment] = []
    ranges = {
        "authority": f.authority,
        "conviction": f.conviction,
        "importance": f.importance,
        "parents_count": f.parents_count,
    }
    for name, rng in ranges.items():
        if rng is None:
            continue
        if rng.min is not None:
            out.append(c.frag(f"{name}_min", value=rng.min))
        if rng.max is not None:
            out.append(c.frag(f"{name}_max", value=rng.max))
    return out


def _parents(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    out = [
        c.frag("parents_include", value=check_uuid(value, "parents"))
        for value in (f.has_parent, f.parents_includes)
        if value is not None
    ]
    if f.parents_any is not None:
        out.append(c.frag("parents_any", values=[check_uuid(v, "parents") for v in f.parents_any]))
    if f.parents_all is not None:
        out.append(c.frag("parents_all", values=[check_uuid(v, "parents") for v in f.parents_all]))
    if f.is_root is not None:
        name = "parents_count_max" if f.is_root else "parents_count_min"
        out.append(c.frag(name, value=0 if f.is_root else 1))
    return out


def _time(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    out: list[Fragment] = []
    if f.created_before is not None:
        out.append(c.frag("created_before", value=f.created_before))
    if f.created_after is not None:
        out.append(c.frag("created_after", value=f.created_after))
    if f.decay is not None:
        out.append(
            c.frag(
                f"decay_{f.decay.type.lower()}",
                now=c.now_ms,
                interval=float(INTERVAL_MS[f.decay.interval]),
                rate=f.decay.rate,
                min=f.decay_min if f.decay_min is not None else 0.0,
            )
        )
    return out


def _meta(c: _Compiler, f: MemoryFilter) -> list[Fragment]:
    out: list[Fragment] = []
    if f.meta is not None:
        if not isinstance(f.meta, dict):
            raise BadUserInput("must be a JSON object of dot paths to values", field="meta")
        for path, value in f.meta.items():
            scalar, as_json = path_keys(path)
            if isinstance(value, bool | str | int | float):
                out.append(c.frag("meta_eq", key=scalar, value=value))
            else:
                out.append(c.frag("meta_eq", key=as_json, value=canonical_json(value)))
    for path in f.meta_has or ():
        scalar, as_json = path_keys(path)
        out.append(c.frag("meta_has", scalar=scalar, json=as_json))
    return out


_STEPS: tuple[Callable[[_Compiler, MemoryFilter], list[Fragment]], ...] = (
    _id_lists, _equalities, _ranges, _parents, _time, _meta,
)  # fmt: skip
