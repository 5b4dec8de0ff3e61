"""Every Cypher file passes Neo4j's own parser and semantic analysis.

Query files include shared shapes (``@item(n)``, ``@log_events(…)``), so the
composed text is what gets linted. The linter is ``tools/cypher-lint/lint.mjs``
(npm ``@neo4j-cypher/language-support``, pinned); install it with
``npm ci --prefix tools/cypher-lint``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memexd.graph.cypher import write_composed

ROOT = Path(__file__).resolve().parent.parent
LINTER = ROOT / "tools" / "cypher-lint"


def lint(*args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the Cypher lint needs Node.js (>= 20)")
    if not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        pytest.fail("the Cypher linter is not installed: run `npm ci --prefix tools/cypher-lint`")
    return subprocess.run(
        [node, str(LINTER / "lint.mjs"), *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def lint_json(*args: str) -> tuple[int, dict[str, Any]]:
    done = lint("--json", *args)
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, report


#: FalkorDB's own DDL for its vector index, which Neo4j's front-end rejects by
#: design (FalkorDB takes the options flat, Neo4j under indexConfig; Neo4j
#: has no DROP VECTOR INDEX FOR): exactly these errors, nothing else.
FALKORDB_DDL = {
    ("falkordb/vector_index_create.cypher", "Failed to create vector node index: Invalid option "
     "provided, valid options are `indexProvider` and `indexConfig`."),
    ("falkordb/vector_index_drop.cypher", "Invalid input 'VECTOR': expected 'ALIAS', "
     "'COMPOSITE', 'CONSTRAINT', 'DATABASE', 'INDEX', 'ROLE', 'SERVER' or 'USER'"),
}  # fmt: skip


def test_every_query_and_migration_file_lints_clean(tmp_path: Path) -> None:
    """Queries as the engines receive them (includes expanded), for both backends."""
    composed = [p for b in ("falkordb", "neo4j") for p in write_composed(tmp_path, b)]
    migrations = list((ROOT / "migrations").rglob("*.cypher"))
    expected = len(composed) + len(migrations)
    code, report = lint_json(str(tmp_path), str(ROOT / "migrations"))
    errors = {("/".join(Path(e["file"]).parts[-2:]), e["message"]): e for e in report["errors"]}
    assert set(errors) - FALKORDB_DDL == set()
    assert set(errors) == FALKORDB_DDL  # a fix upstream shows here
    assert code == 1
    assert report["files"] == expected > 0


def test_syntax_errors_and_undeclared_parameters_fail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.cypher"
    broken.write_text("// @params id\nMATCH (n:Item {id: $id} RETURN n\n", encoding="utf-8")
    undeclared = tmp_path / "undeclared.cypher"
    undeclared.write_text(
        "// @params id\nMATCH (n:Item {id: $id}) RETURN n, $limit AS l\n", encoding="utf-8"
    )
    code, report = lint_json(str(broken), str(undeclared))
    assert code == 1
    assert report["files"] == 2
    by_file: dict[str, list[str]] = {}
    for e in report["errors"]:
        by_file.setdefault(Path(e["file"]).name, []).append(f"{e['line']}: {e['message']}")
    assert set(by_file) == {"broken.cypher", "undeclared.cypher"}
    assert any(m.startswith("2: Invalid input") for m in by_file["broken.cypher"])
    assert by_file["undeclared.cypher"] == ["2: Parameter $limit is not defined."]
