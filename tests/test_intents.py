"""Intents and tasks: records, lifecycle tables, events, links, grants."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memexd.ids import new_id
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
