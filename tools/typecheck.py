"""Type-check memexd as it is installed, with the mypy settings in pyproject.toml.

The checkout keeps ``schema/``, ``resolvers/``, ``cypher/`` and ``migrations/``
at the top; the wheel installs them as ``memexd.schema`` and friends (the
``package-dir`` table in pyproject.toml). mypy cannot follow setuptools'
editable import hook, so this script lays the Python files out as installed
under ``.mypy_cache/layout`` (copies with their times, so mypy's incremental
cache keeps working), runs mypy there and reports paths in the checkout.

    .venv/bin/python tools/typecheck.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / ".mypy_cache" / "layout"
_SUFFIXES = {".py", ".pyi", ".typed"}


def package_dirs() -> dict[Path, Path]:
    """Checkout folder -> folder in the installed layout, from pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapped = config["tool"]["setuptools"]["package-dir"]
    dirs = {ROOT / "memexd": LAYOUT / "memexd"}
    for package, folder in mapped.items():
        dirs[ROOT / folder] = LAYOUT.joinpath(*package.split("."))
    return dirs


def sync() -> dict[Path, Path]:
    """Mirror the Python files into the layout; return layout file -> checkout file."""
    wanted: dict[Path, Path] = {}
    for source, target in package_dirs().items():
        for path in source.rglob("*"):
            if path.suffix in _SUFFIXES and path.is_file():
                wanted[target / path.relative_to(source)] = path
    for path in LAYOUT.rglob("*") if LAYOUT.exists() else ():
        if path.is_file() and path not in wanted:
            path.unlink()
    for copy, original in wanted.items():
        stat = original.stat()
        if not copy.exists() or copy.stat().st_mtime_ns != stat.st_mtime_ns:
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(original, copy)
    return wanted


def main() -> int:
    origins = sync()
    # from inside the layout, so the checkout's own memexd/ is not on the path
    os.chdir(LAYOUT)
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(LAYOUT.parent)]
    out, err, status = api.run([*config, "memexd"])
    for copy, original in sorted(origins.items(), key=lambda kv: -len(str(kv[0]))):
        out = out.replace(str(copy.relative_to(LAYOUT)), str(original.relative_to(ROOT)))
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
