"""Replay: a MemEX command log through ``memexd replay`` vs memex-python's ``replay_commands``.

Run: ``.venv/bin/python bench/replay.py [--commands N] [--seed S]``

The log is made with memex-python's factories (UUIDv7 ids) in a realistic mix
(mostly ``memory.create``; updates, edges, retracts), every command valid in
both implementations, written as NDJSON. Both sides run in their own
subprocess, one after the other, on the same file:

- ``memexd replay FILE`` on a fresh embedded engine: wall time (with the
  engine's start, migrations and the CLI's check pass) and the CLI's own
  figure (the apply pass); peak RSS of the CLI and of the engine (which holds
  the graph), read from ``/proc/PID/status`` ``VmHWM`` every 50 ms;
- memex-python: the log loaded into a list (untimed: ``replay_commands``
  takes a list), then ``replay_commands`` timed; peak RSS of that process
  (``wait4``). Its replay copies its state dict per command, so its time
  grows with the square of the log.

Then (unless ``--no-check``) memexd's graph is exported and its counts
compared with memex-python's state.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import memex as mx

MEMEXD = Path(sys.executable).with_name("memexd")
#: The share of each command type in the log (others fall back to creates
#: while nothing fits them, so the printed mix is the one replayed).
MIX = {
    "memory.create": 0.60, "memory.update": 0.12, "edge.create": 0.14,
    "edge.update": 0.06, "memory.retract": 0.04, "edge.retract": 0.04,
}  # fmt: skip
_SCOPES = [f"org/acme/{t}" for t in ("core", "search", "infra", "research")]
_KINDS = ["fact", "observation", "decision", "hypothesis", "summary"]
_EDGE_KINDS = ["SUPPORTS", "RELATES_TO", "ABOUT", "REFINES"]
_WORDS = ["the", "service", "retries", "failed", "writes", "with", "backoff", "while", "index",
          "rebuild", "runs", "nightly"]  # fmt: skip
_PEER = """
import json, sys, time
import memex
with open(sys.argv[1], "rb") as f:
    log = [json.loads(line) for line in f]
start = time.perf_counter()
result = memex.replay_commands(log)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "failed": len(result.skipped),
                  "memories": len(result.state.items), "edges": len(result.state.edges)}))
"""


# ---------------------------------------------------------------- the log


class _Pool:
    """Ids to pick from at random, removable in O(1)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.at: dict[str, int] = {}

    def add(self, value: str) -> None:
        self.at[value] = len(self.ids)
        self.ids.append(value)

    def remove(self, value: str) -> None:
        i, last = self.at.pop(value), self.ids.pop()
        if last != value:
            self.ids[i], self.at[last] = last, i

    def pick(self, rng: random.Random) -> str:
        return self.ids[rng.randrange(len(self.ids))]


class _Log:
    """A session's commands, keeping every one applicable: updates and
    retracts name live records, edges join live items, and only items with
    no edges and no children are retracted (MemEX and memexd then agree)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.items, self.edges = _Pool(), _Pool()
        self.ties: Counter[str] = Counter()  # edges and children per item
        self.ends: dict[str, tuple[str, str]] = {}

    def command(self) -> dict[str, Any]:
        kind = self.rng.choices(list(MIX), weights=list(MIX.values()))[0]
        made = getattr(self, "_" + kind.replace(".", "_"))()
        return made if made is not None else self._memory_create()

    def _memory_create(self) -> dict[str, Any]:
        rng, parents = self.rng, None
        if self.items.ids and rng.random() < 1 / 3:
            parents = sorted({self.items.pick(rng) for _ in range(rng.choice((1, 2)))})
            self.ties.update(parents)
        item = mx.create_memory_item(
            scope=rng.choice(_SCOPES), kind=rng.choice(_KINDS), author="agent:bench",
            content={"text": " ".join(rng.choices(_WORDS, k=rng.randint(6, 16))), "lang": "en"},
            source_kind=rng.choice(("agent", "user", "tool")), authority=round(rng.random(), 3),
            importance=round(rng.random(), 3), parents=parents,
            meta={"session": rng.randrange(500), "env": rng.choice(("prod", "staging"))},
        )  # fmt: skip
        self.items.add(item.id)
        return {"type": "memory.create", "item": _json(item)}

    def _memory_update(self) -> dict[str, Any] | None:
        if not self.items.ids:
            return None
        partial = self.rng.choice(
            [{"importance": round(self.rng.random(), 3)}, {"content": {"revised": True}},
             {"meta": {"reviewed": 1}}]
        )  # fmt: skip
        return {"type": "memory.update", "item_id": self.items.pick(self.rng),
                "partial": partial, "author": "agent:bench"}  # fmt: skip

    def _edge_create(self) -> dict[str, Any] | None:
        if len(self.items.ids) < 2:
            return None
        a, b = self.items.pick(self.rng), self.items.pick(self.rng)
        if a == b:
            return None
        edge = mx.create_edge(from_=a, to=b, kind=self.rng.choice(_EDGE_KINDS), author="agent:b",
                              source_kind="agent", authority=0.6,
                              weight=round(self.rng.random(), 3))  # fmt: skip
        self.edges.add(edge.edge_id)
        self.ends[edge.edge_id] = (a, b)
        self.ties.update((a, b))
        return {"type": "edge.create", "edge": _json(edge)}

    def _edge_update(self) -> dict[str, Any] | None:
        if not self.edges.ids:
            return None
        partial = self.rng.choice([{"weight": round(self.rng.random(), 3)}, {"active": False}])
        return {"type": "edge.update", "edge_id": self.edges.pick(self.rng), "partial": partial,
                "author": "agent:bench"}  # fmt: skip

    def _memory_retract(self) -> dict[str, Any] | None:
        for _ in range(5):
            if not self.items.ids:
                return None
            item_id = self.items.pick(self.rng)
            if not self.ties[item_id]:
                self.items.remove(item_id)
                return {"type": "memory.retract", "item_id": item_id, "author": "agent:bench"}
        return None

    def _edge_retract(self) -> dict[str, Any] | None:
        if not self.edges.ids:
            return None
        edge_id = self.edges.pick(self.rng)
        self.edges.remove(edge_id)
        self.ties.subtract(self.ends.pop(edge_id))
        return {"type": "edge.retract", "edge_id": edge_id, "author": "agent:bench"}


def _json(model: Any) -> dict[str, Any]:
    found: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return found


def _write_log(path: Path, count: int, seed: int) -> Counter[str]:
    log, mix = _Log(random.Random(seed)), Counter[str]()
    with path.open("w") as f:
        for _ in range(count):
            command = log.command()
            mix[command["type"]] += 1
            f.write(json.dumps(command) + "\n")
    return mix


# ---------------------------------------------------------------- running


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float
    output: str
    peak_mib: dict[str, float]  # process -> peak RSS


def _hwm_mib(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else None


def _children(pid: int) -> Iterator[int]:
    try:
        yield from map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return


def _measured(argv: list[str], *, watch_children: bool = False) -> Run:
    """Run ``argv``; its wall time, stdout and peak RSS (its own, polled,
    and its children's when asked; else ``wait4``'s)."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out)
        peaks: dict[str, float] = {}
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            for name, watched in [("cli", process.pid)] + [
                ("engine", child) for child in (_children(process.pid) if watch_children else ())
            ]:
                peak = _hwm_mib(watched)
                if peak is not None:
                    peaks[name] = max(peaks.get(name, 0.0), peak)
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise RuntimeError(f"{argv[:2]} exited {process.returncode}")
        out.seek(0)
        if not watch_children:
            peaks = {"process": usage.ru_maxrss / 1024}
        return Run(seconds, out.read(), peaks)


def _memexd_replay(log: Path, data_dir: Path) -> Run:
    return _measured([str(MEMEXD), "replay", str(log), "--data-dir", str(data_dir)],
                     watch_children=True)  # fmt: skip


def _memexd_counts(data_dir: Path) -> dict[str, int]:
    export = data_dir / "export.json"
    argv = [str(MEMEXD), "export", str(export), "--data-dir", str(data_dir), "--quiet"]
    subprocess.run(argv, check=True)
    whole = json.loads(export.read_text())
    return {key: len(whole[key]) for key in ("memories", "edges")}


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=100_000, help="commands in the log")
    parser.add_argument("--seed", type=int, default=7, help="random seed for the mix")
    parser.add_argument(
        "--no-check", dest="check", action="store_false",
        help="skip the export that compares the graphs (restarting the engine replays "
        "its append-only log, which can take as long as the replay)",
    )  # fmt: skip
    return parser.parse_args()


def main() -> None:
    args = _args()
    work = Path(tempfile.mkdtemp(prefix="mxr-", dir="/tmp")).resolve()
    try:
        log = work / "log.ndjson"
        mix = _write_log(log, args.commands, args.seed)
        size = log.stat().st_size / 2**20
        print(f"replay: {args.commands:,} MemEX commands, NDJSON, {size:.1f} MiB")
        shares = sorted(mix.items(), key=lambda kv: -kv[1])
        print("  mix: " + ", ".join(f"{t} {n:,} ({n / args.commands:.0%})" for t, n in shares))
        sys.stdout.flush()
        ours = _memexd_replay(log, work / "data")
        said = re.search(r"in ([\d.]+) s \(([\d,]+) commands/s\): ([\d,]+) applied, ([\d,]+) "
                         r"failed", ours.output)  # fmt: skip
        if said is None:
            raise RuntimeError(f"unexpected summary: {ours.output!r}")
        peer = _measured([sys.executable, "-c", _PEER, str(log)])
        theirs = json.loads(peer.output)
        _table(args.commands, ours, said, peer, theirs)
        if not args.check:
            return
        counts = _memexd_counts(work / "data")
        same = counts == {"memories": theirs["memories"], "edges": theirs["edges"]}
        print(f"  check: memexd holds {counts['memories']:,} memories, {counts['edges']:,} edges; "
              f"memex-python {theirs['memories']:,}, {theirs['edges']:,}: "
              f"{'same' if same else 'DIFFERENT'}")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _table(n: int, ours: Run, said: re.Match[str], peer: Run, theirs: dict[str, Any]) -> None:
    apply_s, failed = float(said.group(1)), int(said.group(4).replace(",", ""))
    rows = [
        ("memexd replay, wall (engine start, check, apply)", ours.seconds, failed,
         f"CLI {ours.peak_mib.get('cli', 0):.0f} MiB, engine {ours.peak_mib.get('engine', 0):.0f}"
         " MiB"),
        ("memexd replay, the CLI's own figure (apply)", apply_s, failed, ""),
        ("memex-python replay_commands (list in memory)", theirs["seconds"], theirs["failed"],
         f"process {peer.peak_mib['process']:.0f} MiB"),
    ]  # fmt: skip
    print(f"  {'':<50} {'seconds':>8} {'commands/s':>11} {'failed':>7}  peak RSS")
    for label, seconds, fails, peak in rows:
        print(f"  {label:<50} {seconds:8.1f} {n / seconds:11,.0f} {fails:7,}  {peak}")


if __name__ == "__main__":
    main()
