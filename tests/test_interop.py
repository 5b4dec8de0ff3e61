"""Interop with memex-python, a real MemEX peer (issue #9).

A random MemEX session (tests/memex_session.py: items, edges, contradictions,
aliases, cascades, intents, tasks) runs in memex-python. Its command log (the
commands applied, plus the commands equivalent to what the integrity
functions emitted: edge.created → ``edge.create``, edge.retracted →
``edge.retract`` unless an item retraction caused it, memory.updated →
``memory.update`` of the changed fields, memory.retracted →
``memory.retract``; see that module) is replayed into a fresh memexd graph,
through GraphQL ``replayCommands`` or the service, and then:

- memexd refuses exactly what memex-python refused (invalid transitions),
  with the same code, and applies everything else;
- the events memexd returns, and its stored log (``events``), are
  memex-python's, in order, each payload MemEX's wire JSON text for text
  (event ids and times aside);
- memexd's ``exportSlice`` of every id the session named, and its paged
  whole-graph export, equal memex-python's ``export_slice`` as sets of records
  (MemEX lists in hash order);
- that export, imported into an empty memex-python and exported again, is
  unchanged.

Sessions keep to what memexd accepts by design (docs/replay.md, "Decisions
where memexd differs"); each such difference has its own test below: memexd
names it with a code per index, and the rest of the log ends where MemEX ends
without the refused commands.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import memex
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from memex.transplant import ImportBucket, ImportReport

from memexd.access.keys import KeyStore
from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.graph import Graph
from memexd.server.app import create_app
from memexd.settings import Settings
from memexd.transplant.export import KEYS, Exporter, ExportOptions
from memexd.transplant.replay import Replay
from memexd.types import GraphStore
from tests.engines import fresh_graph
from tests.memex_session import (
    GHOST_ITEMS,
    GHOST_PLANS,
    Plan,
    Session,
    fold,
    refold,
    run_session,
    sessions,
)
from tests.memex_session import wire as wire_of
from tests.support import Api, CountingStore

JSON = dict[str, Any]
TRACE = "interop"
REPLAY = """mutation($c: JSON!) {
  replayCommands(commands: $c) { applied skipped { index code message } } }"""
EVENTS = "query($n: Int) { events(limit: $n) { namespace type traceId payload } }"
EXPORT = "query($i: ExportInput!) { exportSlice(input: $i) }"


@pytest.fixture(scope="session")
def keys_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty key file: open access, as on loopback."""
    return tmp_path_factory.mktemp("interop") / "keys.json"


@asynccontextmanager
async def client(store: GraphStore, keys_file: Path) -> AsyncIterator[Api]:
    settings = Settings(keys_file=keys_file)
    counting = CountingStore(store)
    transport = httpx.ASGITransport(app=create_app(settings, store=counting))
    async with httpx.AsyncClient(transport=transport, base_url="http://memexd") as http:
        yield Api(client=http, store=counting, graph=Graph(store),
                  keys=KeyStore(settings.keys_path))  # fmt: skip


def as_set(export: JSON) -> dict[str, list[str]]:
    """An export as sets of canonical records (MemEX's lists are in hash order)."""
    assert list(export) == list(KEYS)
    return {key: sorted(json.dumps(r, sort_keys=True) for r in export[key])
            for key in KEYS}  # fmt: skip


def text(payload: JSON) -> str:
    """A payload as JSON text: key order and every digit of every number count."""
    return json.dumps(payload, ensure_ascii=False)


def same_events(session: Session, payloads: list[JSON], where: str) -> None:
    """memexd's events are memex-python's, in order; else say at which step."""
    expected = [(i, e) for i, s in enumerate(session.steps) for e in s.events]
    for n, (step, event) in enumerate(expected):
        found = text(payloads[n]) if n < len(payloads) else "nothing"
        if found != text(event):
            raise AssertionError(
                f"{where}: event {n} (step {step}, {session.steps[step].command['type']}) "
                f"differs\n memex-python: {text(event)}\n memexd:       {found}"
            )
    assert len(payloads) == len(expected), f"{where}: more events: {payloads[len(expected) :]}"


def round_trip(export: JSON) -> JSON:
    """``export`` imported into an empty memex-python, and exported again."""
    empty = (memex.create_graph_state(), memex.create_intent_state(),
             memex.create_task_state())  # fmt: skip
    mem, intents, tasks, report = memex.import_slice(*empty, export)
    ids = {k: [r["edge_id" if k == "edges" else "id"] for r in export[k]] for k in KEYS}
    assert report == ImportReport(created=ImportBucket(**ids))
    anchors = {"memory_ids": ids["memories"], "intent_ids": ids["intents"],
               "task_ids": ids["tasks"]}  # fmt: skip
    return wire_of(memex.export_slice(mem, intents, tasks, **anchors))


async def replay(
    store: GraphStore, api: Api, log: list[JSON], via_graphql: bool
) -> tuple[list[tuple[int, str]], list[JSON] | None]:
    """The failures as (index, code), and the events returned (``None`` over
    GraphQL: its ``ReplayResult`` has none)."""
    if via_graphql:
        done = (await api.ok(REPLAY, c=log))["replayCommands"]
        assert done["applied"] + len(done["skipped"]) == len(log)
        return [(f["index"], f["code"]) for f in done["skipped"]], None
    outcome = await Replay(Memex(store, Settings())).commands(
        log, Origin(trace_id=TRACE), keep_events=True
    )
    for e in outcome.events:
        assert (e.namespace, e.type, e.trace_id) == (*_kind(e.payload), TRACE)
    return [(f.index, f.code) for f in outcome.failures], [e.payload for e in outcome.events]


def _kind(payload: JSON) -> tuple[str, str]:
    return payload["namespace"], payload["type"]


async def whole_export(store: GraphStore) -> JSON:
    """``Exporter.everything``'s pages, joined."""
    whole: JSON = {key: [] for key in KEYS}
    async for page in Exporter(Memex(store, Settings())).everything(7):
        for key in KEYS:
            whole[key] += page[key]
    return whole


# ---------------------------------------------------------------- the property


@settings(max_examples=25, deadline=None, report_multiple_bugs=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])  # fmt: skip
@given(plan=sessions(), via_graphql=st.booleans())
async def test_a_memex_session_replays_into_memexd_and_back(
    server_store: GraphStore, keys_file: Path, plan: Plan, via_graphql: bool
) -> None:
    session = run_session(plan)
    refold(session)  # the log stands for the session (checks the test itself)
    note(f"log = {json.dumps(session.log(), ensure_ascii=False)}")
    async with fresh_graph(server_store) as store, client(store, keys_file) as api:
        failures, returned = await replay(store, api, session.log(), via_graphql)
        assert failures == session.failures()
        if returned is not None:
            same_events(session, returned, "returned")
        stored = (await api.ok(EVENTS, n=10_000))["events"]
        for e in stored:
            assert (e["namespace"], e["type"]) == _kind(e["payload"])
        same_events(session, [e["payload"] for e in stored], "stored")
        named = {"memoryIds": session.item_ids, "intentIds": [*session.intent_ids, *GHOST_PLANS],
                 "taskIds": [*session.task_ids, *GHOST_PLANS]}  # fmt: skip
        ours = (await api.ok(EXPORT, i=named))["exportSlice"]
        theirs = as_set(session.export())
        assert as_set(ours) == theirs
        assert as_set(await whole_export(store)) == theirs
        assert as_set(round_trip(ours)) == theirs


# ---------------------------------------------------------------- documented differences


def at(ms: int, n: int) -> str:
    """A UUIDv7 at ``ms``, numbered."""
    h = f"{ms:012x}"
    return f"{h[:8]}-{h[8:]}-7000-8000-{n:012x}"


T = 1_720_000_000_000
A, B, C, E = at(T, 1), at(T, 2), at(T, 3), at(T, 9)
GHOST = GHOST_PLANS[0]


def item(item_id: str, **fields: Any) -> JSON:
    given = {"scope": "s", "kind": "k", "content": {}, "author": "u", "source_kind": "o",
             "authority": 0.5, **fields}  # fmt: skip
    return {"type": "memory.create", "item": wire_of(memex.create_memory_item(id=item_id, **given))}


def edge(edge_id: str, a: str, b: str, **fields: Any) -> JSON:
    made = memex.create_edge(edge_id=edge_id, from_=a, to=b, kind="SUPPORTS", author="u",
                             source_kind="o", authority=0.5, **fields)  # fmt: skip
    return {"type": "edge.create", "edge": wire_of(made)}


def update(what: str, target: str, partial: JSON) -> JSON:
    key = "item_id" if what == "memory" else f"{what}_id"
    return {"type": f"{what}.update", key: target, "partial": partial, "author": "u"}


def retract(what: str, target: str) -> JSON:
    key = "item_id" if what == "memory" else f"{what}_id"
    return {"type": f"{what}.retract", key: target, "author": "u"}


def plan_create(what: str, record_id: str, **fields: Any) -> JSON:
    if what == "intent":
        given = {"label": "l", "priority": 0.5, "owner": "o", **fields}
        made: Any = memex.create_intent(id=record_id, **given)
    else:
        given = {"intent_id": GHOST, "action": "a", "priority": 0.5, **fields}
        made = memex.create_task(id=record_id, **given)
    return {"type": f"{what}.create", what: wire_of(made)}


def with_value(command: JSON, key: str, **changes: Any) -> JSON:
    """``command`` with its record's fields changed (values factories refuse)."""
    return {**command, key: {**command[key], **changes}}


async def replayed(store: GraphStore, log: list[JSON], refused: dict[int, str]) -> None:
    """memex-python applies all of ``log``; memexd refuses exactly ``refused``
    (index: code, each with a message), and otherwise emits the events and ends
    in the state MemEX has without the refused commands."""
    named = Session(item_ids=[])
    for command in log:
        fold(named, command)  # MemEX takes every command
        record = command.get("item") or command.get("intent") or command.get("task")
        if record is not None and command["type"].endswith(".create"):
            what = command["type"].split(".")[0]
            {"memory": named.item_ids, "intent": named.intent_ids,
             "task": named.task_ids}[what].append(record["id"])  # fmt: skip
    kept = Session(item_ids=named.item_ids, intent_ids=named.intent_ids, task_ids=named.task_ids)
    events = [e for i, c in enumerate(log) if i not in refused for e in fold(kept, c)]
    outcome = await Replay(Memex(store, Settings())).commands(log, Origin(), keep_events=True)
    assert {f.index: f.code for f in outcome.failures} == refused
    assert all(f.message for f in outcome.failures)
    assert [text(e.payload) for e in outcome.events] == [text(e) for e in events]
    anchors = ExportOptions(memory_ids=[i for i in kept.item_ids if _uuid(i)],
                            intent_ids=[i for i in kept.intent_ids if _uuid(i)],
                            task_ids=[i for i in kept.task_ids if _uuid(i)])  # fmt: skip
    ours = await Exporter(Memex(store, Settings())).slice(anchors)
    assert as_set(ours) == as_set(kept.export())


def _uuid(value: str) -> bool:
    """Whether memexd takes ``value`` as an id in an export's anchors."""
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


async def test_item_ids_must_be_uuidv7s(store: GraphStore) -> None:
    """MemEX takes any string; memexd reads creation time from the id, and
    stores UUIDs lower-case (ids differing only in case collide)."""
    log = [item("m1"), item(str(uuid.UUID(int=5, version=4))), item(A), item(A.upper())]
    await replayed(store, log, {0: "INVALID_TIMESTAMP", 1: "INVALID_TIMESTAMP",
                               3: "DUPLICATE_MEMORY"})  # fmt: skip


async def test_edge_intent_and_task_ids_must_be_uuids(store: GraphStore) -> None:
    bad = [edge("e1", A, A), plan_create("intent", "i-1"), plan_create("task", "t-1")]
    good = [edge(E, A, A), plan_create("intent", at(T, 10)), plan_create("task", at(T, 11))]
    log = [item(A), *bad, *good]
    await replayed(store, log, {1: "BAD_USER_INPUT", 2: "BAD_USER_INPUT", 3: "BAD_USER_INPUT"})


async def test_retracted_ids_are_never_used_again(store: GraphStore) -> None:
    """MemEX deletes a retracted record, so its id is free; memexd keeps a tombstone."""
    log = [item(A), item(B), edge(E, B, B), retract("memory", A), item(A), retract("edge", E),
           edge(E, B, B)]  # fmt: skip
    await replayed(store, log, {4: "DUPLICATE_MEMORY", 6: "DUPLICATE_EDGE"})


async def test_edges_need_live_ends(store: GraphStore) -> None:
    """Edges to a missing or retracted item, however made (mark_alias and
    mark_contradiction check nothing either)."""
    log = [item(A), item(B), retract("memory", B), edge(at(T, 7), A, GHOST),
           edge(at(T, 8), GHOST, A), edge(E, A, B)]  # fmt: skip
    state = Session()
    for command in log[:3]:
        fold(state, command)
    alias = memex.mark_alias(state.mem, A, GHOST, "u").events
    contra = memex.mark_contradiction(state.mem, B, A, "u").events
    log += [{"type": "edge.create", "edge": wire_of(e)["edge"]} for e in [*alias, *contra]]
    await replayed(store, log, dict.fromkeys(range(3, 9), "MEMORY_NOT_FOUND"))


async def test_item_and_edge_partials_hold_no_nulls(store: GraphStore) -> None:
    """A MemEX null clears its field; memexd keeps those fields. A null on a
    key both ignore (``id``, ``created_at``, ``edge_id``) stays ignored."""
    log = [item(A, conviction=0.5, intent_id=GHOST), edge(E, A, A, weight=0.5, meta={}),
           update("memory", A, {"conviction": None}), update("memory", A, {"intent_id": None}),
           update("edge", E, {"weight": None}), update("edge", E, {"meta": None}),
           update("memory", A, {"id": None, "created_at": None, "kind": "k2"}),
           update("edge", E, {"edge_id": None, "kind": "ABOUT"})]  # fmt: skip
    await replayed(store, log, dict.fromkeys(range(2, 6), "BAD_USER_INPUT"))


async def test_scores_stay_in_range(store: GraphStore) -> None:
    """MemEX checks scores (and a task's attempt) only at creation; memexd in
    updates too."""
    i, t = at(T, 10), at(T, 11)
    log = [item(A), edge(E, A, A), plan_create("intent", i), plan_create("task", t),
           update("memory", A, {"authority": 2}), update("memory", A, {"importance": -0.5}),
           update("edge", E, {"authority": 5}), update("intent", i, {"priority": 5}),
           update("task", t, {"priority": -1}), update("task", t, {"attempt": -3})]  # fmt: skip
    await replayed(store, log, dict.fromkeys(range(4, 10), "BAD_USER_INPUT"))


async def test_created_at_is_the_id_time(store: GraphStore) -> None:
    await replayed(store, [item(A, created_at=T + 5), item(B, created_at=T)],
                  {0: "BAD_USER_INPUT"})  # fmt: skip


async def test_an_edge_keeps_its_author_and_source_kind(store: GraphStore) -> None:
    """MemEX's edge update may change them; memexd's takes them unchanged only."""
    log = [item(A), edge(E, A, A), update("edge", E, {"author": "other"}),
           update("edge", E, {"source_kind": "x"}),
           update("edge", E, {"author": "u", "source_kind": "o", "weight": 0.25})]  # fmt: skip
    await replayed(store, log, {2: "BAD_USER_INPUT", 3: "BAD_USER_INPUT"})


async def test_values_memexd_cannot_store(store: GraphStore) -> None:
    """Edge kinds outside ``[A-Z][A-Z0-9_]{0,63}``, empty names, integers past 64 bits."""
    log = [item(A), with_value(edge(E, A, A), "edge", kind="weird kind!"),
           item(B, content={"n": 2**64}), with_value(item(C), "item", scope="")]  # fmt: skip
    await replayed(store, log, dict.fromkeys(range(1, 4), "BAD_USER_INPUT"))


# ---------------------------------------------------------------- found by the property


async def test_scores_come_back_with_their_full_precision(store: GraphStore) -> None:
    """A score read back from the graph (the item in an update's event, exports)
    is the float MemEX holds, to the last digit: e.g. resolve_contradiction's
    loser authority 0.8 * 0.1 = 0.08000000000000002."""
    i = at(T, 10)
    log = [item(A, authority=0.8, conviction=0.4743730903381028), edge(E, A, A, weight=0.1 + 0.2),
           plan_create("intent", i, priority=1 / 3), update("memory", A, {"kind": "k2"}),
           update("memory", A, {"authority": 0.8 * 0.1}), update("edge", E, {"active": False}),
           update("intent", i, {"label": "l2"})]  # fmt: skip
    await replayed(store, log, {})


async def test_clearing_several_task_fields_clears_those_only(store: GraphStore) -> None:
    """A task.update clearing several fields at once clears them and no other."""
    t, ghost = at(T, 11), GHOST_ITEMS[0]
    fields = {"parent_id": GHOST, "label": "L", "error": "e", "input_memory_ids": [ghost],
              "output_memory_ids": [ghost], "agent_id": "a", "meta": {"m": 1}}  # fmt: skip
    cleared = ["parent_id", "error", "input_memory_ids", "output_memory_ids", "meta"]
    log = [plan_create("task", t, **fields), update("task", t, dict.fromkeys(cleared)),
           update("task", t, {"action": "b"})]  # fmt: skip
    await replayed(store, log, {})
