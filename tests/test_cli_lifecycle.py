"""``memexd archive`` and ``memexd context`` as an operator runs them: the
console script on a data directory, on each engine."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from memexd.ids import uuid7_at
from tests.engines import Engine
from tests.test_cli_transplant import memexd, ndjson

DAY = 86_400_000


def record(days_ago: float, text: str, **fields: Any) -> dict[str, Any]:
    """A MemEX item record made ``days_ago`` days ago."""
    ms = int(time.time() * 1000 - days_ago * DAY)
    return {"id": uuid7_at(ms), "scope": "project:t", "kind": "note", "content": {"text": text},
            "author": "user:t", "source_kind": "observed", "authority": 0.5, "created_at": ms,
            **fields}  # fmt: skip


def test_archive_and_context_from_the_command_line(tmp_path: Path, graph_engine: Engine) -> None:
    data, on = str(tmp_path / "data"), graph_engine.env()
    stale = record(90, "stale scratch", meta={"memexd": {"lifecycle": "EPHEMERAL"}})
    rule = record(90, "deploys go out on Tuesdays")
    mine = record(0, "checkpoint: tests green", kind="checkpoint", meta={"session_id": "s1"})
    done = memexd("import", "-", "--data-dir", data, stdin=ndjson([stale, rule, mine]), **on)
    assert done.returncode == 0, done.stderr

    dry = memexd("archive", "--author", "user:ops", "--dry-run", "--json", "--data-dir", data, **on)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout) == {"archived": [stale["id"]], "skipped": [rule["id"]],
                                      "retained": [mine["id"]], "dryRun": True}  # fmt: skip

    before = memexd("context", "--session", "s1", "--data-dir", data, **on)
    assert before.returncode == 0, before.stderr
    assert "stale scratch" not in before.stdout  # EPHEMERAL: in no section

    done = memexd("archive", "--author", "user:ops", "--data-dir", data, **on)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [f"  {stale['id']}"]
    assert done.stdout.startswith("archived 1 items; 1 PROJECT items kept")

    block = memexd("context", "--session", "s1", "--max-bytes", "300", "--data-dir", data, **on)
    assert block.returncode == 0, block.stderr
    assert block.stdout.startswith("## Project profile\n")
    assert len(block.stdout.rstrip("\n").encode()) <= 300

    bad = memexd("context", "--max-bytes", "10", "--data-dir", data, **on)
    assert bad.returncode == 1
    assert "maxBytes" in bad.stderr
