"""CI runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_ci_runs_the_readme_test_command() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), re.DOTALL)
    test_command = next(b for b in blocks if "pytest" in b)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_the_settings_table_lists_every_setting_with_its_default() -> None:
    from memexd.settings import Settings

    rows = re.findall(r"^\| `(MEMEXD_[A-Z0-9_]+)`[^|]*\| ([^|]+) \|", README.read_text(), re.M)
    table = {name: default.strip() for name, default in rows}
    fields = Settings.model_fields
    assert set(table) == {f"MEMEXD_{name.upper()}" for name in fields}
    for name, field in fields.items():
        shown = table[f"MEMEXD_{name.upper()}"]
        default = field.get_default(call_default_factory=True)
        if default is None:
            assert shown.startswith(("none", "from ")), name
        elif isinstance(default, bool):
            assert shown == f"`{str(default).lower()}`", name
        else:
            assert shown == f"`{default}`", (name, shown)
