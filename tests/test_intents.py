"""Intents and tasks: records, lifecycle tables, events, links, grants."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from memexd.core import Memex
from memexd.errors import BadUserInput, SchemaExists
from memexd.events.vocabulary import Origin
from memexd.graph.migrations import discover, migrate
from memexd.ids import new_id
from memexd.intents.spec import TASK as TASK_KIND
from memexd.settings import Settings
from tests.support import Api

INTENT = "id parentId label description priority owner status context rootMemoryIds meta scope"
TASK = (
    "id intentId parentId action label status priority context result error "
    "inputMemoryIds outputMemoryIds agentId attempt meta scope"
)
EVENTS = "events { type namespace payload }"
CREATE_INTENT = f"""mutation($i: IntentInput!) {{ createIntent(input: $i) {{
  intent {{ {INTENT} }} {EVENTS} }} }}"""
CREATE_TASK = f"""mutation($i: TaskInput!) {{ createTask(input: $i) {{
  task {{ {TASK} }} {EVENTS} }} }}"""


def intent_move(command: str) -> str:
    selection = f"intent {{ {INTENT} }} {EVENTS}"
    return f"mutation($id: ID!) {{ {command}Intent(id: $id) {{ {selection} }} }}"


TASK_MOVES = {
    "start": 'mutation($id: ID!) { startTask(id: $id, agentId: "agent:r") { task { %s } %s } }',
    "complete": "mutation($id: ID!) { completeTask(id: $id, result: {ok: 1}) { task { %s } %s } }",
    "fail": 'mutation($id: ID!) { failTask(id: $id, error: "boom") { task { %s } %s } }',
    "cancel": "mutation($id: ID!) { cancelTask(id: $id) { task { %s } %s } }",
}


async def make_intent(api: Api, **fields: Any) -> dict[str, Any]:
    given = {"label": "find kati", "priority": 0.9, "owner": "user:laz", **fields}
    return (await api.ok(CREATE_INTENT, i=given))["createIntent"]["intent"]


async def make_task(api: Api, intent_id: str, **fields: Any) -> dict[str, Any]:
    given = {"intentId": intent_id, "action": "search", "priority": 0.5, **fields}
    return (await api.ok(CREATE_TASK, i=given))["createTask"]["task"]


async def test_create_and_read_back_with_memex_events(api: Api) -> None:
    item = await api.create()
    made = await api.ok(
        CREATE_INTENT,
        i={
            "label": "L",
            "priority": 0.7,
            "owner": "user:a",
            "context": {"k": [1]},
            "rootMemoryIds": [item["id"]],
        },
    )
    intent = made["createIntent"]["intent"]
    assert intent["status"] == "ACTIVE"
    assert intent["scope"] == ""  # open mode: the root scope
    assert intent["rootMemoryIds"] == [item["id"]]
    (event,) = made["createIntent"]["events"]
    assert event["type"] == "intent.created"
    assert event["namespace"] == "intent"
    assert event["payload"] == {
        "namespace": "intent",
        "type": "intent.created",
        "cause_type": "intent.create",
        "intent": {
            "id": intent["id"],
            "label": "L",
            "priority": 0.7,
            "owner": "user:a",
            "status": "active",
            "context": {"k": [1]},
            "root_memory_ids": [item["id"]],
        },
    }
    assert list(event["payload"]["intent"]) == [
        "id",
        "label",
        "priority",
        "owner",
        "status",
        "context",
        "root_memory_ids",
    ]  # MemEX's key order, absent optionals left out
    got = await api.ok(
        f"query($id: ID!) {{ intent(id: $id) {{ {INTENT} rootMemories {{ id }} }} }}",
        id=intent["id"],
    )
    assert got["intent"]["rootMemories"] == [{"id": item["id"]}]
    task = await make_task(api, intent["id"], inputMemoryIds=[item["id"]])
    assert (task["status"], task["attempt"], task["scope"]) == ("PENDING", 0, "")
    nested = await api.ok(
        "query($id: ID!) { task(id: $id) { intent { id tasks { id } } inputMemories { id } } }",
        id=task["id"],
    )
    assert nested["task"]["intent"] == {"id": intent["id"], "tasks": [{"id": task["id"]}]}
    assert nested["task"]["inputMemories"] == [{"id": item["id"]}]
    produced = await api.create(intentId=intent["id"], taskId=task["id"])
    linked = await api.ok(
        "query($id: ID!) { item(id: $id) { intent { id } task { id } } }", id=produced["id"]
    )
    assert linked["item"] == {"intent": {"id": intent["id"]}, "task": {"id": task["id"]}}


INTENT_TABLE = {  # command -> (valid from, target), seed 004
    "pause": ({"ACTIVE"}, "PAUSED"),
    "resume": ({"PAUSED"}, "ACTIVE"),
    "complete": ({"ACTIVE", "PAUSED"}, "COMPLETED"),
    "cancel": ({"ACTIVE", "PAUSED"}, "CANCELLED"),
}
INTENT_PATHS = {
    "ACTIVE": [],
    "PAUSED": ["pause"],
    "COMPLETED": ["complete"],
    "CANCELLED": ["cancel"],
}


@pytest.mark.parametrize("start", sorted(INTENT_PATHS))
async def test_intent_lifecycle_table(api: Api, start: str) -> None:
    for command, (valid_from, target) in INTENT_TABLE.items():
        intent = await make_intent(api)
        for step in INTENT_PATHS[start]:
            await api.ok(intent_move(step), id=intent["id"])
        before = await api.snapshot()
        if start in valid_from:
            moved = (await api.ok(intent_move(command), id=intent["id"]))[f"{command}Intent"]
            assert moved["intent"]["status"] == target
            assert [e["type"] for e in moved["events"]] == [
                f"intent.{target.lower()}" if command != "resume" else "intent.resumed"
            ]
        else:
            assert await api.codes(intent_move(command), id=intent["id"]) == [
                "INVALID_INTENT_TRANSITION"
            ]
            assert await api.snapshot() == before


TASK_TABLE = {
    "start": ({"PENDING", "FAILED"}, "RUNNING"),
    "complete": ({"RUNNING"}, "COMPLETED"),
    "fail": ({"RUNNING"}, "FAILED"),
    "cancel": ({"PENDING", "RUNNING", "FAILED"}, "CANCELLED"),
}
TASK_PATHS = {
    "PENDING": [],
    "RUNNING": ["start"],
    "COMPLETED": ["start", "complete"],
    "FAILED": ["start", "fail"],
    "CANCELLED": ["cancel"],
}


async def move_task(api: Api, command: str, task_id: str) -> dict[str, Any]:
    name = f"{command}Task"
    result: dict[str, Any] = (await api.ok(TASK_MOVES[command] % (TASK, EVENTS), id=task_id))[name]
    return result


@pytest.mark.parametrize("start", sorted(TASK_PATHS))
async def test_task_lifecycle_table(api: Api, start: str) -> None:
    intent = await make_intent(api)
    for command, (valid_from, target) in TASK_TABLE.items():
        task = await make_task(api, intent["id"])
        for step in TASK_PATHS[start]:
            await move_task(api, step, task["id"])
        before = await api.snapshot()
        if start in valid_from:
            moved = await move_task(api, command, task["id"])
            assert moved["task"]["status"] == target
            event = {
                "start": "task.started",
                "complete": "task.completed",
                "fail": "task.failed",
                "cancel": "task.cancelled",
            }[command]
            assert [e["type"] for e in moved["events"]] == [event]
            assert moved["events"][0]["payload"]["cause_type"] == f"task.{command}"
        else:
            query = TASK_MOVES[command] % (TASK, EVENTS)
            assert await api.codes(query, id=task["id"]) == ["INVALID_TASK_TRANSITION"]
            assert await api.snapshot() == before


async def test_start_counts_attempts_and_keeps_the_agent(api: Api) -> None:
    intent = await make_intent(api)
    task = await make_task(api, intent["id"], agentId="agent:first")
    started = await api.ok(
        "mutation($id: ID!) { startTask(id: $id) { task { attempt agentId } } }", id=task["id"]
    )
    assert started["startTask"]["task"] == {"attempt": 1, "agentId": "agent:first"}
    await move_task(api, "fail", task["id"])
    again = await move_task(api, "start", task["id"])
    assert (again["task"]["attempt"], again["task"]["agentId"]) == (2, "agent:r")
    done = await move_task(api, "complete", task["id"])
    assert done["task"]["result"] == {"ok": 1}
    assert done["events"][0]["payload"]["task"]["result"] == {"ok": 1}


async def test_two_concurrent_starts_never_both_win(api: Api) -> None:
    intent = await make_intent(api)
    for _ in range(5):
        task = await make_task(api, intent["id"])
        query = TASK_MOVES["start"] % ("attempt", "events { type }")
        answers = await asyncio.gather(*(api.run(query, {"id": task["id"]}) for _ in range(4)))
        won = [a for a in answers if not a.get("errors")]
        lost = [a["errors"][0]["extensions"]["code"] for a in answers if a.get("errors")]
        assert len(won) == 1
        assert lost == ["INVALID_TASK_TRANSITION"] * 3
        assert won[0]["data"]["startTask"]["task"]["attempt"] == 1


async def test_update_replaces_objects_and_keeps_status(api: Api) -> None:
    intent = await make_intent(api, context={"a": 1, "b": 2}, meta={"x": 1})
    update = f"""mutation($id: ID!, $p: IntentPatch!) {{ updateIntent(id: $id, patch: $p) {{
      intent {{ {INTENT} }} {EVENTS} }} }}"""
    got = await api.ok(update, id=intent["id"], p={"context": {"c": 3}, "priority": 0.2})
    changed = got["updateIntent"]["intent"]
    assert changed["context"] == {"c": 3}  # replaced wholesale, as MemEX does
    assert (changed["priority"], changed["meta"], changed["status"]) == (0.2, {"x": 1}, "ACTIVE")
    assert got["updateIntent"]["events"][0]["type"] == "intent.updated"


async def test_filters(api: Api) -> None:
    item = await api.create()
    root = await make_intent(api, owner="user:a", rootMemoryIds=[item["id"]])
    child = await make_intent(api, owner="user:b", parentId=root["id"], priority=0.2)
    await api.ok(intent_move("pause"), id=child["id"])
    query = "query($f: IntentFilter) { intents(filter: $f) { id } }"

    async def ids(**f: Any) -> list[str]:
        return [i["id"] for i in (await api.ok(query, f=f))["intents"]]

    assert await ids() == [root["id"], child["id"]]
    assert await ids(owner="user:b") == [child["id"]]
    assert await ids(statuses=["PAUSED", "COMPLETED"]) == [child["id"]]
    assert await ids(status="ACTIVE", statuses=["PAUSED"]) == []
    assert await ids(minPriority=0.5) == [root["id"]]
    assert await ids(hasMemoryId=item["id"]) == [root["id"]]
    assert await ids(parentId=root["id"]) == [child["id"]]
    assert await ids(isRoot=True) == [root["id"]]
    assert await ids(isRoot=False) == [child["id"]]
    a = await make_task(
        api, root["id"], action="x", agentId="agent:1", outputMemoryIds=[item["id"]]
    )
    b = await make_task(api, child["id"], action="y", parentId=a["id"])
    tq = "query($f: TaskFilter) { tasks(filter: $f) { id } }"

    async def tids(**f: Any) -> list[str]:
        return [t["id"] for t in (await api.ok(tq, f=f))["tasks"]]

    assert await tids(intentId=root["id"]) == [a["id"]]
    assert await tids(action="y") == [b["id"]]
    assert await tids(agentId="agent:1") == [a["id"]]
    assert await tids(hasOutputMemoryId=item["id"]) == [a["id"]]
    assert await tids(parentId=a["id"]) == [b["id"]]
    assert await tids(isRoot=True) == [a["id"]]
    nested = await api.ok(
        "query($id: ID!) { intent(id: $id) { children { id } tasks { id children { id } } } }",
        id=root["id"],
    )
    assert nested["intent"] == {
        "children": [{"id": child["id"]}],
        "tasks": [{"id": a["id"], "children": [{"id": b["id"]}]}],
    }


async def test_bad_input_and_missing_records(api: Api) -> None:
    intent = await make_intent(api)
    bad = [
        ({"label": "x", "priority": 1.5, "owner": "u"}, "BAD_USER_INPUT"),
        ({"label": "", "priority": 0.5, "owner": "u"}, "BAD_USER_INPUT"),
        ({"label": "x", "priority": 0.5, "owner": "u", "id": "nope"}, "BAD_USER_INPUT"),
        ({"label": "x", "priority": 0.5, "owner": "u", "context": [1]}, "BAD_USER_INPUT"),
        ({"label": "x", "priority": 0.5, "owner": "u", "id": intent["id"]}, "DUPLICATE_INTENT"),
    ]
    for given, code in bad:
        before = await api.snapshot()
        assert await api.codes(CREATE_INTENT, i=given) == [code], given
        assert await api.snapshot() == before
    task = await make_task(api, intent["id"])
    assert await api.codes(
        CREATE_TASK, i={"intentId": intent["id"], "action": "a", "priority": 0.5, "id": task["id"]}
    ) == ["DUPLICATE_TASK"]
    missing = new_id()
    assert await api.codes(intent_move("pause"), id=missing) == ["INTENT_NOT_FOUND"]
    assert await api.codes(TASK_MOVES["cancel"] % ("id", "events { id }"), id=missing) == [
        "TASK_NOT_FOUND"
    ]
    assert (await api.ok("query($id: ID!) { intent(id: $id) { id } }", id=missing))[
        "intent"
    ] is None
    assert await api.codes("{ intents(filter: {minPriority: 1e400}) { id } }") == ["BAD_USER_INPUT"]


async def test_grants_apply(api: Api) -> None:
    mine = await make_intent(api, scope="tenant:a/plans")
    theirs = await make_intent(api, scope="tenant:b/plans")
    writer = api.with_grants("write:tenant:a/")
    reader = api.with_grants("read:tenant:a/")
    both = api.with_grants("write:tenant:a/", "write:tenant:b/")
    listed = await writer.ok("{ intents { id } tasks { id } }")
    assert listed == {"intents": [{"id": mine["id"]}], "tasks": []}
    assert (await writer.ok("query($id: ID!) { intent(id: $id) { id } }", id=theirs["id"]))[
        "intent"
    ] is None
    assert await writer.codes(intent_move("pause"), id=theirs["id"]) == ["INTENT_NOT_FOUND"]
    assert await reader.codes(intent_move("pause"), id=mine["id"]) == ["FORBIDDEN"]
    # a new record's scope: given, else the caller's only write prefix, else refused
    made = await make_intent(writer)
    assert made["scope"] == "tenant:a/"
    assert await both.codes(CREATE_INTENT, i={"label": "x", "priority": 0.5, "owner": "u"}) == [
        "BAD_USER_INPUT"
    ]
    assert await writer.codes(
        CREATE_INTENT, i={"label": "x", "priority": 0.5, "owner": "u", "scope": "tenant:b/x"}
    ) == ["FORBIDDEN"]
    task = await make_task(both, mine["id"])
    assert task["scope"] == "tenant:a/plans"  # its intent's
    events = await reader.ok("{ events { type } }")
    assert {e["type"] for e in events["events"]} == {"intent.created", "task.created"}


async def test_bad_updates_and_moves_change_nothing(api: Api) -> None:
    intent = await make_intent(api)
    task = await make_task(api, intent["id"])
    update = (
        "mutation($id: ID!, $p: IntentPatch!) { updateIntent(id: $id, patch: $p) "
        "{ intent { id } } }"
    )
    start = 'mutation($id: ID!) { startTask(id: $id, agentId: "") { task { id } } }'
    complete = "mutation($id: ID!, $r: JSON) { completeTask(id: $id, result: $r) { task { id } } }"
    fail = "mutation($id: ID!, $e: String!) { failTask(id: $id, error: $e) { task { id } } }"
    cases = [
        (update, {"id": intent["id"], "p": {"priority": 2}}),
        (update, {"id": intent["id"], "p": {"meta": "text"}}),
        (update, {"id": intent["id"], "p": {"rootMemoryIds": ["nope"]}}),
        (update, {"id": "nope", "p": {"priority": 0.1}}),
        (start, {"id": task["id"]}),
    ]
    for query, variables in cases:
        before = await api.snapshot()
        assert await api.codes(query, **variables) == ["BAD_USER_INPUT"], variables
        assert await api.snapshot() == before
    await move_task(api, "start", task["id"])
    for query, variables in [(complete, {"id": task["id"], "r": [1, 2]}),
                             (fail, {"id": task["id"], "e": "x" * 5000})]:  # fmt: skip
        before = await api.snapshot()
        assert await api.codes(query, **variables) == ["BAD_USER_INPUT"], variables
        assert await api.snapshot() == before


# ---------------------------------------------------------------- links as relationships

PLAN_LINKS = {"SUBINTENT_OF", "FOR_INTENT", "SUBTASK_OF", "ROOT", "READS", "WROTE", "IN_INTENT",
              "IN_TASK"}  # fmt: skip
Link = tuple[Any, ...]


async def links(api: Api) -> tuple[list[Link], list[str]]:
    """The plan relationships ``(from, type, to[, ord])`` and the ids of the
    PendingItem nodes, as the graph holds them."""
    nodes, rels = await api.snapshot()
    found = []
    for rel in map(json.loads, rels):
        if rel["type"] in PLAN_LINKS:
            ord_ = [rel["props"]["ord"]] if "ord" in rel["props"] else []
            found.append((rel["start"], rel["type"], rel["end"], *ord_))
    pending = [props["id"] for labels, props in map(json.loads, nodes) if "PendingItem" in labels]
    return sorted(found), sorted(pending)


async def test_links_when_the_linking_record_comes_last(api: Api) -> None:
    a, _ = await api.create(), await api.create()
    parent = await make_intent(api)
    missing = new_id()
    intent = await make_intent(
        api, parentId=parent["id"], rootMemoryIds=[a["id"], missing, a["id"]]
    )
    task = await make_task(api, intent["id"], inputMemoryIds=[a["id"]], outputMemoryIds=[missing])
    sub = await make_task(api, intent["id"], parentId=task["id"])
    item = await api.create(intentId=intent["id"], taskId=task["id"])
    i, t, s, m = intent["id"], task["id"], sub["id"], item["id"]
    made = [(i, "SUBINTENT_OF", parent["id"]), (i, "ROOT", a["id"], 0), (i, "ROOT", a["id"], 2),
            (t, "FOR_INTENT", i), (t, "READS", a["id"], 0), (s, "FOR_INTENT", i),
            (s, "SUBTASK_OF", t), (m, "IN_INTENT", i), (m, "IN_TASK", t),
            (i, "ROOT", missing, 1), (t, "WROTE", missing, 0)]  # fmt: skip
    assert await links(api) == (sorted(made), [missing])  # the last two wait on a PendingItem
    await api.create(id=missing)  # the item the intent and the task waited for
    assert await links(api) == (sorted(made), [])


async def test_links_when_the_linked_record_comes_last(api: Api) -> None:
    intent_id, task_id = new_id(), new_id()
    item = await api.create(intentId=intent_id, taskId=task_id)
    child = await make_intent(api, parentId=intent_id)
    sub = await make_task(api, intent_id, parentId=task_id)
    assert await links(api) == ([], [])
    await make_intent(api, id=intent_id)
    await make_task(api, intent_id, id=task_id)
    i, t, s, m = intent_id, task_id, sub["id"], item["id"]
    assert await links(api) == (
        sorted([(child["id"], "SUBINTENT_OF", i), (s, "FOR_INTENT", i), (s, "SUBTASK_OF", t),
                (t, "FOR_INTENT", i), (m, "IN_INTENT", i), (m, "IN_TASK", t)]),
        [],
    )  # fmt: skip
    nested = await api.ok(
        "query($id: ID!) { intent(id: $id) { children { id } tasks { id children { id } } } }",
        id=i,
    )
    assert nested["intent"] == {
        "children": [{"id": child["id"]}],
        "tasks": [{"id": t, "children": [{"id": s}]}, {"id": s, "children": []}],  # id order
    }


async def test_a_record_naming_itself_links_once(api: Api) -> None:
    own = new_id()
    await make_intent(api, id=own, parentId=own)
    task_id = new_id()
    await make_task(api, own, id=task_id, parentId=task_id)
    assert await links(api) == (
        sorted([(own, "SUBINTENT_OF", own), (task_id, "FOR_INTENT", own),
                (task_id, "SUBTASK_OF", task_id)]),
        [],
    )  # fmt: skip


UPDATE_INTENT = f"""mutation($id: ID!, $p: IntentPatch!) {{ updateIntent(id: $id, patch: $p) {{
  intent {{ {INTENT} }} {EVENTS} }} }}"""
UPDATE_TASK = f"""mutation($id: ID!, $p: TaskPatch!) {{ updateTask(id: $id, patch: $p) {{
  task {{ {TASK} }} {EVENTS} }} }}"""


async def test_updates_relink_and_moves_do_not(api: Api) -> None:
    a, b = await api.create(), await api.create()
    missing, other = new_id(), new_id()
    first = await make_intent(api, rootMemoryIds=[a["id"], missing, other])
    second = await make_intent(api, rootMemoryIds=[other])
    task = await make_task(api, first["id"], inputMemoryIds=[missing], outputMemoryIds=[a["id"]])
    f, s, t = first["id"], second["id"], task["id"]
    await api.ok(UPDATE_INTENT, id=f, p={"rootMemoryIds": [b["id"]]})
    stays = [(s, "ROOT", other, 0), (t, "FOR_INTENT", f)]
    assert await links(api) == (
        sorted([*stays, (f, "ROOT", b["id"], 0), (t, "READS", missing, 0),
                (t, "WROTE", a["id"], 0)]),
        sorted([missing, other]),  # still awaited by the task and the second intent
    )  # fmt: skip
    await api.ok(UPDATE_TASK, id=t, p={"inputMemoryIds": None, "outputMemoryIds": [b["id"]]})
    before = await links(api)
    assert before == (sorted([*stays, (f, "ROOT", b["id"], 0), (t, "WROTE", b["id"], 0)]), [other])
    await move_task(api, "start", t)
    await api.ok(intent_move("pause"), id=f)
    assert await links(api) == before


# ---------------------------------------------------------------- MemEX update semantics


async def test_null_clears_and_absent_keeps(api: Api) -> None:
    item = await api.create()
    intent = await make_intent(
        api, description="d", context={"a": 1}, meta={"m": 1}, rootMemoryIds=[item["id"]]
    )
    clear = {"description": None, "context": None, "rootMemoryIds": None}
    got = await api.ok(UPDATE_INTENT, id=intent["id"], p=clear)
    changed = got["updateIntent"]["intent"]
    assert {k: changed[k] for k in [*clear, "meta", "label"]} == {
        **clear, "rootMemoryIds": [], "meta": {"m": 1}, "label": "find kati"}  # fmt: skip
    payload = got["updateIntent"]["events"][0]["payload"]["intent"]
    assert list(payload) == ["id", "label", "priority", "owner", "status", "meta"]
    assert await links(api) == ([], [])
    task = await make_task(api, intent["id"], label="l", context={"c": 1})
    got = await api.ok(UPDATE_TASK, id=task["id"], p={"label": None, "meta": {"x": 2}})
    assert {k: got["updateTask"]["task"][k] for k in ("label", "context", "meta")} == {
        "label": None, "context": {"c": 1}, "meta": {"x": 2}}  # fmt: skip
    refused = [(UPDATE_INTENT, intent["id"], {"label": None}),
               (UPDATE_INTENT, intent["id"], {"priority": None, "description": "x"}),
               (UPDATE_TASK, task["id"], {"priority": None})]  # fmt: skip
    for query, record_id, patch in refused:
        before = await api.snapshot()
        assert await api.codes(query, id=record_id, p=patch) == ["BAD_USER_INPUT"], patch
        assert await api.snapshot() == before


async def test_faithful_create_keeps_status_and_leaves_attempt_absent(api: Api) -> None:
    memex, origin = Memex(api.graph.store, Settings()), Origin()
    fields = {"label": "L", "priority": 0.5, "owner": "u", "status": "completed"}
    intent, _ = await memex.intents.create(fields, None, origin, faithful=True)
    assert intent.status == "completed"
    given = {"intent_id": intent.id, "action": "a", "priority": 0.5}
    running = {**given, "status": "running"}
    task, (event,) = await memex.tasks.create(running, None, origin, faithful=True)
    expected = {"id": task.id, **given, "status": "running"}
    assert task.json(TASK_KIND) == event.payload["task"] == expected  # no attempt, as MemEX
    plain, _ = await memex.tasks.create(given, None, origin, faithful=True)
    assert (plain.status, "attempt" in plain.data) == ("pending", False)
    default, _ = await memex.tasks.create(given, None, origin)
    assert (default.status, default.data["attempt"]) == ("pending", 0)
    before = await api.snapshot()
    for bad, faithful in [({**given, "status": "done"}, True), (running, False)]:
        with pytest.raises(BadUserInput, match="status"):
            await memex.tasks.create(bad, None, origin, faithful=faithful)
    assert await api.snapshot() == before
    started, _ = await memex.tasks.move(plain.id, "start", origin)
    assert started.data["attempt"] == 1  # an absent attempt counts as 0


async def test_faithful_update_changes_every_memex_field(api: Api) -> None:
    memex, origin = Memex(api.graph.store, Settings()), Origin()
    first, second = [
        (await memex.intents.create({"label": x, "priority": 0.5, "owner": "u"}, None, origin))[0]
        for x in "LM"
    ]
    given = {"intent_id": first.id, "action": "a", "priority": 0.5}
    parent, _ = await memex.tasks.create(given, None, origin)
    task, _ = await memex.tasks.create(given, None, origin)
    patch = {"intent_id": second.id, "parent_id": parent.id, "attempt": 3, "agent_id": "agent:x",
             "result": {"r": 1}, "error": "e", "status": "cancelled", "id": "ignored"}  # fmt: skip
    changed, (event,) = await memex.tasks.update(task.id, patch, origin, faithful=True)
    # every field replaced; id and status ignored, as MemEX ignores them
    assert changed.json(TASK_KIND) == event.payload["task"] == {
        "id": task.id, "intent_id": second.id, "parent_id": parent.id, "action": "a",
        "status": "pending", "priority": 0.5, "result": {"r": 1}, "error": "e",
        "agent_id": "agent:x", "attempt": 3}  # fmt: skip
    assert (task.id, "FOR_INTENT", second.id) in (await links(api))[0]
    assert (task.id, "SUBTASK_OF", parent.id) in (await links(api))[0]
    clear = {"parent_id": None, "result": None, "attempt": None}
    cleared, _ = await memex.tasks.update(task.id, clear, origin, faithful=True)
    assert {"parent_id", "result", "attempt"}.isdisjoint(cleared.data)
    assert [link for link in (await links(api))[0] if link[0] == task.id] == [
        (task.id, "FOR_INTENT", second.id)
    ]
    moved, _ = await memex.intents.update(first.id, {"owner": "user:b", "parent_id": second.id},
                                          origin, faithful=True)  # fmt: skip
    assert (moved.data["owner"], moved.data["parent_id"]) == ("user:b", second.id)
    before = await api.snapshot()
    refused = [(memex.tasks, task.id, {"intent_id": None}, True),
               (memex.intents, first.id, {"owner": None}, True),
               (memex.intents, first.id, {"owner": "user:c"}, False),  # not a patch field
               (memex.tasks, task.id, {"attempt": -1}, True),
               (memex.tasks, task.id, {"nope": 1}, True)]  # fmt: skip
    for commands, record_id, bad, faithful in refused:
        with pytest.raises(BadUserInput):
            await commands.update(record_id, bad, origin, faithful=faithful)
    assert await api.snapshot() == before


async def test_migration_links_existing_records(api: Api) -> None:
    """0006 makes, for records stored before it, the relationships the
    commands make; running it again changes nothing."""
    a = await api.create()
    missing = new_id()
    intent = await make_intent(api, rootMemoryIds=[a["id"], missing])
    child = await make_intent(api, parentId=intent["id"])
    task = await make_task(api, child["id"], inputMemoryIds=[missing], outputMemoryIds=[a["id"]])
    await make_task(api, child["id"], parentId=task["id"])
    await api.create(intentId=intent["id"], taskId=task["id"])
    linked = await links(api)
    assert (len(linked[0]), linked[1]) == (10, [missing])
    store = api.graph.store
    await store.write(
        "MATCH ()-[r:SUBINTENT_OF|FOR_INTENT|SUBTASK_OF|ROOT|READS|WROTE|IN_INTENT|IN_TASK]->() "
        "DELETE r",
        {},
    )
    await store.write("MATCH (w:PendingItem) DELETE w", {})
    await store.write("MATCH (m:Migration {version: 6}) DELETE m", {})
    assert await links(api) == ([], [])
    assert [m.version for m in await migrate(api.graph)] == [6]
    assert await links(api) == linked
    (migration,) = [m for m in discover(api.graph.backend) if m.version == 6]
    for statement in migration.statements():
        with contextlib.suppress(SchemaExists):  # its indexes: there already
            await store.execute_ddl(statement)
    assert await links(api) == linked
