"""``memexd jobs`` as an operator runs it: the console script on a data
directory, with no server running, on each engine."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engines import Engine
from tests.test_cli_lifecycle import record
from tests.test_cli_transplant import memexd, ndjson


def test_jobs_run_list_watch_and_cancel(tmp_path: Path, graph_engine: Engine) -> None:
    data, on = str(tmp_path / "data"), graph_engine.env()
    first = record(1, "deploys go out on Tuesdays")
    twin = record(0.5, "deploys go out on Tuesdays")
    done = memexd("import", "-", "--data-dir", data, stdin=ndjson([first, twin]), **on)
    assert done.returncode == 0, done.stderr

    dry = memexd("jobs", "run", "CONSOLIDATE", "--author", "ops", "--dry-run", "--json",
                 "--data-dir", data, **on)  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["status"] == "COMPLETED"
    assert report["dry_run"] is True
    assert report["result"] == {"duplicates": 1, "keyed": 0, "unkeyed": 0}

    run = memexd("jobs", "run", "CONSOLIDATE", "--author", "ops", "--data-dir", data, **on)
    assert run.returncode == 0, run.stderr
    assert "CONSOLIDATE  COMPLETED 100%  duplicates: 1" in run.stdout

    queued = memexd("jobs", "run", "DECAY_UPDATE", "--author", "ops", "--detach", "--json",
                    "--data-dir", data, **on)  # fmt: skip
    job_id = json.loads(queued.stdout)["id"]
    listed = memexd("jobs", "list", "--status", "QUEUED", "--data-dir", data, **on)
    assert listed.stdout.split()[:3] == [job_id, "DECAY_UPDATE", "QUEUED"]
    cancelled = memexd("jobs", "cancel", job_id, "--data-dir", data, **on)
    assert cancelled.returncode == 0
    assert "CANCELLED" in cancelled.stdout
    watched = memexd("jobs", "watch", job_id, "--data-dir", data, **on)
    assert watched.returncode == 1
    assert "CANCELLED" in watched.stdout

    everything = memexd("jobs", "list", "--json", "--data-dir", data, **on)
    assert len(everything.stdout.splitlines()) == 3


def test_jobs_refuse_bad_input(tmp_path: Path, graph_engine: Engine) -> None:
    data, on = str(tmp_path / "data"), graph_engine.env()
    bad = memexd("jobs", "run", "DECAY_UPDATE", "--author", "ops", "--params", '{"x": 1}',
                 "--data-dir", data, **on)  # fmt: skip
    assert bad.returncode == 1
    assert "unknown keys" in bad.stderr
    small = memexd("jobs", "run", "PATTERNS_EXTRACT", "--author", "ops", "--params",
                   '{"minCount": 0}', "--data-dir", data, **on)  # fmt: skip
    assert small.returncode == 1
    assert "params.minCount" in small.stderr
    missing = memexd("jobs", "watch", "0190c0de-0000-7000-8000-000000000000", "--data-dir",
                     data, **on)  # fmt: skip
    assert missing.returncode == 1
    assert "not found" in missing.stderr
    listed = memexd("jobs", "list", "--json", "--data-dir", data, **on)
    assert listed.returncode == 0
    assert listed.stdout == ""


def test_an_archive_moves_to_a_fresh_instance(tmp_path: Path, graph_engine: Engine) -> None:
    """archive-get writes an archive to a file; archive-put keeps it in
    another database (a fresh data directory; on Neo4j, the same server
    after CLEANUP purged the items), where ARCHIVE_RESTORE brings them back."""
    data, on = str(tmp_path / "data"), graph_engine.env()
    notes = [record(90, f"note {n}", meta={"memexd": {"lifecycle": "TASK"}}) for n in range(3)]
    assert memexd("import", "-", "--data-dir", data, stdin=ndjson(notes), **on).returncode == 0
    made = memexd("jobs", "run", "ARCHIVE_CREATE", "--author", "ops", "--json",
                  "--data-dir", data, **on)  # fmt: skip
    archive = json.loads(made.stdout)["result"]
    assert archive["items"] == 3, made.stderr
    file = tmp_path / "notes.ndjson.gz"
    got = memexd("jobs", "archive-get", archive["archiveId"], "--output", str(file),
                 "--json", "--data-dir", data, **on)  # fmt: skip
    assert json.loads(got.stdout) == {"bytes": archive["bytes"]}
    if graph_engine.neo4j is None:
        data = str(tmp_path / "fresh")
    else:
        gone = memexd("archive", "--author", "ops", "--data-dir", data, **on)
        assert gone.returncode == 0, gone.stderr
        purged = memexd("jobs", "run", "CLEANUP", "--author", "ops", "--json", "--data-dir",
                        data, **on)  # fmt: skip
        assert json.loads(purged.stdout)["result"]["purged"] == 3
    put = memexd("jobs", "archive-put", str(file), "--data-dir", data, **on)
    assert put.returncode == 0, put.stderr
    restored = memexd("jobs", "run", "ARCHIVE_RESTORE", "--author", "ops", "--params",
                      json.dumps({"archiveId": put.stdout.strip()}), "--json",
                      "--data-dir", data, **on)  # fmt: skip
    assert json.loads(restored.stdout)["result"]["created"] == 3, restored.stderr
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip")
    refused = memexd("jobs", "archive-put", str(bad), "--data-dir", data, **on)
    assert refused.returncode == 1
    assert "not an archive" in refused.stderr
