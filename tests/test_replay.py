"""MemEX replay into the live graph: codes per index, order, batching,
streaming, intents and tasks, grants, and agreement with memex-python."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import memex
import pytest
import strawberry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memex.errors import (
    DuplicateEdgeError,
    DuplicateMemoryError,
    EdgeNotFoundError,
    InvalidTimestampError,
    MemoryNotFoundError,
)
from memex.intent import DuplicateIntentError, IntentNotFoundError, InvalidIntentTransitionError
from memex.task import DuplicateTaskError, InvalidTaskTransitionError, TaskNotFoundError
from memexd.resolvers import replay as replay_r
from memexd.schema.replay import ReplayResult

from memexd.access.grants import Access, parse_grants
from memexd.core import Memex
from memexd.errors import BadUserInput, InvalidTimestamp, StorageUnavailable
from memexd.events.vocabulary import Origin
from memexd.graph import Graph
from memexd.intents.spec import INTENT, TASK
from memexd.memory.model import EdgeFilter, NewItem
from memexd.memory.records import edge_json, item_json
from memexd.server.context import Context
from memexd.settings import Settings
from memexd.transplant import replay as replay_module
from memexd.transplant.commands import COMMAND_TYPES, Call, ItemCreate, parse_command
from memexd.transplant.replay import Replay, ReplayOutcome
from memexd.types import GraphStore, Params, Row
from tests.support import CountingStore

TIME = 0x0190A0000000  # the ms every uid() carries


def uid(n: int) -> str:
    """A UUIDv7 item id (all at one time, numbered)."""
    return f"0190a000-0000-7000-8000-{n:012x}"


def plain(n: int) -> str:
    """A UUID for edges, intents and tasks."""
    return f"00000000-0000-4000-8000-{n:012x}"


def it(item_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": item_id, "scope": "s", "kind": "k", "content": {}, "author": "u",
            "source_kind": "o", "authority": 0.5, **fields}  # fmt: skip


def create(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "memory.create", "item": item}


def new_edge(edge_id: str, a: str, b: str, **fields: Any) -> dict[str, Any]:
    edge = {"edge_id": edge_id, "from": a, "to": b, "kind": "X", "author": "u",
            "source_kind": "o", "authority": 1, "active": True, **fields}  # fmt: skip
    return {"type": "edge.create", "edge": edge}


def _without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


def codes(outcome: ReplayOutcome) -> list[tuple[int, str]]:
    return [(f.index, f.code) for f in outcome.failures]


def core(store: GraphStore, **settings: Any) -> Memex:
    return Memex(store, Settings(**settings))


async def replay(memex_: Memex, log: Any, **options: Any) -> ReplayOutcome:
    return await Replay(memex_).commands(log, Origin(), keep_events=True, **options)


def memex_code(error: Exception) -> str:
    """§4.3's mapping of memex-python's errors to codes."""
    known = {
        DuplicateMemoryError: "DUPLICATE_MEMORY", MemoryNotFoundError: "MEMORY_NOT_FOUND",
        DuplicateEdgeError: "DUPLICATE_EDGE", EdgeNotFoundError: "EDGE_NOT_FOUND",
        InvalidTimestampError: "INVALID_TIMESTAMP", DuplicateIntentError: "DUPLICATE_INTENT",
        IntentNotFoundError: "INTENT_NOT_FOUND", DuplicateTaskError: "DUPLICATE_TASK",
        TaskNotFoundError: "TASK_NOT_FOUND",
        InvalidIntentTransitionError: "INVALID_INTENT_TRANSITION",
        InvalidTaskTransitionError: "INVALID_TASK_TRANSITION",
    }  # fmt: skip
    return known.get(type(error), "BAD_USER_INPUT")


async def snapshot(store: GraphStore) -> tuple[list[Row], list[Row]]:
    graph = Graph(store)
    return await graph.read("admin_snapshot_nodes"), await graph.read("admin_snapshot_rels")


# ---------------------------------------------------------------- the reference's examples


async def test_commands_example_of_the_reference(store: GraphStore) -> None:
    """§4.3 with UUIDv7 ids; then what memexd refuses that MemEX accepts."""
    a, b, c, d = uid(1), uid(2), uid(3), uid(4)
    log = [
        create(it(a)),  # 0 ok
        create(it(a)),  # 1 duplicate
        {"type": "memory.update", "item_id": uid(99), "partial": {}, "author": "u"},  # 2
        create(it(b, authority=1.5)),  # 3 score out of range
        {"type": "intent.create", "intent": {}},  # 4 no id, no fields
        {"type": "edge.create", "edge": _without(new_edge(plain(1), a, b)["edge"], "active")},
        new_edge(plain(2), a, uid(98)),  # 6 ok in MemEX; memexd: the end must exist
        create(it(c)),  # 7 ok
        create(it(d, created_at=TIME)),  # 8 ok: created_at is the id's time
        create(it("m3", created_at=1234)),  # 9 not a UUIDv7
        create(it(uid(5), created_at=1234)),  # 10 created_at is not the id's time
        "not a command",  # 11
    ]
    outcome = await replay(core(store), log)
    assert codes(outcome) == [
        (1, "DUPLICATE_MEMORY"), (2, "MEMORY_NOT_FOUND"), (3, "BAD_USER_INPUT"),
        (4, "BAD_USER_INPUT"), (5, "BAD_USER_INPUT"), (6, "MEMORY_NOT_FOUND"),
        (9, "INVALID_TIMESTAMP"), (10, "BAD_USER_INPUT"), (11, "BAD_USER_INPUT"),
    ]  # fmt: skip
    assert outcome.applied == len(log) - len(outcome.failures) == 3
    assert [e.type for e in outcome.events] == ["memory.created"] * 3
    # where MemEX fails, memexd fails with the same code
    theirs = memex.replay_commands(log)
    ours = dict(codes(outcome))
    assert {f.index: memex_code(f.error) for f in theirs.skipped}.items() <= ours.items()


@pytest.mark.parametrize("shape", ["list", "generator", "async"])
async def test_envelopes_example_of_the_reference(store: GraphStore, shape: str) -> None:
    """§4.4 with UUIDv7 ids: ts failures first, then apply failures in time order."""
    a = uid(1)

    def env(ts: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"id": "x", "namespace": "memory", "type": payload["type"], "ts": ts,
                "payload": payload}  # fmt: skip

    def update(content: dict[str, Any]) -> dict[str, Any]:
        return {"type": "memory.update", "item_id": a, "partial": {"content": content},
                "author": "u"}  # fmt: skip

    envs = [
        env("2024-01-01T00:00:02.000Z", update({"v": 2})),  # 0
        env("2024-01-01T00:00:01Z", create(it(a, content={"v": 1}))),  # 1
        env("2024-01-01T00:00:01.0001Z", create(it(uid(2)))),  # 2 sub-ms
        env("2024-01-01T02:00:00+02:00", create(it(a))),  # 3 = 00:00:00Z: first
        env("2024-02-31T00:00:00Z", create(it(uid(3)))),  # 4 bad date
        env("2024-01-01T00:00:02Z", update({"w": 3})),  # 5 same ts as #0: after it
        env("2024-01-01T00:00:03Z", {"type": "memory.retract", "item_id": uid(9), "author": "u"}),
        {"payload": create(it(uid(4)))},  # 7 no ts
        {"ts": "2024-01-01T00:00:04Z"},  # 8 no payload
        {"ts": 5, "payload": create(it(uid(5)))},  # 9 ts not a string
        [],  # 10 not an envelope
    ]
    source = {"list": envs, "generator": iter(envs), "async": _aiter(envs)}[shape]
    memex_ = core(store)
    outcome = await Replay(memex_).envelopes(source, Origin(), keep_events=True)
    assert codes(outcome) == [
        (2, "INVALID_TIMESTAMP"), (4, "INVALID_TIMESTAMP"), (7, "BAD_USER_INPUT"),
        (9, "BAD_USER_INPUT"), (10, "BAD_USER_INPUT"),
        (1, "DUPLICATE_MEMORY"), (6, "MEMORY_NOT_FOUND"), (8, "BAD_USER_INPUT"),
    ]  # fmt: skip
    assert outcome.failures[0].message == (
        'Invalid envelope timestamp: "2024-01-01T00:00:01.0001Z" (expected ISO 8601)'
    )
    assert outcome.failures[1].message == (
        'Invalid envelope timestamp: "2024-02-31T00:00:00Z" (calendar fields out of range)'
    )
    assert outcome.applied == 3
    assert [e.type for e in outcome.events] == ["memory.created"] + ["memory.updated"] * 2
    item = await memex_.item_reads.get(a)
    assert item is not None
    assert item.content == {"v": 2, "w": 3}
    # memex-python lists the same indexes in the same order, with the same codes
    theirs = memex.replay_from_envelopes(envs)
    assert [(f.index, memex_code(f.error)) for f in theirs.skipped] == codes(outcome)


async def _aiter(values: list[Any]) -> AsyncIterator[Any]:
    for value in values:
        yield value


# ---------------------------------------------------------------- batching, streaming


async def test_a_run_of_creates_is_one_batch(store: GraphStore) -> None:
    counting = CountingStore(store)
    log = [create(it(uid(i))) for i in range(1000)]
    outcome = await replay(core(counting), log)
    assert (outcome.applied, outcome.failures) == (1000, [])
    assert counting.round_trips == 1  # one write
    # replayed again: every id is taken, still a handful of round trips
    again = await replay(core(counting), log)
    assert again.applied == 0
    assert codes(again) == [(i, "DUPLICATE_MEMORY") for i in range(1000)]
    assert counting.round_trips <= 1 + 3  # refused write, the service's read, ours


async def test_taken_ids_fail_alone_and_the_rest_is_retried(store: GraphStore) -> None:
    counting = CountingStore(store)
    memex_ = core(counting)
    await replay(memex_, [create(it(uid(i))) for i in (10, 500, 990)])
    await replay(memex_, [{"type": "memory.retract", "item_id": uid(500), "author": "u"}])
    before = counting.round_trips
    log = [create(it(uid(i))) for i in range(1000)]
    log[20] = create(it(uid(7)))  # a repeated id: the first one wins
    log[30] = create(it(uid(30), authority=2))  # a bad draft fails alone
    outcome = await replay(memex_, log)
    assert codes(outcome) == [(10, "DUPLICATE_MEMORY"), (20, "DUPLICATE_MEMORY"),
                              (30, "BAD_USER_INPUT"), (500, "DUPLICATE_MEMORY"),
                              (990, "DUPLICATE_MEMORY")]  # fmt: skip
    assert outcome.applied == 995
    assert counting.round_trips - before <= 3  # refused write, read, write
    assert [e.payload["item"]["id"] for e in outcome.events][:8] == [uid(i) for i in range(8)]


async def test_an_id_the_caller_cannot_see_fails_without_sinking_the_batch(
    store: GraphStore,
) -> None:
    owner = core(store)
    await replay(owner, [create(it(uid(2), scope="b/"))])
    caller = owner.as_caller(Access.of("a", parse_grants(["write:a/"])))
    log = [create(it(uid(i), scope="a/")) for i in range(1, 9)]
    outcome = await replay(caller, log)
    assert codes(outcome) == [(1, "DUPLICATE_MEMORY")]
    assert outcome.applied == 7
    assert len(await caller.item_reads.fetch([uid(i) for i in range(1, 9)])) == 7


async def test_twenty_thousand_commands_stream_from_a_generator(store: GraphStore) -> None:
    """Never more than one chunk (max_batch) read ahead of what is applied."""
    state = {"pulled": 0, "done": 0, "lead": 0}

    def log() -> Iterator[dict[str, Any]]:
        for i in range(20_000):
            state["pulled"] += 1
            yield create(it(uid(i)))

    class Watching(CountingStore):
        async def write(self, text: str, params: Params) -> list[Row]:
            state["lead"] = max(state["lead"], state["pulled"] - state["done"])
            return await super().write(text, params)

    def progress(n: int) -> None:
        state["done"] += n

    watching = Watching(store)
    memex_ = core(watching, max_batch=1000)
    outcome = await Replay(memex_).commands(log(), Origin(), progress=progress)
    assert (outcome.applied, outcome.failures, outcome.events) == (20_000, [], [])
    assert state["done"] == 20_000
    assert state["lead"] <= 1000
    assert watching.writes == 20


async def test_progress_counts_every_command_once(store: GraphStore) -> None:
    seen: list[int] = []
    log = [create(it(uid(1))), create(it(uid(1))), "bad",
           {"type": "memory.retract", "item_id": uid(1), "author": "u"}]  # fmt: skip
    await Replay(core(store)).commands(log, Origin(), progress=seen.append)
    assert sum(seen) == 4
    envs = [{"ts": "2024-01-01T00:00:00Z", "payload": create(it(uid(2)))}, {"ts": "no"}]
    seen.clear()
    await Replay(core(store)).envelopes(iter(envs), Origin(), progress=seen.append)
    assert sum(seen) == 2


# ---------------------------------------------------------------- memexd's rules


async def test_partials_nulls_and_tombstones(store: GraphStore) -> None:
    a, e = uid(1), plain(1)

    def upd(partial: dict[str, Any], what: str = "memory") -> dict[str, Any]:
        key = "item_id" if what == "memory" else "edge_id"
        return {"type": f"{what}.update", key: a if what == "memory" else e,
                "partial": partial, "author": "u"}  # fmt: skip

    log = [
        create(it(a, content={"x": 1})),  # 0
        upd({"conviction": None}),  # 1 MemEX clears; memexd cannot
        upd({"id": None, "created_at": None, "foo": None, "kind": "k2", "content": {"y": 2}}),
        upd({"authority": 2}),  # 3 out of range
        new_edge(e, a, a, meta={"m": 1, "n": 2}),  # 4
        upd({"weight": None}, "edge"),  # 5 MemEX clears; memexd cannot
        upd({"author": "someone else"}, "edge"),  # 6 memexd cannot change it
        upd({"author": "u", "source_kind": "o", "meta": {"n": 3}, "from": "zz"}, "edge"),  # 7
        new_edge(plain(2), a, a, weight=2),  # 8 MemEX: weight in [0, 1]
        new_edge("e1", a, a),  # 9 not a UUID
        {"type": "memory.retract", "item_id": a, "author": "u", "reason": "gone"},  # 10
        create(it(a)),  # 11 its id stays taken
        {"type": "memory.update", "item_id": a, "partial": None, "author": "u"},  # 12
        {"type": "memory.retract", "item_id": uid(2)},  # 13 no author
        {"type": "edge.retract", "edge_id": e, "author": "u"},  # 14 retracted with the item
        {"type": "no.such"},  # 15
    ]
    memex_ = core(store)
    outcome = await replay(memex_, log)
    assert codes(outcome) == [
        (1, "BAD_USER_INPUT"), (3, "BAD_USER_INPUT"), (5, "BAD_USER_INPUT"),
        (6, "BAD_USER_INPUT"), (8, "BAD_USER_INPUT"), (9, "BAD_USER_INPUT"),
        (11, "DUPLICATE_MEMORY"), (12, "BAD_USER_INPUT"), (13, "BAD_USER_INPUT"),
        (14, "EDGE_NOT_FOUND"), (15, "BAD_USER_INPUT"),
    ]  # fmt: skip
    assert "memexd does not clear item fields" in outcome.failures[0].message
    tombstone = await memex_.item_reads.get(a, include_retracted=True)
    assert tombstone is not None
    assert (tombstone.kind, tombstone.content, tombstone.retracted) == (
        "k2",
        {"x": 1, "y": 2},
        True,
    )


async def test_failed_commands_change_nothing(store: GraphStore) -> None:
    memex_ = core(store)
    await replay(memex_, [create(it(uid(1))), new_edge(plain(1), uid(1), uid(1))])
    before = await snapshot(store)
    log = [
        create(it(uid(1))),
        create(it(uid(2), scope="")),
        {"type": "memory.update", "item_id": uid(1), "partial": {"meta": None}, "author": "u"},
        {"type": "edge.update", "edge_id": plain(1), "partial": {"kind": "bad kind"},
         "author": "u"},
        new_edge(plain(1), uid(1), uid(1)),
        {"type": "task.start", "task_id": plain(5)},
    ]  # fmt: skip
    outcome = await replay(memex_, log)
    assert outcome.applied == 0
    assert [c for _, c in codes(outcome)] == ["DUPLICATE_MEMORY", "BAD_USER_INPUT",
        "BAD_USER_INPUT", "BAD_USER_INPUT", "DUPLICATE_EDGE", "TASK_NOT_FOUND"]  # fmt: skip
    assert await snapshot(store) == before


async def test_a_storage_fault_stops_the_replay(store: GraphStore) -> None:
    class Down(CountingStore):
        async def write(self, text: str, params: Params) -> list[Row]:
            raise StorageUnavailable("the engine is down")

    with pytest.raises(StorageUnavailable):
        await replay(core(Down(store)), [create(it(uid(1)))])


async def test_a_log_must_be_a_list(store: GraphStore) -> None:
    for bad in ("text", {"type": "memory.create"}, b"bytes"):
        with pytest.raises(BadUserInput, match="list"):
            await replay(core(store), bad)


# ---------------------------------------------------------------- grants


async def test_a_caller_without_a_write_grant_is_forbidden_per_index(store: GraphStore) -> None:
    owner = core(store)
    await replay(owner, [create(it(uid(1), scope="team/")), new_edge(plain(1), uid(1), uid(1))])
    before = await snapshot(store)
    reader = owner.as_caller(Access.of("r", parse_grants(["read:"])))
    log = [
        create(it(uid(2), scope="team/")),
        {"type": "memory.update", "item_id": uid(1), "partial": {"kind": "x"}, "author": "u"},
        {"type": "memory.retract", "item_id": uid(1), "author": "u"},
        new_edge(plain(2), uid(1), uid(1)),
        {"type": "edge.update", "edge_id": plain(1), "partial": {"weight": 0.1}, "author": "u"},
        {"type": "edge.retract", "edge_id": plain(1), "author": "u"},
    ]
    outcome = await replay(reader, log)
    assert codes(outcome) == [(i, "FORBIDDEN") for i in range(6)]
    assert await snapshot(store) == before
    # a caller who cannot read the scope is told the item is missing
    stranger = owner.as_caller(Access.of("s", parse_grants(["write:other/"])))
    hidden = await replay(stranger, log[1:3])
    assert codes(hidden) == [(0, "MEMORY_NOT_FOUND"), (1, "MEMORY_NOT_FOUND")]
    # per index: in one run, what the caller may write is created
    writer = owner.as_caller(Access.of("w", parse_grants(["write:mine/"])))
    mixed = await replay(writer, [create(it(uid(3), scope="mine/")),
                                  create(it(uid(4), scope="team/"))])  # fmt: skip
    assert (mixed.applied, codes(mixed)) == (1, [(1, "FORBIDDEN")])


# ---------------------------------------------------------------- intents and tasks


def _memex_plan_state(log: list[dict[str, Any]]) -> tuple[Any, Any, list[str], list[int]]:
    """memex-python's reducers over the same commands: the final records, event
    types and failing indexes (its replay refuses these commands)."""
    intents, tasks = memex.create_intent_state(), memex.create_task_state()
    types: list[str] = []
    failed: list[int] = []
    for i, command in enumerate(log):
        try:
            if command["type"].startswith("intent."):
                r = memex.apply_intent_command(intents, command)
                intents = r.state
            else:
                r = memex.apply_task_command(tasks, command)
                tasks = r.state
            types += [e.type for e in r.events]
        except Exception:
            failed.append(i)
    return intents, tasks, types, failed


async def test_intent_and_task_commands_are_applied_as_memex_does(store: GraphStore) -> None:
    i, t = plain(1), plain(2)
    intent = {"id": i, "label": "find", "priority": 0.9, "owner": "user:laz", "status": "paused",
              "description": "d", "context": {"a": 1}}  # fmt: skip
    task = {"id": t, "intent_id": i, "action": "search", "priority": 0.5, "status": "running"}
    log = [
        {"type": "intent.create", "intent": intent},  # 0 kept paused
        {"type": "intent.update", "intent_id": i, "author": "u",
         "partial": {"description": None, "context": {"b": 2}, "status": "cancelled", "id": "z"}},
        {"type": "intent.resume", "intent_id": i, "author": "u", "reason": "go"},  # 2
        {"type": "task.create", "task": task},  # 3 running, no attempt
        {"type": "task.fail", "task_id": t, "error": "timeout", "retryable": True},  # 4
        {"type": "task.start", "task_id": t, "agent_id": "agent:a"},  # 5 attempt 1
        {"type": "task.complete", "task_id": t, "result": {"hits": 3},
         "output_memory_ids": [uid(1)]},  # 6
        {"type": "task.update", "task_id": t, "partial": {"label": "L", "error": None},
         "author": "u"},  # 7
        {"type": "task.cancel", "task_id": t},  # 8 completed: invalid
        {"type": "task.create", "task": task},  # 9 duplicate
        {"type": "intent.pause", "intent_id": plain(99), "author": "u"},  # 10 not found
        {"type": "intent.complete", "intent_id": i, "author": "u"},  # 11
        {"type": "intent.create", "intent": {**intent, "id": "i-1"}},  # 12 not a UUID
        {"type": "intent.create", "intent": {**intent, "id": plain(3), "status": None}},  # 13
        {"type": "task.fail", "task_id": t},  # 14 no error
    ]  # fmt: skip
    memex_ = core(store)
    outcome = await replay(memex_, log)
    assert codes(outcome) == [
        (8, "INVALID_TASK_TRANSITION"), (9, "DUPLICATE_TASK"), (10, "INTENT_NOT_FOUND"),
        (12, "BAD_USER_INPUT"), (13, "BAD_USER_INPUT"), (14, "BAD_USER_INPUT"),
    ]  # fmt: skip
    intents, tasks, types, failed = _memex_plan_state(log)
    assert failed == [8, 9, 10, 13, 14]  # MemEX takes any string as an id
    ours_i, ours_t = await memex_.intent_reads.get(i), await memex_.task_reads.get(t)
    assert ours_i is not None
    assert ours_t is not None
    dump = {"mode": "json", "exclude_none": True}
    assert ours_i.json(INTENT) == intents.intents[i].model_dump(**dump)
    assert ours_t.json(TASK) == tasks.tasks[t].model_dump(**dump)
    assert "attempt" in ours_t.json(TASK)
    assert ours_i.scope == ours_t.scope == ""  # the service's rule: the caller's one prefix
    assert types[-1] == "intent.created"  # index 12's: MemEX takes "i-1"
    assert [e.type for e in outcome.events] == types[:-1]


# ---------------------------------------------------------------- agreement with memex-python


async def test_the_same_log_gives_the_same_state_as_memex_python(store: GraphStore) -> None:
    a, b, c, d = uid(1), uid(2), uid(3), uid(4)
    e1, e2, e3 = plain(1), plain(2), plain(3)
    log = [
        create(it(a, content={"k": 1}, authority=0.9, meta={"agent_id": "agent:r"})),
        create(it(b, parents=[])),
        create(it(c, kind="derivation", parents=[a], conviction=0.3, intent_id=plain(7))),
        create(it(d, parents=[c, uid(50)], importance=0.2)),
        {"type": "memory.update", "item_id": c, "author": "u", "reason": "why", "basis": {"q": 1},
         "partial": {"content": {"y": 2}, "meta": {"session_id": "s1"}, "authority": 0.7,
                     "id": "ignored", "created_at": 1}},
        new_edge(e1, a, c, kind="SUPPORTS", weight=0.3, meta={"m": 1, "n": 2}),
        new_edge(e2, c, c, kind="CONTRADICTS"),
        new_edge(e3, b, a, kind="ABOUT"),
        new_edge(plain(4), b, d, kind="ABOUT", active=False),
        {"type": "edge.update", "edge_id": e1, "author": "u", "reason": "r",
         "partial": {"meta": {"n": 3}, "kind": "ABOUT", "active": False, "from": "zz",
                     "edge_id": "zz", "author": "u"}},
        {"type": "edge.retract", "edge_id": e3, "author": "u"},
        {"type": "memory.retract", "item_id": c, "author": "u", "reason": "gone"},
        {"type": "memory.update", "item_id": a, "author": "u",
         "partial": {"parents": [b], "importance": 0.4, "scope": "t"}},
        create(it(uid(5))),
    ]  # fmt: skip
    theirs = memex.replay_commands(log)
    assert theirs.skipped == []
    memex_ = core(store)
    outcome = await replay(memex_, log)
    assert (outcome.applied, outcome.failures) == (len(log), [])

    def without_time(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if k != "created_at"}

    dump = {"mode": "json", "by_alias": True, "exclude_none": True}
    their_items = {k: without_time(v.model_dump(**dump)) for k, v in theirs.state.items.items()}
    our_items = {i.id: without_time(item_json(i)) for i in await memex_.item_reads.find(None)}
    assert our_items == their_items
    their_edges = {k: v.model_dump(**dump) for k, v in theirs.state.edges.items()}
    found = await memex_.edge_reads.find(EdgeFilter(active_only=False))
    assert {x.edge_id: edge_json(x) for x in found} == their_edges
    assert [e.type for e in outcome.events] == [e.type for e in theirs.events]


# ---------------------------------------------------------------- GraphQL


@strawberry.type(description="q")
class _Query:
    @strawberry.field(description="up")
    def up(self) -> bool:
        return True


@strawberry.type(description="m")
class _Mutation:
    replay_commands: ReplayResult = strawberry.mutation(
        resolver=replay_r.replay_commands, description="c"
    )
    replay_envelopes: ReplayResult = strawberry.mutation(
        resolver=replay_r.replay_envelopes, description="e"
    )


async def test_the_resolvers(store: GraphStore) -> None:
    schema = strawberry.Schema(query=_Query, mutation=_Mutation)
    memex_ = core(store, max_batch=3)
    query = """mutation($c: JSON!, $e: JSON!) {
      replayCommands(commands: $c) { applied skipped { index code message } }
      replayEnvelopes(envelopes: $e) { applied skipped { index code message } } }"""

    async def run(commands: Any, envelopes: Any) -> Any:
        context = Context.of(memex_, Origin())
        return await schema.execute(query, {"c": commands, "e": envelopes}, context)

    result = await run(
        [create(it(uid(1))), create(it(uid(1)))],
        [{"ts": "2024-01-01T00:00:00Z", "payload": create(it(uid(2)))}, {"ts": "x"}],
    )
    assert result.errors is None
    assert result.data["replayCommands"]["applied"] == 1
    assert result.data["replayCommands"]["skipped"] == [
        {"index": 1, "code": "DUPLICATE_MEMORY", "message": f"memory item already exists: {uid(1)}"}
    ]
    assert result.data["replayEnvelopes"]["applied"] == 1
    assert [s["code"] for s in result.data["replayEnvelopes"]["skipped"]] == ["INVALID_TIMESTAMP"]
    before = await snapshot(store)
    for commands in ({"type": "memory.create"}, [create(it(uid(i))) for i in range(10, 14)]):
        failed = await run(commands, [])
        assert failed.errors is not None
        assert failed.errors[0].original_error.code == "BAD_USER_INPUT"
    assert await snapshot(store) == before


# ---------------------------------------------------------------- parsing never crashes


def test_new_item_draft_keeps_memex_fields() -> None:
    parsed = parse_command(create(it(uid(1).upper(), parents=[uid(2)], foo=1, created_at=TIME)))
    assert isinstance(parsed, ItemCreate)
    assert parsed.draft == NewItem(id=uid(1), scope="s", kind="k", content={}, author="u",
                                   source_kind="o", authority=0.5, parents=[uid(2)])  # fmt: skip


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_FIELDS = ["item", "edge", "intent", "task", "partial", "item_id", "edge_id", "intent_id",
           "task_id", "author", "reason", "basis", "agent_id", "result", "output_memory_ids",
           "error", "retryable", "id", "status", "active", "weight", "created_at"]  # fmt: skip
_commands = st.builds(
    lambda type_, fields: {"type": type_, **fields},
    st.sampled_from(sorted(COMMAND_TYPES)) | st.text(max_size=12),
    st.dictionaries(
        st.sampled_from(_FIELDS),
        _json
        | st.dictionaries(
            st.sampled_from([*_FIELDS, "from", "to", "scope", "content", "authority"]), _json
        ),
        max_size=6,
    ),
)


@given(st.one_of(_json, _commands))
def test_any_json_parses_or_fails_with_a_code(value: Any) -> None:
    try:
        parsed = parse_command(value)
    except (BadUserInput, InvalidTimestamp):
        return
    assert isinstance(parsed, ItemCreate | Call)


async def test_a_payload_that_is_not_json_fails_its_index(store: GraphStore) -> None:
    envs = [{"ts": "2024-01-01T00:00:00Z", "payload": {"n": 2**70}},
            {"ts": "2024-01-01T00:00:00Z", "payload": create(it(uid(1)))}]  # fmt: skip
    outcome = await Replay(core(store)).envelopes(iter(envs), Origin())
    assert (outcome.applied, codes(outcome)) == (1, [(0, "BAD_USER_INPUT")])


def _valid_log(base: int = 0) -> list[dict[str, Any]]:
    a, b, i, t = uid(base + 1), uid(base + 2), plain(base + 1), plain(base + 2)
    e = plain(base + 3)
    intent = {"id": i, "label": "l", "priority": 0.5, "owner": "o", "status": "active"}
    task = {"id": t, "intent_id": i, "action": "a", "priority": 0.5, "status": "pending"}
    return [
        create(it(a, parents=[b], meta={"m": 1})),
        create(it(b)),
        {"type": "memory.update", "item_id": a, "partial": {"content": {"x": 1}}, "author": "u",
         "basis": {"q": 1}},
        new_edge(e, a, b, weight=0.5),
        {"type": "edge.update", "edge_id": e, "partial": {"kind": "Y"}, "author": "u"},
        {"type": "intent.create", "intent": intent},
        {"type": "intent.update", "intent_id": i, "partial": {"label": "m"}, "author": "u"},
        {"type": "task.create", "task": task},
        {"type": "task.start", "task_id": t, "agent_id": "agent:a"},
        {"type": "task.complete", "task_id": t, "result": {}, "output_memory_ids": [a]},
        {"type": "edge.retract", "edge_id": e, "author": "u"},
        {"type": "memory.retract", "item_id": a, "author": "u"},
    ]  # fmt: skip


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(at=st.integers(0, 11), key=st.integers(0, 30), nested=st.booleans(), value=_json)
async def test_a_mangled_log_never_crashes_the_replay(
    store: GraphStore, at: int, key: int, nested: bool, value: Any
) -> None:
    """One field of a valid log replaced by any JSON (or dropped): every
    command is applied or fails with a client code."""
    _examples.append(len(_examples))
    log = _valid_log(10 * len(_examples))  # fresh ids: the graph is the test's, shared
    target = log[at]
    inner = [v for v in target.values() if isinstance(v, dict) and v]
    if nested and inner:
        target = inner[0]
    names = sorted(target)
    name = names[key % len(names)]
    if key % 3 == 0:
        del target[name]
    else:
        target[name] = value
    outcome = await replay(core(store), log)
    assert outcome.applied + len(outcome.failures) == len(log)
    assert {f.code for f in outcome.failures} <= _CLIENT_CODES


_examples: list[int] = []
_CLIENT_CODES = {
    "BAD_USER_INPUT", "INVALID_TIMESTAMP", "DUPLICATE_MEMORY", "MEMORY_NOT_FOUND",
    "DUPLICATE_EDGE", "EDGE_NOT_FOUND", "DUPLICATE_INTENT", "INTENT_NOT_FOUND",
    "DUPLICATE_TASK", "TASK_NOT_FOUND", "INVALID_INTENT_TRANSITION", "INVALID_TASK_TRANSITION",
}  # fmt: skip


async def test_a_streamed_envelope_log_spools_to_disk_and_comes_out_in_time_order(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_module, "_SPOOL_IN_MEMORY", 256)  # roll over to a real file

    def envs() -> Iterator[dict[str, Any]]:
        for n in range(300):  # newest first, in pairs sharing a time
            second = (299 - n) // 2
            yield {"ts": f"2024-01-01T00:{second // 60:02d}:{second % 60:02d}.5Z",
                   "payload": create(it(uid(n)))}  # fmt: skip

    outcome = await Replay(core(store)).envelopes(envs(), Origin(), keep_events=True)
    assert (outcome.applied, outcome.failures) == (300, [])
    expected = sorted(envs(), key=lambda e: e["ts"])  # stable, as the replay's
    assert expected[0]["payload"]["item"]["id"] == uid(298)
    got = [e.payload["item"]["id"] for e in outcome.events]
    assert got == [e["payload"]["item"]["id"] for e in expected]
