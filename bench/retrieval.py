"""Retrieval: scoredItems, itemsByBudget and smartRetrieve over HTTP vs
memex-python's own functions on the same data, in the same run.

Run: ``.venv/bin/python bench/retrieval.py [--sizes 10000,100000] [--samples N] [--quick]``

Workload at each size n (a fresh ``memexd serve`` each, embedded engine):
n items created through ``createItems``, times spread over the last 60 days,
in 16 scopes plus a "focus" scope that holds 500 items at every size; a
third list one or two earlier items as parents; n/50 contradictions
(``createEdge`` CONTRADICTS, the same edge ids on both sides), a quarter of
them resolved (``resolveContradiction``: the winner supersedes the loser).
memex-python holds the same items (inserted in id order, so its ties match)
and edges, and runs with its clock pinned to the queries' ``now``.

Queries, each over all items and then narrowed to the focus scope:
- ``scoredItems`` top 10: weights .5/.3/.2, exponential decay 10% a day;
- ``itemsByBudget``: UNIT cost, budget 50 (50 items);
- ``smartRetrieve``: the same budget, FILTER, diversity (author .05,
  parent .1, source .02).
Each figure is the median of ``--samples`` runs after one warm-up, each
side's runs back to back (a long memex-python call would outlast the
server's keep-alive between alternating requests); memexd's is one HTTP
request (keep-alive ``http.client``), memex-python's one function call.
Both answers are compared (ids and scores).
Targets (issue #10): memexd at most 0.3x memex-python at 100k; narrowed to
the focus scope, memexd's time grows sublinearly from 10k to 100k.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import uuid
from collections.abc import Callable
from http.client import HTTPConnection
from typing import Any
from unittest import mock

import httpx
import memex._time
from _common import MemexdServer, graphql, keep_alive, load_items, memexd_server
from memex.graph import GraphState
from memex.integrity import get_items_by_budget, resolve_contradiction
from memex.models import Edge as MemexEdge
from memex.models import MemoryItem as MemexItem
from memex.query import get_scored_items
from memex.retrieval import smart_retrieve

from memexd.ids import uuid7_at

DAY = 86_400_000
FOCUS, FOCUS_ITEMS = "project:focus", 500
SCOPES = [f"org/{t}/{p}" for t in ("core", "search", "infra", "research")
          for p in ("alpha", "beta", "gamma", "delta")]  # fmt: skip
AUTHORS = ["agent:planner", "agent:researcher", "agent:coder", "user:alice", "user:bob"]
SOURCES = ["agent", "user", "tool", "document"]
KINDS = ["fact", "observation", "decision", "hypothesis", "summary", "preference"]
WORDS = ["the", "service", "retries", "failed", "writes", "with", "backoff", "while",
         "index", "rebuild", "runs", "nightly"]  # fmt: skip
TARGET, TARGET_SIZE = 0.30, 100_000
BATCH, ALIASES = 1_000, 25

WEIGHTS = {"authority": 0.5, "conviction": 0.3, "importance": 0.2,
           "decay": {"rate": 0.1, "interval": "DAY", "type": "EXPONENTIAL"}}  # fmt: skip
DIVERSITY = {"authorPenalty": 0.05, "parentPenalty": 0.1, "sourcePenalty": 0.02}
BUDGET = 50
SELECTION = "item { id kind content } score"
SCORED = f"""query($w: ScoreWeights!, $o: ScoredQueryOptions) {{
  scoredItems(weights: $w, options: $o) {{ {SELECTION} }} }}"""
BY_BUDGET = f"query($i: BudgetInput!) {{ itemsByBudget(input: $i) {{ {SELECTION} }} }}"
SMART = f"query($i: SmartRetrievalInput!) {{ smartRetrieve(input: $i) {{ {SELECTION} }} }}"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated item counts")
    parser.add_argument("--samples", type=int, default=5, help="timed runs per query and side")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="smoke run: 2,000 and 5,000 items")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.samples = "2000,5000", 2
    return args


# --------------------------------------------------------------------------- data


def dataset(n: int, now: int, rng: random.Random) -> dict[str, Any]:
    """Item inputs (sorted by id), contradiction pairs with edge ids, resolutions."""
    rows: list[dict[str, Any]] = []
    for i in range(n):
        ms = now - rng.randrange(60 * DAY)
        rows.append(_item(uuid7_at(ms), FOCUS if i < FOCUS_ITEMS else rng.choice(SCOPES), rng))
    rows.sort(key=lambda r: r["id"])
    for i, r in enumerate(rows):  # parents among earlier items (by id: by time)
        if i and rng.random() < 1 / 3:
            r["parents"] = sorted({rows[rng.randrange(i)]["id"] for _ in range(rng.choice((1, 2)))})
    ids = [r["id"] for r in rows]
    pairs = [(str(uuid.UUID(int=rng.getrandbits(128), version=4)), *rng.sample(ids, 2))
             for _ in range(n // 50)]  # fmt: skip
    pairs.sort()  # edge ids in creation order, as both sides keep them
    return {"rows": rows, "contradictions": pairs, "resolved": pairs[: len(pairs) // 4]}


def _item(item_id: str, scope: str, rng: random.Random) -> dict[str, Any]:
    text = " ".join(rng.choices(WORDS, k=rng.randint(6, 16)))
    return {
        "id": item_id, "scope": scope, "kind": rng.choice(KINDS),
        "content": {"text": text, "tokens": len(text.split())},
        "author": rng.choice(AUTHORS), "sourceKind": rng.choice(SOURCES), "parents": [],
        "authority": round(rng.random(), 3), "conviction": round(rng.random(), 3),
        "importance": round(rng.random(), 3),
    }  # fmt: skip


def load_memexd(client: httpx.Client, data: dict[str, Any]) -> None:
    load_items(client, data["rows"], BATCH)
    edge = ('createEdge(input: {{edgeId: "{}", from: "{}", to: "{}", kind: "CONTRADICTS", '
            'author: "bench", sourceKind: "derived_deterministic", authority: 1}}) '
            "{{ edge {{ edgeId }} }}")  # fmt: skip
    edges = [f"e{k}: " + edge.format(e, a, b) for k, (e, a, b) in enumerate(data["contradictions"])]
    resolves = [
        f'r{k}: resolveContradiction(winnerId: "{a}", loserId: "{b}", author: "bench") '
        "{ events { id } }"
        for k, (_, a, b) in enumerate(data["resolved"])
    ]
    for fields in (edges, resolves):
        for i in range(0, len(fields), ALIASES):
            graphql(client, "mutation { " + " ".join(fields[i : i + ALIASES]) + " }", {})


def memex_state(data: dict[str, Any]) -> GraphState:
    items = {}
    for r in data["rows"]:
        fields = {"source_kind" if k == "sourceKind" else k: v for k, v in r.items()}
        fields["created_at"] = int(r["id"][:8] + r["id"][9:13], 16)
        items[r["id"]] = MemexItem.model_validate(fields)
    fixed = {"kind": "CONTRADICTS", "author": "bench", "source_kind": "derived_deterministic",
             "authority": 1, "active": True}  # fmt: skip
    edges = {
        e: MemexEdge.model_validate({"edge_id": e, "from": a, "to": b, **fixed})
        for e, a, b in data["contradictions"]
    }
    state = GraphState(items=items, edges=edges)
    for _, a, b in data["resolved"]:
        state = resolve_contradiction(state, a, b, "bench").state
    return state


# --------------------------------------------------------------------------- queries


def queries(now: int, narrowed: bool) -> list[tuple[str, str, dict[str, Any], Callable[..., Any]]]:
    """(label, GraphQL query, variables, memex-python call taking the state)."""
    flt = {"scope": FOCUS} if narrowed else None  # GraphQL and memex-python alike
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now / 1000)) + f".{now % 1000:03d}Z"
    cost = {"model": "UNIT"}
    w = {**WEIGHTS, "decay": {k: v.lower() if isinstance(v, str) else v
                              for k, v in WEIGHTS["decay"].items()}}  # fmt: skip
    div = {"author_penalty": 0.05, "parent_penalty": 0.1, "source_penalty": 0.02}
    suffix = " (focus scope)" if narrowed else ""
    budget_in = {"budget": BUDGET, "cost": cost, "weights": WEIGHTS, "filter": flt, "now": at}

    def one(_: Any) -> int:
        return 1

    return [
        (f"scoredItems top-10{suffix}", SCORED,
         {"w": WEIGHTS, "o": {"pre": flt, "limit": 10, "now": at}},
         lambda s: get_scored_items(s, w, {"pre": flt, "limit": 10})),
        (f"itemsByBudget (budget {BUDGET}){suffix}", BY_BUDGET, {"i": budget_in},
         lambda s: get_items_by_budget(s, budget=BUDGET, cost_fn=one, weights=w, filter=flt)),
        (f"smartRetrieve FILTER+diversity{suffix}", SMART,
         {"i": {**budget_in, "contradictions": "FILTER", "diversity": DIVERSITY}},
         lambda s: smart_retrieve(s, budget=BUDGET, cost_fn=one, weights=w, filter=flt,
                                  contradictions="filter", diversity=div)),
    ]  # fmt: skip


def _post(connection: HTTPConnection, query: str, variables: dict[str, Any]) -> Any:
    body = json.dumps({"query": query, "variables": variables})
    connection.request("POST", "/graphql", body=body, headers={"content-type": "application/json"})
    answer = json.loads(connection.getresponse().read())
    if answer.get("errors"):
        raise RuntimeError(f"GraphQL failed: {answer['errors']}")
    return next(iter(answer["data"].values()))


def measure(server: MemexdServer, state: GraphState, now: int, samples: int,
            narrowed: bool) -> list[tuple[str, float, float, bool]]:  # fmt: skip
    """(label, memexd ms, memex-python ms, same answer) per query. Each
    side's runs go back to back: a long memex-python call would outlast the
    server's keep-alive timeout between two HTTP requests."""
    out = []
    with mock.patch.object(memex._time, "now_ms", return_value=now):
        for label, query, variables, call in queries(now, narrowed):
            connection = keep_alive(server, timeout=300)
            try:
                got = _post(connection, query, variables)  # warm-up, and the answer
                mine = [_timed(_post, connection, query, variables) for _ in range(samples)]
            finally:
                connection.close()
            want = call(state)
            theirs = [_timed(call, state) for _ in range(samples)]
            same = [(g["item"]["id"], g["score"]) for g in got] == [
                (s.item.id, s.score) for s in want
            ]
            out.append((label, statistics.median(mine), statistics.median(theirs), same))
    return out


def _timed(run: Callable[..., Any], *args: Any) -> float:
    start = time.perf_counter()
    run(*args)
    return (time.perf_counter() - start) * 1000


# --------------------------------------------------------------------------- main


def run_size(n: int, args: argparse.Namespace) -> list[tuple[str, float, float, bool]]:
    rng = random.Random(args.seed)
    now = int(time.time() * 1000)
    data = dataset(n, now, rng)
    print(f"size {n:,}: {FOCUS_ITEMS} items in {FOCUS}, {len(data['contradictions']):,} "
          f"contradictions, {len(data['resolved']):,} resolved", flush=True)  # fmt: skip
    with memexd_server() as server:
        start = time.perf_counter()
        with httpx.Client(base_url=server.base_url, timeout=300) as client:
            load_memexd(client, data)
        print(f"  loaded into memexd in {time.perf_counter() - start:.1f} s", flush=True)
        state = memex_state(data)
        rows = measure(server, state, now, args.samples, narrowed=False)
        rows += measure(server, state, now, args.samples, narrowed=True)
    for label, mine, theirs, same in rows:
        verdict = ("met" if mine / theirs <= TARGET else "MISSED") if n >= TARGET_SIZE else "-"
        check = "same answer" if same else "ANSWERS DIFFER"
        print(f"  {label:<44} memexd {mine:8.1f} ms   memex-python {theirs:8.1f} ms   "
              f"{mine / theirs:5.2f}x  (target <= {TARGET:.1f}x at 100k: {verdict}; {check})",
              flush=True)  # fmt: skip
    return rows


def main() -> None:
    args = _args()
    print("\n\n".join(__doc__.split("\n\n")[2:]), flush=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {n: run_size(n, args) for n in sizes}
    if len(sizes) >= 2:
        small, big = results[sizes[0]], results[sizes[-1]]
        factor = sizes[-1] / sizes[0]
        print(f"growth {sizes[0]:,} -> {sizes[-1]:,} items ({factor:.0f}x):")
        for (label, m1, t1, _), (_, m2, t2, _) in zip(small, big, strict=True):
            shape = "sublinear" if m2 / m1 < factor else "NOT sublinear"
            if "focus" not in label:
                shape = "scans every item"
            print(f"  {label:<44} memexd {m2 / m1:5.2f}x ({shape})   "
                  f"memex-python {t2 / t1:5.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
