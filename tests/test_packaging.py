"""The wheel holds what ``memexd serve`` needs: the top-level schema/,
resolvers/, cypher/ and migrations/ folders as memexd sub-packages, and the
GraphiQL assets. (A checkout links nothing: packaging maps the folders.)"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _expected() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {ROOT / "memexd": "memexd"}
    folders.update({ROOT / f: p.replace(".", "/") for p, f in config["package-dir"].items()})
    wanted = {".py", ".cypher", ".constraints", ".graphql", ".typed"}
    out = set()
    for folder, target in folders.items():
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in wanted:
                out.add(f"{target}/{path.relative_to(folder).as_posix()}")
    static = ROOT / "memexd" / "server" / "static"
    out |= {f"memexd/server/static/{p.relative_to(static).as_posix()}"
            for p in static.rglob("*") if p.is_file()}  # fmt: skip
    return out


def test_the_wheel_ships_every_package_file(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("memexd-*.whl")
    names = {n for n in zipfile.ZipFile(wheel).namelist() if not n.startswith("memexd-")}
    assert _expected() - names == set(), "missing from the wheel"
    assert {n.split("/")[0] for n in names} == {"memexd"}
    assert "memexd/cypher/shapes/item.cypher" in names
    assert "memexd/server/static/graphiql/graphiql.min.js" in names


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "memexd").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed
    assert set(config["package-dir"]) <= listed
