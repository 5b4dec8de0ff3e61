"""Imports flow one way (SPEC §1): engines ← core ← resolvers ← root types.

Read from the source, so a cycle or a shortcut fails here rather than at
import time in production."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOTS = {"schema/query.py", "schema/mutation.py", "schema/subscription.py", "schema/build.py"}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def files(*folders: str) -> list[Path]:
    return [p for f in folders for p in (ROOT / f).rglob("*.py")]


def offenders(paths: list[Path], *forbidden: str) -> list[str]:
    return sorted(
        f"{p.relative_to(ROOT)} imports {name}"
        for p in paths
        for name in imports(p)
        if any(name == f or name.startswith(f"{f}.") for f in forbidden)
    )


def test_the_engine_layer_knows_nothing_above_it() -> None:
    above = ("memexd.memory", "memexd.integrity", "memexd.events", "memexd.server",
             "memexd.schema", "memexd.resolvers", "memexd.core", "strawberry")  # fmt: skip
    assert offenders(files("memexd/graph"), *above) == []


def test_the_core_knows_nothing_of_http_or_graphql() -> None:
    core = files("memexd/memory", "memexd/integrity", "memexd/events")
    core += [ROOT / "memexd" / name for name in ("core.py", "concurrency.py", "ids.py")]
    web = ("memexd.server", "memexd.schema", "memexd.resolvers", "strawberry", "starlette")
    assert offenders(core, *web) == []


def test_only_root_types_import_resolvers() -> None:
    leaves = [p for p in files("schema") if str(p.relative_to(ROOT)) not in ROOTS]
    assert offenders(leaves, "memexd.resolvers") == []
    roots = ("memexd.schema.query", "memexd.schema.mutation", "memexd.schema.build")
    assert offenders(files("resolvers"), *roots) == []


def test_the_schema_package_imports_nothing_eagerly() -> None:
    """``import memexd.schema.items`` must not pull in the root types (the old cycle)."""
    assert imports(ROOT / "schema" / "__init__.py") == set()
