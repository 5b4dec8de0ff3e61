"""Project indexing (seed 000): Markdown split by heading, and ``memexd index``
as an operator runs it, idempotent by content hash, on each engine."""

from __future__ import annotations

import json
from pathlib import Path

from memexd.memory.documents import Document, split
from tests.engines import Engine
from tests.test_cli_transplant import memexd

README = """Preamble before any heading.

# Proj #

## Setup

Run `make`.

```sh
# a comment, not a heading
make test
```

## Conventions

### Naming

snake_case everywhere.

## Setup

Again.
"""


def test_markdown_splits_at_headings_outside_fences() -> None:
    sections = split(Document("docs/README.md", README))
    assert [(s.key, s.title) for s in sections] == [
        ("README.md", "README.md"),
        ("Proj/Setup", "README.md > Proj > Setup"),
        ("Proj/Conventions/Naming", "README.md > Proj > Conventions > Naming"),
        ("Proj/Setup (2)", "README.md > Proj > Setup"),
    ]  # "Proj" and "Conventions" hold only subsections: no item of their own
    assert "# a comment, not a heading\nmake test" in sections[1].text
    assert sections[2].text == "snake_case everywhere."


def test_hashes_follow_the_text_and_other_files_are_whole() -> None:
    one, two = split(Document("a.md", "# A\n\nx\n")), split(Document("a.md", "# A\n\ny\n"))
    assert one[0].digest != two[0].digest
    assert one[0].digest == split(Document("a.md", "# A\nx"))[0].digest  # blank lines aside
    assert [s.text for s in split(Document("NOTES.txt", "# not split\nbody", False))] == [
        "# not split\nbody"
    ]
    assert split(Document("empty.md", "\n\n# Only a heading\n")) == []


def index(tmp: Path, engine: Engine, *args: str) -> dict[str, list[str]]:
    done = memexd("index", *args, "--json", "--data-dir", str(tmp / "data"), cwd=tmp,
                  **engine.env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, list[str]] = json.loads(done.stdout)
    return report


def counts(report: dict[str, list[str]]) -> tuple[int, ...]:
    return tuple(len(report[k]) for k in ("created", "updated", "skipped", "retracted"))


def test_indexing_again_creates_updates_skips_and_retracts(
    tmp_path: Path, graph_engine: Engine
) -> None:
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "constraints.md").write_text("# Constraints\n\nNever push to main.\n")
    (tmp_path / "docs" / ".drafts").mkdir()
    (tmp_path / "docs" / ".drafts" / "wip.md").write_text("# WIP\n\nhidden\n")
    dry = index(tmp_path, graph_engine, "README.md", "docs", "--dry-run")
    assert counts(dry) == (5, 0, 0, 0)
    assert "README.md#Proj/Setup (2)" in dry["created"]
    first = index(tmp_path, graph_engine, "README.md", "docs")
    assert counts(first) == (5, 0, 0, 0)
    assert counts(index(tmp_path, graph_engine, "README.md", "docs")) == (0, 0, 5, 0)

    (tmp_path / "README.md").write_text(README.replace("snake_case", "kebab-case"))
    (tmp_path / "docs" / "constraints.md").unlink()
    again = index(tmp_path, graph_engine, "README.md", "docs")
    assert counts(again) == (0, 1, 3, 1)
    assert again["updated"] == [first["created"][2]]  # Naming, with its history
    context = memexd("context", "--data-dir", str(tmp_path / "data"), **graph_engine.env())
    assert "docs/constraints.md" not in context.stdout
    assert "README.md > Proj > Conventions > Naming" in context.stdout
    exported = memexd("export", "-", "--data-dir", str(tmp_path / "data"), **graph_engine.env())
    records = json.loads(exported.stdout)["memories"]
    naming = next(r for r in records if r["id"] == first["created"][2])
    assert naming["content"]["text"] == "kebab-case everywhere."
    assert naming["meta"]["source_path"] == "README.md"
    assert "memexd" not in naming["meta"]  # PROJECT, the default tier: nothing to keep


def test_bad_paths_are_usage_errors(tmp_path: Path, graph_engine: Engine) -> None:
    (tmp_path / "bin.md").write_bytes(b"\xff\xfe\x00")
    for path in ("missing.md", "bin.md"):
        done = memexd("index", path, "--data-dir", str(tmp_path / "data"), cwd=tmp_path,
                      **graph_engine.env())  # fmt: skip
        assert done.returncode == 1, path
        assert path in done.stderr
