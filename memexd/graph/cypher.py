"""Loading named Cypher files and filling their slots.

Every statement lives in ``cypher/<name>.cypher`` (shipped in the wheel), with
an optional per-backend override ``cypher/<backend>/<name>.cypher``. A file
declares its parameters on a ``// @params a b c`` line; binding checks that
exactly those are supplied, so a typo fails in the tests, not in production.

Slots let trusted code splice text into a statement while the file stays a
complete, lintable query: ``/*<kind>*/RELATED/*</kind>*/`` lints as
``RELATED`` and is replaced by a validated relationship type at bind time.
Predicate fragments (``cypher/fragments/``) are files whose ``pred`` slot is
a boolean expression over ``n``; their parameters are renamed apart when
they are combined, so user values still only travel as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import count
from typing import Any

__all__ = ["Fragment", "Queries", "Query", "all_of", "any_of", "negate"]

_PARAMS_LINE = re.compile(r"^//\s*@params\b(.*)$", re.MULTILINE)
_SLOT = re.compile(r"/\*<(\w+)>\*/(.*?)/\*</\1>\*/", re.DOTALL)
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
_COMMENT_LINE = re.compile(r"^\s*//.*$\n?", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Fragment:
    """A piece of Cypher with the parameters it uses."""

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)


TRUE = Fragment("true")


@dataclass(frozen=True, slots=True)
class Query:
    name: str
    text: str
    params: frozenset[str]
    slots: Mapping[str, str]

    def bind(
        self, params: Mapping[str, Any], slots: Mapping[str, str | Fragment]
    ) -> tuple[str, dict[str, Any]]:
        """Fill slots and check parameters; return ``(text, params)``."""
        if set(slots) - set(self.slots):
            raise KeyError(f"{self.name}: unknown slots {sorted(set(slots) - set(self.slots))}")
        merged = dict(params)
        for value in slots.values():
            if isinstance(value, Fragment):
                merged.update(value.params)
        declared = self.params | {
            k for v in slots.values() if isinstance(v, Fragment) for k in v.params
        }
        if set(merged) != declared:
            raise KeyError(f"{self.name}: parameters {sorted(merged)} != {sorted(declared)}")
        text = self.text if not slots else _fill(self.text, slots)
        return text, merged

    def slot(self, name: str) -> str:
        return self.slots[name]


def _fill(text: str, slots: Mapping[str, str | Fragment]) -> str:
    def repl(match: re.Match[str]) -> str:
        value = slots.get(match.group(1))
        if value is None:
            return match.group(2)
        return value.text if isinstance(value, Fragment) else value

    return _SLOT.sub(repl, text)


def parse(name: str, source: str) -> Query:
    declared = _PARAMS_LINE.search(source)
    params = frozenset(declared.group(1).split()) if declared else frozenset()
    text = _COMMENT_LINE.sub("", source).strip()
    slots = {m.group(1): m.group(2) for m in _SLOT.finditer(text)}
    used = set(_PARAM.findall(_SLOT.sub("", text)))
    # Parameters used inside a slot's default belong to the fragment, not the query.
    if not used <= params:
        raise ValueError(f"{name}: undeclared parameters {sorted(used - params)}")
    return Query(name, text, params, slots)


class Queries:
    """The query files for one backend, loaded lazily and cached."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self._cache: dict[str, Query] = {}
        self._ids = count()

    def get(self, name: str) -> Query:
        query = self._cache.get(name)
        if query is None:
            query = self._cache[name] = parse(name, _source(self.backend, name))
        return query

    def fragment(self, name: str, **params: Any) -> Fragment:
        """A predicate fragment with its parameters renamed apart."""
        query = self.get(f"fragments/{name}")
        if set(params) != query.params:
            raise KeyError(
                f"fragment {name}: parameters {sorted(params)} != {sorted(query.params)}"
            )
        prefix = f"f{next(self._ids)}_"
        text = _PARAM.sub(
            lambda m: f"${prefix}{m.group(1)}" if m.group(1) in params else m.group(0),
            query.slot("pred"),
        )
        return Fragment(text, {prefix + k: v for k, v in params.items()})


def all_of(parts: Iterable[Fragment]) -> Fragment:
    return _join(list(parts), " AND ", TRUE)


def any_of(parts: Iterable[Fragment]) -> Fragment:
    return _join(list(parts), " OR ", Fragment("false"))


def negate(part: Fragment) -> Fragment:
    # Two-valued NOT: a predicate on a missing property is null, and
    # "not (agent_id = x)" must keep items that have no agent_id at all.
    return Fragment(f"NOT coalesce(({part.text}), false)", part.params)


def _join(parts: list[Fragment], glue: str, empty: Fragment) -> Fragment:
    if not parts:
        return empty
    if len(parts) == 1:
        return parts[0]
    params: dict[str, Any] = {}
    for part in parts:
        params.update(part.params)
    return Fragment(glue.join(f"({p.text})" for p in parts), params)


@cache
def _source(backend: str, name: str) -> str:
    root = resources.files("memexd.cypher")
    override = root.joinpath(backend, f"{name}.cypher")
    if override.is_file():
        return override.read_text(encoding="utf-8")
    path = root.joinpath(f"{name}.cypher")
    if not path.is_file():
        raise FileNotFoundError(f"no Cypher file named {name!r}")
    return path.read_text(encoding="utf-8")
