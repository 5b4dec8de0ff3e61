"""Loading named Cypher files: includes, slots and parameter checks.

Every statement lives in ``cypher/<name>.cypher`` (shipped in the wheel), with
an optional per-backend override ``cypher/<backend>/<name>.cypher``. A file
declares its parameters on a ``// @params a b c`` line; binding checks that
exactly those are supplied, so a typo fails in the tests, not in production.

**Includes** keep each shape in one place. ``@item(c)`` is replaced, when the
file is loaded, by the text of ``cypher/shapes/item.cypher`` (its ``shape``
slot) with the shape's declared variables (``// @shape node``) renamed to the
arguments. Shapes are projections (``item``, ``edge``, ``event``) and the
event-log tail (``log_events``). The linter checks the composed text
(``python -m memexd.graph.cypher DIR`` writes it out).

**Slots** let trusted code splice text into a statement while the file stays
a complete query: ``/*<kind>*/RELATED/*</kind>*/`` lints as ``RELATED`` and is
replaced by a validated relationship type at bind time. Predicate fragments
(``cypher/fragments/``) are files whose ``pred`` slot is a boolean expression
over ``n``; their parameters are renamed apart per query (``f0_``, ``f1_``…),
so the same filter always gives the same text and the engines' plan caches
hit, while user values still only travel as parameters.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

__all__ = ["Fragment", "Queries", "Query", "compose", "query_names", "write_composed"]

_PARAMS_LINE = re.compile(r"^//\s*@params\b(.*)$", re.MULTILINE)
_SHAPE_LINE = re.compile(r"^//\s*@shape\b(.*)$", re.MULTILINE)
_SLOT = re.compile(r"/\*<(\w+)>\*/(.*?)/\*</\1>\*/", re.DOTALL)
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
_COMMENT_LINE = re.compile(r"^\s*//.*$\n?", re.MULTILINE)
_INCLUDE = re.compile(r"@([a-z_]+)\(")
_GRANTS = frozenset({"readable", "writable"})


@dataclass(frozen=True, slots=True)
class Fragment:
    """A piece of Cypher with the parameters it uses."""

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Query:
    name: str
    text: str
    params: frozenset[str]
    slots: Mapping[str, str]
    #: the grant parameters it declares (filled by the graph, never by callers)
    grants: frozenset[str] = frozenset()

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
    return Query(name, text, params, slots, params & _GRANTS)


# ---------------------------------------------------------------- includes


def compose(source: str, backend: str) -> str:
    """Expand every ``@shape(args)`` include in a file's source."""
    out: list[str] = []
    pos = 0
    for match in _INCLUDE.finditer(source):
        if match.start() < pos:
            continue  # inside an include already expanded
        args, end = _arguments(source, match.end())
        out.append(source[pos : match.start()])
        out.append(_shape(backend, match.group(1), args))
        pos = end
    out.append(source[pos:])
    return "".join(out)


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """Comma-separated arguments up to the matching ``)``; nesting-aware."""
    depth, args, current = 0, [], start
    for i in range(start, len(text)):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[current:i].strip())
            current = i + 1
        elif char == ")":
            args.append(text[current:i].strip())
            return [a for a in args if a], i + 1
    raise ValueError(f"unclosed include in {text[start - 20 : start + 20]!r}")


def _shape(backend: str, name: str, args: list[str]) -> str:
    source = _source(backend, f"shapes/{name}")
    declared = _SHAPE_LINE.search(source)
    variables = declared.group(1).split() if declared else []
    if len(variables) != len(args):
        raise ValueError(f"@{name} takes {variables}, got {args}")
    text = compose(parse(f"shapes/{name}", source).slot("shape"), backend)  # shapes nest
    if not variables:
        return text
    renamed = dict(zip(variables, args, strict=True))
    pattern = re.compile(r"(?<![.\w$])(" + "|".join(variables) + r")\b")
    return pattern.sub(lambda m: renamed[m.group(1)], text)


class Queries:
    """The query files for one backend, loaded lazily and cached."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self._cache: dict[str, Query] = {}

    def get(self, name: str) -> Query:
        query = self._cache.get(name)
        if query is None:
            query = self._cache[name] = parse(
                name, compose(_source(self.backend, name), self.backend)
            )
        return query

    def fragment(self, name: str, number: int, **params: Any) -> Fragment:
        """A predicate fragment, its parameters renamed apart as the ``number``-th
        fragment of its query (numbered per query, so equal filters give equal text)."""
        query = self.get(f"fragments/{name}")
        if set(params) != query.params:
            raise KeyError(
                f"fragment {name}: parameters {sorted(params)} != {sorted(query.params)}"
            )
        prefix = f"f{number}_"
        text = _PARAM.sub(
            lambda m: f"${prefix}{m.group(1)}" if m.group(1) in params else m.group(0),
            query.slot("pred"),
        )
        return Fragment(text, {prefix + k: v for k, v in params.items()})


def _root() -> Traversable:
    return resources.files("memexd.cypher")


@cache
def _source(backend: str, name: str) -> str:
    root = _root()
    override = root.joinpath(backend, f"{name}.cypher")
    if override.is_file():
        return override.read_text(encoding="utf-8")
    path = root.joinpath(f"{name}.cypher")
    if not path.is_file():
        raise FileNotFoundError(f"no Cypher file named {name!r}")
    return path.read_text(encoding="utf-8")


def query_names(backend: str | None = None) -> list[str]:
    """Every shipped query, shape and fragment name: the shared ones, and with
    ``backend`` also the files only that backend has."""
    root = Path(str(_root()))
    names = {_name(p, root) for p in root.rglob("*.cypher")
             if p.relative_to(root).parts[0] not in _BACKENDS}  # fmt: skip
    if backend is not None:
        names |= {_name(p, root / backend) for p in (root / backend).rglob("*.cypher")}
    return sorted(names)


_BACKENDS = ("falkordb", "neo4j")


def _name(path: Path, root: Path) -> str:
    return str(path.relative_to(root).with_suffix("")).replace("\\", "/")


def write_composed(out: Path, backend: str) -> list[Path]:
    """Write every query as the engines receive it (includes expanded, the
    ``@params`` line kept) for the linter; return the files written."""
    written = []
    for name in query_names(backend):
        source = _source(backend, name)
        declared = _PARAMS_LINE.search(source)
        header = f"{declared.group(0)}\n" if declared else ""
        target = out / backend / f"{name}.cypher"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(header + compose(_COMMENT_LINE.sub("", source), backend), "utf-8")
        written.append(target)
    return written


if __name__ == "__main__":  # pragma: no cover - a developer tool
    for engine in ("falkordb", "neo4j"):
        write_composed(Path(sys.argv[1]), engine)
