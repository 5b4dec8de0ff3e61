"""FalkorDB and Neo4j, the same commands: every answer and the whole event
log alike, byte for byte (key order, list order, every digit of every number).

hypothesis draws a sequence of operations over what earlier ones made (items
with parents, edges, contradictions, aliases, cascades, intents and tasks
through their lifecycles, bulk transforms, replays of MemEX commands), then
the graph questions about everything made. The sequence runs on a fresh
FalkorDB graph and on an emptied Neo4j database with memexd's clock and random
bits pinned to the same values, so both runs must give the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import httpx
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

import memexd.ids
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.neo4j import Neo4jStore
from memexd.server.app import create_app
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.engines import fresh_graph
from tests.neo4j_server import Neo4jServer

JSON = dict[str, Any]
#: The pinned clock starts here (2025-01-01) and moves a second per operation.
EPOCH_MS = 1_735_689_600_000

ITEM_FIELDS = "id scope kind content author sourceKind parents authority conviction importance " \
              "meta createdAt retracted"  # fmt: skip
EVENT_FIELDS = "id namespace type ts traceId causeId payload"
OPS = {
    "items": f"""mutation($i: [MemoryItemInput!]!) {{ createItems(inputs: $i) {{
        items {{ {ITEM_FIELDS} }} events {{ {EVENT_FIELDS} }} }} }}""",
    "update": f"""mutation($id: ID!, $p: MemoryItemPatch!) {{ updateItem(id: $id, patch: $p,
        author: "u") {{ item {{ {ITEM_FIELDS} }} events {{ {EVENT_FIELDS} }} }} }}""",
    "retract": f"""mutation($id: ID!) {{ retractItem(id: $id, author: "u", reason: "r") {{
        events {{ {EVENT_FIELDS} }} }} }}""",
    "edge": f"""mutation($a: ID!, $b: ID!, $k: String!, $w: Float) {{ createEdge(input: {{
        from: $a, to: $b, kind: $k, weight: $w, author: "u", sourceKind: "o",
        authority: 0.5}}) {{ edge {{ edgeId from to kind weight authority active }}
        events {{ {EVENT_FIELDS} }} }} }}""",
    "edge_update": f"""mutation($e: ID!, $p: EdgePatch!) {{ updateEdge(edgeId: $e, patch: $p,
        author: "u") {{ edge {{ edgeId kind weight authority active meta }}
        events {{ {EVENT_FIELDS} }} }} }}""",
    "edge_retract": f"""mutation($e: ID!) {{ retractEdge(edgeId: $e, author: "u") {{
        events {{ {EVENT_FIELDS} }} }} }}""",
    "contradict": f"""mutation($a: ID!, $b: ID!) {{ markContradiction(a: $a, b: $b,
        author: "u") {{ edge {{ edgeId }} events {{ {EVENT_FIELDS} }} }} }}""",
    "resolve": f"""mutation($a: ID!, $b: ID!) {{ resolveContradiction(winnerId: $a,
        loserId: $b, author: "u") {{ events {{ {EVENT_FIELDS} }} }} }}""",
    "alias": f"""mutation($a: ID!, $b: ID!) {{ markAlias(a: $a, b: $b, author: "u") {{
        events {{ {EVENT_FIELDS} }} }} }}""",
    "cascade": f"""mutation($id: ID!) {{ cascadeRetract(id: $id, author: "u") {{ retracted
        events {{ {EVENT_FIELDS} }} }} }}""",
    "intent": f"""mutation($i: IntentInput!) {{ createIntent(input: $i) {{
        intent {{ id label priority status scope }} events {{ {EVENT_FIELDS} }} }} }}""",
    "task": f"""mutation($i: TaskInput!) {{ createTask(input: $i) {{
        task {{ id intentId action status attempt priority }} events {{ {EVENT_FIELDS} }} }} }}""",
    "start": """mutation($id: ID!) { startTask(id: $id, agentId: "agent") {
        task { id status attempt } } }""",
    "complete": """mutation($id: ID!) { completeTask(id: $id, result: {ok: true}) {
        task { id status result } } }""",
    "fail": """mutation($id: ID!) { failTask(id: $id, error: "broke") { task { id status } } }""",
    "cancel": """mutation($id: ID!) { cancelTask(id: $id) { task { id status } } }""",
    "adjust": f"""mutation($f: MemoryFilter, $d: ScoreAdjustment!) {{ bulkAdjustScores(
        filter: $f, delta: $d, author: "u") {{ events {{ {EVENT_FIELDS} }} }} }}""",
    "apply": f"""mutation($f: MemoryFilter, $t: ItemTransformInput!) {{ applyMany(filter: $f,
        transform: $t, author: "u") {{ events {{ {EVENT_FIELDS} }} }} }}""",
    "replay": """mutation($c: JSON!) { replayCommands(commands: $c) {
        applied skipped { index code message } } }""",
}
QUESTIONS = f"""query($id: ID!, $now: DateTime!) {{
  item(id: $id) {{ {ITEM_FIELDS} aliases {{ id }} contradictedBy {{ id }} }}
  supportSet(id: $id) {{ id }}
  dependents(id: $id, transitive: true) {{ id }}
  aliasGroup(id: $id) {{ id }}
  supportTree(id: $id, maxDepth: 6) {{ nodes {{ item {{ id }} depth }} links {{ child parent }}
    truncated }}
  relatedItems(id: $id, direction: BOTH) {{ id }}
  scoredItems(weights: {{authority: 0.5, conviction: 0.3, importance: 0.2,
    decay: {{rate: 0.1, interval: HOUR, type: EXPONENTIAL}}}},
    options: {{now: $now, limit: 20}}) {{ item {{ id }} score }}
}}"""
OVERVIEW = f"""query {{
  items(limit: 1000, includeRetracted: true, sort: [{{field: AUTHORITY, order: DESC}},
    {{field: RECENCY, order: ASC}}]) {{ {ITEM_FIELDS} }}
  edges(filter: {{activeOnly: false}}, limit: 1000) {{ edgeId from to kind weight active }}
  contradictions {{ a {{ id }} b {{ id }} }}
  staleItems {{ item {{ id }} missingParents }}
  intents {{ id status }}
  tasks {{ id status attempt }}
  stats {{ items {{ total byKind {{ key count }} }} edges {{ total }} }}
  events(limit: 10000) {{ {EVENT_FIELDS} }}
}}"""


# ---------------------------------------------------------------- operations

SCORE = st.floats(0, 1, allow_nan=False, allow_subnormal=True)
VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-5, 5), max_size=3),
)
CONTENT = st.dictionaries(st.sampled_from(["a", "b", "ключ", "x.y"]), VALUES, max_size=3)
PICK = st.integers(0, 1_000)  # an index into what exists, modulo its size


@st.composite
def operation(draw: st.DrawFn) -> tuple[Any, ...]:
    kind = draw(st.sampled_from(
        ["items", "items", "items", "update", "retract", "edge", "edge_update", "edge_retract",
         "contradict", "resolve", "alias", "cascade", "intent", "task", "move", "adjust",
         "apply", "replay"]))  # fmt: skip
    if kind == "items":
        rows = draw(st.lists(st.tuples(st.lists(PICK, max_size=2), SCORE,
                                       st.one_of(st.none(), SCORE), CONTENT,
                                       st.sampled_from(["p/a", "p/b", "q"])),
                             min_size=1, max_size=3))  # fmt: skip
        return (kind, rows)
    if kind == "update":
        patch = draw(st.fixed_dictionaries({}, optional={
            "authority": SCORE, "importance": SCORE, "content": CONTENT,
            "scope": st.sampled_from(["p/a", "p/c"]), "meta": st.just({"m": 1})}))  # fmt: skip
        return (kind, draw(PICK), patch)
    if kind in ("edge",):
        return (kind, draw(PICK), draw(PICK), draw(st.sampled_from(["SUPPORTS", "ABOUT"])),
                draw(st.one_of(st.none(), SCORE)))  # fmt: skip
    if kind == "edge_update":
        patch = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "weight": SCORE,
                    "active": st.booleans(),
                    "kind": st.just("DERIVED_FROM"),
                },
            )
        )
        return (kind, draw(PICK), patch)
    if kind == "move":
        return (kind, draw(PICK), draw(st.sampled_from(["start", "complete", "fail", "cancel"])))
    if kind in ("adjust", "apply"):
        scores = draw(
            st.fixed_dictionaries(
                {}, optional={"authority": st.floats(-1, 1), "importance": st.floats(-1, 1)}
            )
        )
        return (kind, draw(st.sampled_from(["p/", "q", ""])), scores)
    if kind == "replay":
        return (kind, draw(SCORE), draw(PICK))
    return (kind, draw(PICK), draw(PICK))


def _first_items(ops: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return ops if ops[0][0] == "items" else [("items", [([], 0.5, None, {}, "p/a")]), *ops]


#: Sequences start by making items, so that the rest has something to act on.
SEQUENCES = st.lists(operation(), min_size=1, max_size=14).map(_first_items)


# ---------------------------------------------------------------- running them


@dataclass
class Run:
    """One engine's run: what exists (for picks) and every answer, as text."""

    client: httpx.AsyncClient
    items: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    async def ask(self, name: str, query: str, step: int, **variables: Any) -> JSON:
        sent = {"query": query, "variables": variables}
        headers = {"x-trace-id": f"t{step}"}
        body: JSON = (await self.client.post("/graphql", json=sent, headers=headers)).json()
        errors = body.get("errors") or []
        event(f"{name}: {errors[0]['extensions']['code'] if errors else 'ok'}")
        self.answers.append(f"{name} {json.dumps(body, ensure_ascii=False)}")
        return body


def pick(pool: list[str], n: int) -> str | None:
    return pool[n % len(pool)] if pool else None


async def perform(run: Run, step: int, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "items":
        inputs = [{"scope": scope, "kind": "k", "content": content, "author": "a",
                   "sourceKind": "o", "authority": authority, "conviction": conviction,
                   "parents": [p for p in (pick(run.items, n) for n in parents) if p]}
                  for parents, authority, conviction, content, scope in op[1]]  # fmt: skip
        body = await run.ask(kind, OPS[kind], step, i=inputs)
        made = (body.get("data") or {}).get("createItems")
        run.items += [i["id"] for i in made["items"]] if made else []
        return
    if kind == "move":
        task = pick(run.tasks, op[1])
        if task:
            await run.ask(op[2], OPS[op[2]], step, id=task)
        return
    if kind in ("adjust", "apply"):
        flt = {"scopePrefix": op[1]} if op[1] else None
        if kind == "adjust":
            await run.ask(kind, OPS[kind], step, f=flt, d=op[2])
        else:
            await run.ask(kind, OPS[kind], step, f=flt, t={"add": op[2], "metaSet": {"bulk": step}})
        return
    if kind == "replay":
        await replay(run, step, op[1], pick(run.items, op[2]))
        return
    await pairwise(run, step, op)


async def pairwise(run: Run, step: int, op: tuple[Any, ...]) -> None:
    kind = op[0]
    a = pick(run.items, op[1])
    b = pick(run.items, op[2]) if kind in ("contradict", "resolve", "alias", "edge") else None
    if kind == "intent":
        body = await run.ask(kind, OPS[kind], step, i={"label": f"l{step}", "priority": 0.5,
                                                        "owner": "o", "scope": "p/a"})  # fmt: skip
        made = (body.get("data") or {}).get("createIntent")
        run.intents += [made["intent"]["id"]] if made else []
    elif kind == "task":
        intent = pick(run.intents, op[1])
        if intent:
            body = await run.ask(kind, OPS[kind], step, i={"intentId": intent, "action": "act",
                                                            "priority": 0.25})  # fmt: skip
            made = (body.get("data") or {}).get("createTask")
            run.tasks += [made["task"]["id"]] if made else []
    elif kind == "edge" and a and b:
        body = await run.ask(kind, OPS[kind], step, a=a, b=b, k=op[3], w=op[4])
        made = (body.get("data") or {}).get("createEdge")
        run.edges += [made["edge"]["edgeId"]] if made else []
    elif kind in ("edge_update", "edge_retract"):
        edge = pick(run.edges, op[1])
        if edge:
            extra = {"p": op[2]} if kind == "edge_update" else {}
            await run.ask(kind, OPS[kind], step, e=edge, **extra)
    elif kind == "update" and a:
        await run.ask(kind, OPS[kind], step, id=a, p=op[2])
    elif kind in ("retract", "cascade") and a:
        await run.ask(kind, OPS[kind], step, id=a)
    elif kind in ("contradict", "resolve", "alias") and a and b:
        await run.ask(kind, OPS[kind], step, a=a, b=b)


async def replay(run: Run, step: int, authority: float, parent: str | None) -> None:
    """MemEX commands made here: a create (with an id minted by the pinned
    clock), an update of it, and a retract of an existing item."""
    made = memexd.ids.new_id()
    item = {"id": made, "scope": "r", "kind": "k", "content": {"s": step}, "author": "a",
            "source_kind": "o", "authority": authority, "parents": [parent] if parent else [],
            "created_at": memexd.ids.timestamp_ms(made)}  # fmt: skip
    commands: list[JSON] = [
        {"type": "memory.create", "item": item},
        {"type": "memory.update", "item_id": made, "author": "u",
         "partial": {"importance": authority / 2}},
    ]  # fmt: skip
    if parent:
        commands.append({"type": "memory.retract", "item_id": parent, "author": "u"})
    await run.ask("replay", OPS["replay"], step, c=commands)
    run.items.append(made)


# ---------------------------------------------------------------- the pinned clock


@contextmanager
def pinned(seed: int) -> Iterator[list[int]]:
    """memexd's clock and random bits, the same sequence for every run; the
    list holds the current time (ms), moved by the caller."""
    now = [EPOCH_MS]
    rng = random.Random(seed)
    fake_os = SimpleNamespace(urandom=lambda n: rng.getrandbits(8 * n).to_bytes(n, "big"))
    with (
        mock.patch.object(memexd.ids, "_clock", memexd.ids._Clock()),
        mock.patch.object(memexd.ids, "os", fake_os),
        mock.patch("time.time_ns", side_effect=lambda: now[0] * 1_000_000),
    ):
        yield now


# ---------------------------------------------------------------- the engines


async def run_on(store: GraphStore, keys: Path, ops: list[tuple[Any, ...]], seed: int) -> Run:
    app = create_app(Settings(keys_file=keys), store=store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://memexd") as client:
        run = Run(client)
        with pinned(seed) as now:
            for step, op in enumerate(ops):
                now[0] = EPOCH_MS + 1_000 * step
                await perform(run, step, op)
            at = "2025-01-01T01:00:00.000Z"
            for item in run.items:
                await run.ask("questions", QUESTIONS, len(ops), id=item, now=at)
            await run.ask("overview", OVERVIEW, len(ops))
    return run


@settings(max_examples=40, deadline=None, report_multiple_bugs=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])  # fmt: skip
@given(ops=SEQUENCES, seed=st.integers(0, 2**32))
async def test_both_engines_answer_alike(
    engine: EmbeddedFalkor,
    neo4j: Neo4jServer,
    tmp_path: Path,
    ops: list[tuple[Any, ...]],
    seed: int,
) -> None:
    server, keys = neo4j, tmp_path / "keys.json"
    falkor = FalkorStore.connect(unix_socket=engine.socket, graph="unused")
    neo = Neo4jStore.connect(server.uri, user=server.user, password=server.password)
    try:
        async with fresh_graph(falkor) as on_falkor:
            one = await run_on(on_falkor, keys, ops, seed)
        async with fresh_graph(neo) as on_neo4j:
            two = await run_on(on_neo4j, keys, ops, seed)
    finally:
        await falkor.close()
        await neo.close()
    note(f"{len(one.answers)} answers")
    for mine, theirs in zip(one.answers, two.answers, strict=True):
        assert mine == theirs, _first_difference(mine, theirs)
    assert '"errors"' not in one.answers[-1]  # the overview is answered


def _first_difference(falkordb: str, neo4j: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(falkordb, neo4j, strict=False)) if x != y),
              min(len(falkordb), len(neo4j)))  # fmt: skip
    start = max(0, at - 300)
    return f"\nFalkorDB: …{falkordb[start : at + 300]}\nNeo4j:    …{neo4j[start : at + 300]}"
