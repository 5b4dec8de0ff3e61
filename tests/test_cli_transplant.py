"""``memexd replay | export | import`` as a user runs them: the console script
in a subprocess on a temporary data directory, with logs made by memex-python
and the results compared with memex-python's own replay and export."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import memex as mx
import pytest

from tests.engines import Engine

MEMEXD = str(Path(sys.executable).with_name("memexd"))
KEYS = ("memories", "edges", "intents", "tasks")
MISSING = "0190a000-0000-7000-8000-0000000000ff"  # a UUIDv7 no log creates


def memexd(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None, **settings: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")} | settings
    done = subprocess.run([MEMEXD, *args], input=stdin, capture_output=True, timeout=120,
                          env=env, cwd=cwd, check=False)  # fmt: skip
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def dump(model: Any) -> dict[str, Any]:
    found: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return found


def item(n: int, **fields: Any) -> dict[str, Any]:
    given = {"scope": "project:t", "kind": "observation", "content": {"n": n},
             "author": "user:t", "source_kind": "observed", "authority": 0.5, **fields}  # fmt: skip
    return dump(mx.create_memory_item(**given))


def edge(a: dict[str, Any], b: dict[str, Any], **fields: Any) -> dict[str, Any]:
    given = {"kind": "SUPPORTS", "author": "user:t", "source_kind": "observed",
             "authority": 0.7, **fields}  # fmt: skip
    return dump(mx.create_edge(from_=a["id"], to=b["id"], **given))


def ndjson(values: list[Any]) -> bytes:
    return "".join(json.dumps(v) + "\n" for v in values).encode()


def as_set(export: dict[str, Any]) -> dict[str, list[str]]:
    """Exports compare as sets (MemEX's list order is hash order)."""
    return {key: sorted(json.dumps(r, sort_keys=True) for r in export.get(key, [])) for key in KEYS}


def memex_code(error: Exception) -> str:
    known = {
        mx.DuplicateMemoryError: "DUPLICATE_MEMORY",
        mx.MemoryNotFoundError: "MEMORY_NOT_FOUND",
        mx.EdgeNotFoundError: "EDGE_NOT_FOUND",
    }
    return known.get(type(error), "BAD_USER_INPUT")


def session() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """A command log, an envelope log (out of time order) and the commands
    they add up to, in the order MemEX applies them."""
    m1, m2 = item(1, importance=0.4), item(2, meta={"env": "prod"})
    m3, m4 = item(3, parents=[m1["id"], m2["id"]], conviction=0.8), item(4)
    e1, e2, e3 = edge(m1, m2), edge(m2, m3, weight=0.4), edge(m3, m4)
    commands = [
        *({"type": "memory.create", "item": m} for m in (m1, m2, m3, m4)),
        *({"type": "edge.create", "edge": e} for e in (e1, e2, e3)),
        {"type": "memory.update", "item_id": m2["id"], "author": "user:t",
         "partial": {"content": {"n": 20}, "authority": 0.9}},
        {"type": "edge.update", "edge_id": e1["edge_id"], "author": "user:t",
         "partial": {"weight": 0.3, "active": False}},
        {"type": "memory.retract", "item_id": m4["id"], "author": "user:t"},  # takes e3 along
        {"type": "edge.retract", "edge_id": e2["edge_id"], "author": "user:t"},
    ]  # fmt: skip
    m5 = item(5, parents=[m3["id"]])
    later = [
        {"type": "memory.create", "item": m5},
        {"type": "edge.create", "edge": edge(m5, m1, kind="ABOUT")},
        {"type": "memory.update", "item_id": m5["id"], "author": "user:t",
         "partial": {"importance": 0.7}},
    ]  # fmt: skip
    times = ["2024-05-01T10:00:00.000Z", "2024-05-01T10:00:01Z", "2024-05-01T12:00:02+02:00"]
    envelopes = [{"id": str(n), "namespace": "memory", "type": c["type"], "ts": ts, "payload": c}
                 for n, (c, ts) in enumerate(zip(later, times, strict=True))]  # fmt: skip
    envelopes.reverse()  # the replay must sort them by time
    return commands, envelopes, commands + later


def test_replay_export_import_agree_with_memex_python(
    tmp_path: Path, graph_engine: Engine, other_engine: Engine
) -> None:
    commands, envelopes, applied = session()
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    on_one, on_two = graph_engine.env(), other_engine.env()

    done = memexd("replay", "-", "--data-dir", one, "--progress", stdin=ndjson(commands),
                  **on_one)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"replayed {len(commands)} commands from stdin" in done.stdout
    assert f"{len(commands)} applied, 0 failed" in done.stdout
    assert re.search(r"; trace [0-9a-f]{32}$", done.stdout.strip())  # what undoTrace takes
    assert "replaying commands" in done.stderr  # the bar, asked for off a terminal

    log = tmp_path / "envelopes.json"
    log.write_text(json.dumps(envelopes, indent=2))  # a pretty JSON array, not NDJSON
    done = memexd("replay", str(log), "--data-dir", one, **on_one)
    assert done.returncode == 0, done.stderr
    assert "replayed 3 envelopes from " in done.stdout
    assert "3 applied, 0 failed" in done.stdout
    assert (tmp_path / "envelopes.json.failures.ndjson").read_text() == ""

    peer = mx.replay_commands(applied)
    assert peer.skipped == []
    states = (peer.state, mx.create_intent_state(), mx.create_task_state())
    exported = tmp_path / "export.json"
    done = memexd("export", str(exported), "--data-dir", one, **on_one)
    assert done.returncode == 0, done.stderr
    assert "exported memories 4, edges 2, intents 0, tasks 0" in done.stdout
    whole = json.loads(exported.read_text())
    assert list(whole) == list(KEYS)
    assert as_set(whole) == as_set(
        dump(mx.export_slice(*states, memory_ids=list(peer.state.items)))
    )

    m5 = applied[-3]["item"]["id"]
    done = memexd("export", "-", "--memory-ids", m5, "--include-parents", "--data-dir", one,
                  **on_one)  # fmt: skip
    assert done.returncode == 0, done.stderr
    peer_slice = mx.export_slice(*states, memory_ids=[m5], include_parents=True)
    assert as_set(json.loads(done.stdout)) == as_set(dump(peer_slice))
    assert "exported memories 4, edges 2" in done.stderr  # stdout holds the export

    # keys in another order, and pages of 4 records (the import goes memories first)
    backwards = tmp_path / "backwards.json"
    backwards.write_text(json.dumps({key: whole[key] for key in reversed(KEYS)}))
    small = {"MEMEXD_TRAVERSAL_MAX_NODES": "4", **on_two}
    done = memexd("import", str(backwards), "--re-id", "--data-dir", two, **small)
    assert done.returncode == 1
    assert "--re-id needs the whole file in one import" in done.stderr
    report = tmp_path / "report.json"
    done = memexd("import", str(backwards), "--data-dir", two, "--report", str(report), **small)
    assert done.returncode == 0, done.stderr
    assert "created: memories 4, edges 2" in done.stdout
    created = json.loads(report.read_text())["created"]
    assert sorted(created["memories"]) == sorted(r["id"] for r in whole["memories"])
    done = memexd("export", "-", "--data-dir", two, "--quiet", **on_two)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == whole
    assert done.stderr == ""


def test_failures_file_holds_each_failed_index(tmp_path: Path, graph_engine: Engine) -> None:
    m1 = item(1)
    log = [
        {"type": "memory.create", "item": m1},
        {"type": "memory.create", "item": m1},  # duplicate
        {"type": "memory.update", "item_id": MISSING, "partial": {}, "author": "u"},
        {"type": "memory.create", "item": {**item(2), "authority": 1.5}},  # out of range
        "not a command",
        {"type": "memory.create", "item": item(3)},
        {"type": "edge.retract", "edge_id": MISSING, "author": "u"},
    ]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    failures = tmp_path / "failed.ndjson"
    done = memexd("replay", str(path), "--failures", str(failures), "--data-dir",
                  str(tmp_path / "data"), **graph_engine.env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 applied, 5 failed (BAD_USER_INPUT 2, DUPLICATE_MEMORY 1, EDGE_NOT_FOUND 1, " \
           "MEMORY_NOT_FOUND 1)" in done.stdout  # fmt: skip
    lines = [json.loads(line) for line in failures.read_text().splitlines()]
    peer = mx.replay_commands(log).skipped
    assert [(f["index"], f["code"]) for f in lines] == [
        (f.index, memex_code(f.error)) for f in peer
    ]
    assert all(set(f) == {"index", "code", "message"} and f["message"] for f in lines)
    assert MISSING in lines[1]["message"]


ITEM = json.dumps(item(1)).encode()


@pytest.mark.parametrize(
    ("command", "content", "error"),
    [
        (["replay"], b'{"type": "memory.create"}\n\n{"type": oops}\n',
         "log: line 3, column 10: bad JSON"),
        (["replay"], b'[{"type": "memory.create"}, {}, {"type": }]',
         "log: element 2 of the JSON array: bad JSON"),
        (["replay"], b'{"type": "memory.create"}\n{"ts": "2024-01-01T00:00:00Z"}\n',
         "log mixes commands (entry 0) and envelopes (entry 1)"),
        (["import"], b'{"memories": [%s, %s]}' % (ITEM, ITEM.replace(b'"id"', b'"ids"')),
         "log: memories[1]: unknown fields ['ids']"),
        (["import"], b'{"edges": [], "memories": {}}',
         "log: memories: must be a list"),
    ],
)  # fmt: skip
def test_a_malformed_file_is_one_line_exit_1_and_nothing_written(
    tmp_path: Path, graph_engine: Engine, command: list[str], content: bytes, error: str
) -> None:
    (tmp_path / "log").write_bytes(content)
    done = memexd(*command, "log", "--data-dir", str(tmp_path / "data"), cwd=tmp_path,
                  **graph_engine.env())  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"memexd: {error}"), done.stderr
    assert not (tmp_path / "data").exists()  # refused before the engine started
    assert not (tmp_path / "log.failures.ndjson").exists()
