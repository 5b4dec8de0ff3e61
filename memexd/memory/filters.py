"""``MemoryFilter``: checked, normalised, then compiled to one Cypher predicate.

:func:`prepare` validates every field and turns the filter into a boolean
expression over predicate fragments (``cypher/fragments``), in negation
normal form: ``not`` is pushed down to single predicates (De Morgan), double
negation cancels, nested ``and``/``or`` of the same kind are flattened.
That matters beyond tidiness: FalkorDB's parser takes time exponential in
how deeply the text nests (measured: doubling per parenthesis level, eightfold per nested
``NOT coalesce(…)``), and its query timeout does not stop the parser. So the
normalised expression is capped in depth (alternations of ``and``/``or``) and
in size, and printed with as few parentheses as precedence allows.

Negation is two-valued: an item without ``meta.agent_id`` matches
``not: {meta: {agent_id: "x"}}``. Each negated predicate becomes
``NOT coalesce(p, false)``; since ``coalesce(·, false)`` distributes over
AND and OR, pushing negations inward keeps exactly that meaning.

The semantics are MemEX's (memex-python's ``matches_filter``, checked by
``tests/test_filters.py`` on random items and filters); ``docs/filters.md``
lists every rule and the few deliberate differences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.graph.cypher import Fragment
from memexd.memory.indexed import INDEXED_META, SELECTIVE, prefix_below
from memexd.memory.lifecycle import check_lifecycle, check_priority, check_tags
from memexd.memory.meta import canonical_json, path_keys
from memexd.memory.model import SortKey
from memexd.memory.validation import (
    Limits,
    check_finite,
    check_ids,
    check_meta_path,
    check_opt_uuid,
    check_text,
    json_value,
)

__all__ = [
    "LIVE",
    "SCOPE_PREDICATES",
    "TRUE",
    "DecayConfig",
    "Expr",
    "MemoryFilter",
    "Predicate",
    "Range",
    "conjoin",
    "order_by",
    "prefixes_checked",
    "prepare",
    "scope_part",
    "to_cypher",
]

INTERVAL_MS = {"HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 604_800_000}
DECAY_TYPES = frozenset({"EXPONENTIAL", "LINEAR", "STEP"})
SORT_FIELDS = frozenset({"authority", "conviction", "importance", "recency", "decay"})
MAX_SORT_KEYS = 4


@dataclass(frozen=True, slots=True)
class Range:
    min: Any = None
    max: Any = None


@dataclass(frozen=True, slots=True)
class DecayConfig:
    rate: Any
    interval: Any  # HOUR | DAY | WEEK
    type: Any  # EXPONENTIAL | LINEAR | STEP


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """A filter as a caller gave it (unchecked); all fields AND-combined."""

    ids: Any = None
    scope: Any = None
    scope_prefix: Any = None
    author: Any = None
    kind: Any = None
    source_kind: Any = None
    intent_id: Any = None
    intent_ids: Any = None
    task_id: Any = None
    task_ids: Any = None
    authority: Range | None = None
    conviction: Range | None = None
    importance: Range | None = None
    has_parent: Any = None
    is_root: Any = None
    parents_includes: Any = None
    parents_any: Any = None
    parents_all: Any = None
    parents_count: Range | None = None
    decay: DecayConfig | None = None
    decay_min: Any = None
    created_before: Any = None
    created_after: Any = None
    meta: Any = None
    meta_has: Any = None
    decay_score: Range | None = None
    lifecycle: Any = None
    priority: Any = None
    tags_any: Any = None
    tags_all: Any = None
    session_id: Any = None
    #: Top level only: archived items are left out of every read unless this is true.
    include_archived: Any = None
    not_: MemoryFilter | None = None
    #: ``None`` or empty: no condition (MemEX's ``or: []`` matches everything).
    or_: Sequence[MemoryFilter] | None = None


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Predicate:
    """One fragment file with its parameters; ``negated`` for two-valued NOT."""

    name: str
    params: tuple[tuple[str, Any], ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class _Junction:
    op: str  # "AND" | "OR"
    parts: tuple[Expr, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class _Not:
    part: Expr


Expr = Predicate | _Junction | _Not
TRUE = _Junction("AND")
#: Not archived: what every read asks for unless told otherwise (memexd/memory/archive.py).
LIVE = Predicate("not_archived", ())


def prepare(flt: MemoryFilter | None, limits: Limits, now_ms: int) -> Expr:
    """The checked filter as a normalised expression; ``BAD_USER_INPUT`` for
    any bad field, nesting deeper than ``max_filter_depth`` or more than
    ``max_filter_terms`` predicates."""
    if flt is None:
        return LIVE
    expr = _ranged(_normal(_build(flt, limits, now_ms, 0), negate=False))
    depth, terms = _measure(expr)
    if depth > limits.max_filter_depth:
        raise BadUserInput(
            f"nests and/or {depth} levels deep; at most {limits.max_filter_depth}", field="filter"
        )
    if terms > limits.max_filter_terms:
        raise BadUserInput(
            f"has {terms} conditions; at most {limits.max_filter_terms}", field="filter"
        )
    if flt.include_archived is None or flt.include_archived is False:
        return conjoin(expr, LIVE)
    if flt.include_archived is not True:
        raise BadUserInput("must be true or false", field="filter.includeArchived")
    return expr


def _ranged(expr: Expr) -> Expr:
    """Scope prefixes AND-ed with a selective indexed equality are checked on
    its few candidates, not walked as an index range: a prefix's range is
    the union of every scope in it (``indexed.SELECTIVE``)."""
    if not isinstance(expr, _Junction) or expr.op != "AND":
        return expr
    if not any(isinstance(p, Predicate) and not p.negated and p.name in SELECTIVE
               for p in expr.parts):  # fmt: skip
        return expr
    return prefixes_checked(expr)


#: Predicates that read nothing of an item but its scope (and the scope's root).
SCOPE_PREDICATES = frozenset({
    "scope_eq", "scope_prefix", "scope_prefix_open", "scope_prefix_rooted", "scope_root_prefix",
    "scope_starts",
})  # fmt: skip


def scope_part(expr: Expr) -> Expr:
    """The conditions ``expr`` AND-s that read only the item's scope: what
    every match meets, checkable where only a scope is known (an item's
    scope as of an instant is on its event, ``memexd/history/asof.py``)."""
    parts = expr.parts if isinstance(expr, _Junction) and expr.op == "AND" else (expr,)
    kept = (p for p in parts if isinstance(p, Predicate) and p.name in SCOPE_PREDICATES)
    return _Junction("AND", tuple(kept))


def prefixes_checked(expr: Expr) -> Expr:
    """``expr`` with the scope ranges it AND-s checked on the candidates of
    its other conditions instead of walked: for conditions known to be
    narrow (a selective equality; the first band of a sorted top-k,
    ``reads``). Prefixes served by the root index stay: one root, or a few,
    costs the engine little next to any other condition."""
    if not isinstance(expr, _Junction) or expr.op != "AND":
        return expr
    return _Junction("AND", tuple(
        Predicate("scope_starts", (("value", dict(p.params)["value"]),), p.negated)
        if isinstance(p, Predicate) and p.name in ("scope_prefix", "scope_prefix_open")
        else p
        for p in expr.parts
    ))  # fmt: skip


def conjoin(*exprs: Expr) -> Expr:
    """Every one of ``exprs`` (prepared filters), normalised: for commands that
    narrow a caller's filter with conditions of their own."""
    return _normal(_Junction("AND", exprs), negate=False)


def to_cypher(expr: Expr, graph: Graph) -> Fragment:
    """One boolean Cypher expression over ``n``; fragments numbered in order,
    so equal filters give equal text."""
    numbers = count()
    params: dict[str, Any] = {}
    text = _print(expr, graph, numbers, params, parent=None)
    return Fragment(text, params)


def _print(expr: Expr, graph: Graph, numbers: count[int], params: dict[str, Any],
           parent: str | None) -> str:  # fmt: skip
    if isinstance(expr, Predicate):
        frag = graph.fragment(expr.name, next(numbers), **dict(expr.params))
        params.update(frag.params)
        return f"NOT coalesce({frag.text}, false)" if expr.negated else f"({frag.text})"
    if isinstance(expr, _Not):  # not left by _normal; printed faithfully all the same
        return f"NOT coalesce({_print(expr.part, graph, numbers, params, None)}, false)"
    if not expr.parts:
        return "true" if expr.op == "AND" else "false"
    inner = f" {expr.op} ".join(_print(p, graph, numbers, params, expr.op) for p in expr.parts)
    # AND binds tighter than OR: only an OR inside an AND needs parentheses
    return f"({inner})" if expr.op == "OR" and parent == "AND" else inner


def _normal(expr: Expr, *, negate: bool) -> Expr:
    """Negation normal form, with same-kind junctions flattened."""
    if isinstance(expr, _Not):
        return _normal(expr.part, negate=not negate)
    if isinstance(expr, Predicate):
        return Predicate(expr.name, expr.params, expr.negated != negate) if negate else expr
    op = expr.op if not negate else ("OR" if expr.op == "AND" else "AND")
    parts: list[Expr] = []
    for part in (_normal(p, negate=negate) for p in expr.parts):
        if isinstance(part, _Junction) and part.op == op:
            parts.extend(part.parts)
        elif isinstance(part, _Junction) and not part.parts:
            return part  # true inside OR, or false inside AND, decides the whole
        else:
            parts.append(part)
    return parts[0] if len(parts) == 1 else _Junction(op, tuple(parts))


def _measure(expr: Expr) -> tuple[int, int]:
    """(and/or nesting depth, number of predicates)."""
    if isinstance(expr, Predicate):
        return 0, 1
    if isinstance(expr, _Not):
        depth, terms = _measure(expr.part)
        return depth + 1, terms
    measured = [_measure(p) for p in expr.parts]
    return 1 + max((d for d, _ in measured), default=0), sum(t for _, t in measured)


# ---------------------------------------------------------------- building


def _build(f: MemoryFilter, limits: Limits, now_ms: int, depth: int) -> Expr:
    if depth > limits.max_filter_depth:
        raise BadUserInput(
            f"filters nest deeper than {limits.max_filter_depth} levels", field="filter"
        )
    if not isinstance(f, MemoryFilter):
        raise BadUserInput("must be a filter object", field="filter")
    if depth and f.include_archived is not None:
        raise BadUserInput("applies to the whole filter: give it at the top level",
                           field="filter.includeArchived")  # fmt: skip
    parts: list[Expr] = []
    for step in (_id_lists, _equalities, _ranges, _parents, _time, _meta, _tiering, _decay_score):
        parts.extend(step(f, limits, now_ms))
    if f.not_ is not None:
        parts.append(_Not(_build(f.not_, limits, now_ms, depth + 1)))
    if f.or_ is not None:
        if len(f.or_) > limits.max_filter_terms:
            raise BadUserInput(f"more than {limits.max_filter_terms} alternatives", field="or")
        alternatives = tuple(_build(o, limits, now_ms, depth + 1) for o in f.or_)
        if alternatives:  # MemEX tests ``if f.or_``: an empty list is no condition
            parts.append(_Junction("OR", alternatives))
    return _Junction("AND", tuple(parts))


def _p(name: str, **params: Any) -> Predicate:
    return Predicate(name, tuple(params.items()))


def _id_lists(f: MemoryFilter, limits: Limits, _: int) -> list[Expr]:
    lists = [("ids_in", f.ids, "ids"), ("intent_in", f.intent_ids, "intentIds"),
             ("task_in", f.task_ids, "taskIds")]  # fmt: skip
    return [
        _p(name, values=check_ids(values, f"filter.{label}", max_len=limits.max_list))
        for name, values, label in lists
        if values is not None
    ]


def _equalities(f: MemoryFilter, _: Limits, __: int) -> list[Expr]:
    texts = [
        ("scope_eq", f.scope, "scope"), ("author_eq", f.author, "author"),
        ("kind_eq", f.kind, "kind"), ("source_kind_eq", f.source_kind, "sourceKind"),
    ]  # fmt: skip
    out: list[Expr] = [
        _p(name, value=_text(value, f"filter.{label}"))
        for name, value, label in texts
        if value is not None
    ]
    if f.scope_prefix is not None:
        out.append(_prefix(_text(f.scope_prefix, "filter.scopePrefix")))
    ids = [("intent_eq", f.intent_id, "intentId"), ("task_eq", f.task_id, "taskId")]
    out.extend(
        _p(name, value=check_opt_uuid(value, f"filter.{label}"))
        for name, value, label in ids
        if value is not None
    )
    return out


def _prefix(prefix: str) -> Expr:
    """The index that serves a scope prefix best (:mod:`indexed`): one root
    for a root and its '/', a range of roots for a prefix without '/', else a
    range of scopes where the engines agree on one."""
    if not prefix:
        return TRUE  # every scope starts with ""
    root, slash, rest = prefix.partition("/")
    if slash and not rest and root:  # FalkorDB's index holds no empty string
        return _p("scope_prefix_rooted", value=prefix, root=root)
    below = prefix_below(prefix)
    if below is None:
        return _p("scope_prefix_open", value=prefix)
    return _p("scope_prefix" if slash else "scope_root_prefix", value=prefix, below=below)


def _text(value: Any, field: str) -> str:
    """A name to compare with. The empty string is allowed, as in MemEX: no
    scope or author is empty, so it matches nothing, except as a scope prefix,
    which every scope starts with."""
    return "" if value == "" else check_text(value, field)


def _ranges(f: MemoryFilter, _: Limits, __: int) -> list[Expr]:
    out: list[Expr] = []
    ranges = {"authority": f.authority, "conviction": f.conviction,
              "importance": f.importance, "parents_count": f.parents_count}  # fmt: skip
    for name, rng in ranges.items():
        if rng is None:
            continue
        low = check_finite(rng.min, f"filter.{name}.min")
        high = check_finite(rng.max, f"filter.{name}.max")
        if low is not None:
            out.append(_p(f"{name}_min", value=low))
        if high is not None:
            out.append(_p(f"{name}_max", value=high))
    return out


def _parents(f: MemoryFilter, limits: Limits, _: int) -> list[Expr]:
    out: list[Expr] = [
        _p("parents_include", value=check_opt_uuid(value, "filter.parents"))
        for value in (f.has_parent, f.parents_includes)
        if value is not None
    ]
    for name, values in (("parents_any", f.parents_any), ("parents_all", f.parents_all)):
        if values is not None:
            checked = check_ids(values, "filter.parents", max_len=limits.max_list)
            out.append(_p(name, values=checked))
    if f.is_root is not None:
        if not isinstance(f.is_root, bool):
            raise BadUserInput("must be true or false", field="filter.isRoot")
        name = "parents_count_max" if f.is_root else "parents_count_min"
        out.append(_p(name, value=0 if f.is_root else 1))
    return out


def _time(f: MemoryFilter, _: Limits, now_ms: int) -> list[Expr]:
    out: list[Expr] = []
    for name, value in (("created_before", f.created_before), ("created_after", f.created_after)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadUserInput("must be a time", field=f"filter.{name}")
            out.append(_p(name, value=value))
    if f.decay is not None:
        out.append(_decay(f.decay, f.decay_min, now_ms))
    return out


def _decay(decay: DecayConfig, minimum: Any, now_ms: int) -> Predicate:
    rate = check_finite(decay.rate, "filter.decay.config.rate")
    if rate is None or not 0.0 <= rate <= 1.0:
        raise BadUserInput("must be within [0, 1]", field="filter.decay.config.rate")
    if decay.interval not in INTERVAL_MS or decay.type not in DECAY_TYPES:
        raise BadUserInput("unknown decay interval or type", field="filter.decay.config")
    low = check_finite(minimum, "filter.decay.min")
    if low is not None and not 0.0 <= low <= 1.0:  # MemEX's DecayFilter: min in [0, 1]
        raise BadUserInput("must be within [0, 1]", field="filter.decay.min")
    interval = float(INTERVAL_MS[decay.interval])
    return _p(f"decay_{decay.type.lower()}", now=now_ms, interval=interval, rate=rate,
              min=0.0 if low is None else low)  # fmt: skip


def _meta(f: MemoryFilter, limits: Limits, _: int) -> list[Expr]:
    out: list[Expr] = []
    if f.meta is not None:
        if not isinstance(f.meta, dict):
            raise BadUserInput("must be a JSON object of dot paths to values", field="filter.meta")
        for path, value in f.meta.items():
            path = check_meta_path(path, "filter.meta")
            scalar, as_json = path_keys(path)
            found = _meta_eq(scalar, as_json, value, limits)
            if path in INDEXED_META and isinstance(value, str):
                # its indexed property; strings only: FalkorDB's index finds
                # true for 1, which the plain comparison tells apart
                found = _p(f"meta_{path}_eq", value=value)
            out.append(found)
    if f.meta_has is not None:
        if not isinstance(f.meta_has, list | tuple) or len(f.meta_has) > limits.max_list:
            raise BadUserInput(f"at most {limits.max_list} paths", field="filter.metaHas")
        for path in f.meta_has:
            scalar, as_json = path_keys(check_meta_path(path, "filter.metaHas"))
            out.append(_p("meta_has", scalar=scalar, json=as_json))
    return out


def _meta_eq(scalar: str, as_json: str, value: Any, limits: Limits) -> Predicate:
    if isinstance(value, str) and "\x00" in value:
        raise BadUserInput("strings may not contain NUL characters", field="filter.meta")
    if isinstance(value, bool | str | int | float):
        json_value(value, "filter.meta", max_bytes=limits.max_content_bytes)  # finite, 64-bit
        return _p("meta_eq", key=scalar, value=value)
    json_value(value, "filter.meta", max_bytes=limits.max_content_bytes)
    return _p("meta_eq", key=as_json, value=canonical_json(value))


def _decay_score(f: MemoryFilter, limits: Limits, now_ms: int) -> list[Expr]:
    """A decay score range, at the filter's ``now`` with the server's half-life."""
    if f.decay_score is None:
        return []
    timing = {"now": now_ms, "half_life": limits.decay_half_life_ms}
    out: list[Expr] = []
    for bound, value in (("min", f.decay_score.min), ("max", f.decay_score.max)):
        checked = check_finite(value, f"filter.decayScore.{bound}")
        if checked is not None:
            out.append(_p(f"decay_score_{bound}", value=checked, **timing))
    return out


def _tiering(f: MemoryFilter, _: Limits, __: int) -> list[Expr]:
    """The lifecycle fields: a list of tiers or priorities is any of them,
    each an indexed equality; ``tagsAny`` / ``tagsAll`` any or all tags."""
    out: list[Expr] = []
    for name, values, label, check in (
        ("lifecycle_eq", f.lifecycle, "lifecycle", check_lifecycle),
        ("priority_eq", f.priority, "priority", check_priority),
    ):
        if values is not None:
            field = f"filter.{label}"
            if not isinstance(values, list | tuple) or not values:
                raise BadUserInput("must be a non-empty list", field=field)
            out.append(_any_of(name, sorted({check(v, field) for v in values})))
    for op, tags, label in (("OR", f.tags_any, "tagsAny"), ("AND", f.tags_all, "tagsAll")):
        if tags is not None:
            named = check_tags(tags, f"filter.{label}")
            if not named:
                raise BadUserInput("must name at least one tag", field=f"filter.{label}")
            out.append(_Junction(op, tuple(_p("tag_in", value=t) for t in named)))
    if f.session_id is not None:
        out.append(_p("meta_session_id_eq", value=check_text(f.session_id, "filter.sessionId")))
    return out


def _any_of(name: str, values: list[str]) -> Expr:
    parts = tuple(_p(name, value=v) for v in values)
    return parts[0] if len(parts) == 1 else _Junction("OR", parts)


# ---------------------------------------------------------------- sorting


def order_by(
    graph: Graph, keys: Sequence[SortKey], now_ms: int = 0, half_life_ms: float = 1.0
) -> Fragment:
    """``ORDER BY`` keys; ties always break by id (ascending). The decay
    score is taken at ``now_ms`` with ``half_life_ms``."""
    if len(keys) > MAX_SORT_KEYS:
        raise BadUserInput(f"at most {MAX_SORT_KEYS} sort keys", field="sort")
    parts, params = [], {}
    for k in keys:
        if k.field not in SORT_FIELDS:
            raise BadUserInput(f"unknown sort field {k.field!r}", field="sort")
        key = graph.queries.get(f"fragments/sort_{k.field}").slot("key")
        parts.append(f"{key} {'DESC' if k.descending else 'ASC'}")
        if k.field == "decay":
            params = {"sort_now": now_ms, "sort_half_life": half_life_ms}
    return Fragment(", ".join([*parts, "n.id ASC"]), params)
