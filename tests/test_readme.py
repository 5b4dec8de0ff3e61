"""CI runs exactly the README's test command."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

from tests.processes import free_port

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
        if name == "workers":  # the machine's: said in words
            assert default == min(len(os.sched_getaffinity(0)), 16)
            assert shown == "one per usable core (at most 16)"
        elif default is None:
            assert shown.startswith(("none", "from ")), name
        elif isinstance(default, bool):
            assert shown == f"`{str(default).lower()}`", name
        else:
            assert shown == f"`{default}`", (name, shown)


def test_the_neo4j_session_runs_as_written(tmp_path: Path) -> None:
    """The README's session on a real Neo4j, run by bash as a reader would."""
    text = README.read_text()
    block = re.search(r"<!-- neo4j-session -->\n```sh\n(.*?)\n```", text, re.DOTALL)
    assert block is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")}
    env |= {"DIR": str(tmp_path / "session"), "PORT": str(free_port())}
    (tmp_path / "session").mkdir()
    process = subprocess.Popen(["bash", "-c", block.group(1)], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)  # fmt: skip
    try:
        out, err = process.communicate(timeout=400)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    health, answer = out.strip().splitlines()[-2:]
    assert json.loads(health) == {"status": "ok", "backend": "neo4j"}, err
    data = json.loads(answer)["data"]
    assert data["item"]["authority"] == 0.9
    assert data["supportSet"] == [{"id": data["item"]["id"]}]
    assert process.returncode == 0, err


def run_block(name: str, data: Path) -> str:
    """The README's ``<!-- name -->`` shell block, run by bash as a reader
    would (no MEMEXD_ settings of ours), on a data directory of its own;
    its standard output."""
    block = re.search(rf"<!-- {name} -->\n```sh\n(.*?)\n```", README.read_text(), re.DOTALL)
    assert block is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")}
    env |= {"DIR": str(data), "PORT": str(free_port())}
    done = subprocess.run(["bash", "-c", block.group(1)], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_recall_session_runs_as_written(tmp_path: Path) -> None:
    """The README's recall example with the default settings (embedding on)."""
    *created, answer = run_block("recall-session", tmp_path / "data").strip().splitlines()
    assert len(created) == 2
    [hit] = json.loads(answer)["data"]["recall"]
    assert hit["item"]["content"] == {"text": "The login page rejects expired session tokens"}
    assert hit["textScore"] is None
    assert hit["vectorScore"] > 0.5
    assert hit["why"]["vector"]["rank"] == 1


def test_the_lifecycle_session_runs_as_written(tmp_path: Path) -> None:
    """The README's lifecycle example: fields, access and decay order."""
    out = run_block("lifecycle-session", tmp_path / "data")
    first, access, ranked, tagged = (json.loads(line) for line in out.splitlines())
    assert first["data"]["createItem"]["item"]["id"]
    assert access["data"]["recordAccess"] == [{"access": {"count": 1}}]
    used, scratch = ranked["data"]["items"]
    assert used["tags"] == ["convention", "ops"]
    assert used["meta"] == {"memexd": {"tags": ["convention", "ops"]}}
    assert round(used["decayScore"], 2) == 1.07
    assert (scratch["lifecycle"], scratch["priority"], scratch["sessionId"]) == (
        "EPHEMERAL",
        "P3",
        "s1",
    )
    assert round(scratch["decayScore"], 2) == 0.5
    assert tagged["data"]["items"] == [{"content": {"text": "deploys go out on Tuesdays"}}]


def test_the_coordination_session_runs_as_written(tmp_path: Path) -> None:
    """The README's hand-over: a checkpoint and a signal from agent A; agent
    B finds the signal and resumes from the session's context block."""
    out = run_block("coordination-session", tmp_path / "data")
    checkpoint, signal, found, block = (json.loads(line) for line in out.splitlines())
    ids = [r["data"]["createItem"]["item"]["id"] for r in (checkpoint, signal)]
    handover = {"text": "over to you: migrate invoices"}
    assert found["data"]["items"] == [
        {"author": "agent:a", "sessionId": "s-42", "content": handover}
    ]
    lines = block["data"]["context"]["text"].splitlines()
    assert lines[0] == "## Task context"
    assert [line.split("]")[0] for line in lines[1:]] == [f"- [{i}" for i in reversed(ids)]
    assert lines[2].endswith("orders table migrated; invoices next")


def test_the_maintenance_session_runs_as_written(tmp_path: Path) -> None:
    """The README's maintenance example: a consolidation's dry run, the run,
    the archived twins, and a schedule's next tick in its time zone."""
    out = run_block("maintenance-session", tmp_path / "data")
    dry, real, items, schedule = (json.loads(line) for line in out.splitlines())
    assert dry["data"]["job"]["dryRun"] is True
    assert dry["data"]["job"]["result"] == {"duplicates": 2, "keyed": 0, "unkeyed": 0}
    assert real["data"]["job"]["status"] == "COMPLETED"
    assert real["data"]["job"]["result"]["duplicates"] == 2
    assert sorted(i["archived"] for i in items["data"]["items"]) == [False, True, True]
    made = schedule["data"]["createSchedule"]
    assert (made["name"], made["overlap"], made["paused"]) == ("nightly decay", "SKIP", False)
    assert made["nextRunAt"][11:16] in ("02:00", "01:00")  # 03:00 in Paris (winter, summer)


def test_the_agent_session_runs_as_written(tmp_path: Path) -> None:
    """The README's MCP session: the SDK's client drives ``memexd mcp`` over
    stdio through remember, recall, why, impact and forget."""
    out = run_block("mcp-session", tmp_path / "data")
    asked = re.findall(r"^> (\w+) ", out, re.M)
    assert asked == ["remember", "remember", "recall", "why", "impact", "forget"]
    fact, plan = re.findall(r"^Remembered \[([0-9a-f-]{36})\]", out, re.M)
    recalled = out.split("> recall ")[1].split("\n> ")[0]
    assert "1. (" in recalled
    assert fact in recalled.splitlines()[1]
    why = out.split("> why ")[1].split("\n> ")[0].splitlines()
    assert why[1] == f"trust 0.50 along {fact} → {plan}"
    assert why[2].startswith(f"- [{plan}]")
    assert why[3].startswith(f"  - [{fact}]")
    assert "forget with cascade would retract 2 items:" in out
    assert out.rstrip().endswith(f"Retracted 2 items:\n{plan}\n{fact}")


def test_the_undo_session_runs_as_written(tmp_path: Path) -> None:
    """The README's undo: an ingest's trace from the response header, the
    plan, the undo, the memory now and as of before the ingest."""
    out = run_block("undo-session", tmp_path / "data")
    dry, done, now, then = (json.loads(line) for line in out.splitlines())
    plan = dry["data"]["undoTrace"]
    assert (plan["dryRun"], len(plan["retractedItemIds"]), plan["conflicts"]) == (True, 2, [])
    assert done["data"]["undoTrace"]["retractedItemIds"] == plan["retractedItemIds"]
    assert done["data"]["undoTrace"]["dryRun"] is False
    assert now["data"]["items"] == [{"content": {"text": "keep me"}}]
    assert then["data"]["itemsAsOf"] == [{"content": {"text": "keep me"}}]
