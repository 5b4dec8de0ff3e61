"""CI runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), re.DOTALL)
    test_command = next(b for b in blocks if "pytest" in b)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines
