"""``memexd embed`` as an operator runs it: the console script on a data
directory whose items wait for their embeddings (imported, as after an
upgrade), on each engine."""

from __future__ import annotations

from pathlib import Path

from tests.engines import Engine
from tests.test_cli_transplant import item, memexd, ndjson

ITEMS = 12


def test_embed_stores_what_waits_once_and_resumes_nothing_twice(
    tmp_path: Path, graph_engine: Engine
) -> None:
    data, on = str(tmp_path / "data"), graph_engine.env()
    records = [item(n, content={"text": f"note number {n} about the deploy"}) for n in range(ITEMS)]
    done = memexd("import", "-", "--data-dir", data, stdin=ndjson(records), **on)
    assert done.returncode == 0, done.stderr

    done = memexd("embed", "--data-dir", data, "--progress", **on)
    assert done.returncode == 0, done.stderr
    assert f"embedded {ITEMS} items with " in done.stdout
    assert "embedding" in done.stderr  # the bar, asked for off a terminal

    # what was stored stays stored: a second run finds nothing waiting
    done = memexd("embed", "--data-dir", data, **on)
    assert done.returncode == 0, done.stderr
    assert "embedded 0 items with " in done.stdout

    # --all puts back only what another model embedded: here, nothing
    done = memexd("embed", "--all", "--data-dir", data, **on)
    assert done.returncode == 0, done.stderr
    assert "now waits" in done.stderr
    assert "embedded 0 items with " in done.stdout


def test_embed_with_embeddings_off_is_one_line_and_status_2(
    tmp_path: Path, graph_engine: Engine
) -> None:
    done = memexd(
        "embed", "--data-dir", str(tmp_path / "data"), MEMEXD_EMBEDDING="off", **graph_engine.env()
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["memexd: embeddings are off (MEMEXD_EMBEDDING=off)"]
