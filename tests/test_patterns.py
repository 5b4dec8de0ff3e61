"""PATTERNS_EXTRACT (SPEC §13): repeated sequences of task actions per
intent become pattern items with their counts and success rates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import Api
from tests.test_jobs import drain, job, status, worker

RUN = "mutation($i: JobInput!) { runJob(input: $i) { id } }"
INTENT = """mutation($scope: String) { createIntent(input: {label: "l", priority: 0.5,
  owner: "o", scope: $scope}) { intent { id } } }"""
TASK = """mutation($i: ID!, $a: String!) { createTask(input: {intentId: $i, action: $a,
  priority: 0.5}) { task { id } } }"""
START = "mutation($id: ID!) { startTask(id: $id) { task { id } } }"
END = {
    "completed": "mutation($id: ID!) { completeTask(id: $id) { task { id } } }",
    "failed": 'mutation($id: ID!) { failTask(id: $id, error: "e") { task { id } } }',
}
PATTERNS = """query($s: String) { items(filter: {kind: "pattern", scope: $s}) {
  id scope content authority tags lifecycle } }"""


async def intent(api: Api, actions: list[str], ends: list[str] | None = None,
                 scope: str = "p/") -> str:  # fmt: skip
    """An intent whose tasks did ``actions`` and ended as ``ends`` (all
    completed unless given; None in it: still running)."""
    made = (await api.ok(INTENT, scope=scope))["createIntent"]["intent"]["id"]
    for action, end in zip(actions, ends or ["completed"] * len(actions), strict=True):
        task = (await api.ok(TASK, i=made, a=action))["createTask"]["task"]["id"]
        await api.ok(START, id=task)
        if end is not None:
            await api.ok(END[end], id=task)
    return str(made)


async def extract(api: Api, tmp_path: Path, **fields: Any) -> dict[str, Any]:
    queued = (await api.ok(RUN, i=job("PATTERNS_EXTRACT", **fields)))["runJob"]
    await drain(worker(api, tmp_path))
    done: dict[str, Any] = await status(api, queued["id"])
    assert done["status"] == "COMPLETED", done
    return done


async def test_repeated_runs_become_patterns(api: Api, tmp_path: Path) -> None:
    runs = [await intent(api, ["search", "summarize"]) for _ in range(2)]
    runs.append(await intent(api, ["search", "summarize"], ["completed", "failed"]))
    await intent(api, ["search", "write"])  # once only
    await intent(api, ["search", "summarize"], ["completed", None])  # still running
    await intent(api, ["search", "summarize"], scope="q/")  # another scope, once
    done = await extract(api, tmp_path)
    assert done["result"] == {"intents": 5, "patterns": 1, "created": 1, "updated": 0}
    (pattern,) = (await api.ok(PATTERNS, s="p/"))["items"]
    assert pattern["content"]["steps"] == [{"action": "search", "order": 0},
                                           {"action": "summarize", "order": 1}]  # fmt: skip
    assert pattern["content"]["execution_count"] == 3
    assert pattern["content"]["success_rate"] == round(2 / 3, 4)
    assert sorted(pattern["content"]["intent_ids"]) == sorted(runs)
    assert pattern["authority"] == round(2 / 3, 4)
    assert (pattern["tags"], pattern["lifecycle"]) == (["pattern"], "PROJECT")

    # again, one more run: the same item, updated; nothing new
    await intent(api, ["search", "summarize"])
    again = await extract(api, tmp_path)
    assert again["result"]["created"] == 0
    assert again["result"]["updated"] == 1
    (updated,) = (await api.ok(PATTERNS, s="p/"))["items"]
    assert updated["id"] == pattern["id"]
    assert updated["content"]["execution_count"] == 4
    unchanged = await extract(api, tmp_path)
    assert unchanged["result"]["updated"] == 0


async def test_pattern_params_and_dry_runs(api: Api, tmp_path: Path) -> None:
    await intent(api, ["plan"])
    await intent(api, ["plan"])
    dry = await extract(api, tmp_path, dryRun=True, params={"minLength": 1})
    assert dry["result"]["patterns"] == 1
    assert dry["result"]["created"] == 0
    assert (await api.ok(PATTERNS, s=None))["items"] == []
    assert (await extract(api, tmp_path))["result"]["patterns"] == 0  # one step: too short
    done = await extract(api, tmp_path, params={"minLength": 1, "minCount": 3})
    assert done["result"]["patterns"] == 0


async def test_patterns_follow_the_callers_grants(api: Api, tmp_path: Path) -> None:
    for scope in ("p/", "p/", "q/", "q/"):
        await intent(api, ["a", "b"], scope=scope)
    tenant = api.with_grants("write:p/")
    queued = (await tenant.ok(RUN, i=job("PATTERNS_EXTRACT")))["runJob"]
    await drain(worker(api, tmp_path))
    done = await tenant.ok("query($id: ID!) { job(id: $id) { result } }", id=queued["id"])
    assert done["job"]["result"]["patterns"] == 1
    admin = api.with_grants("read:")
    assert [p["scope"] for p in (await admin.ok(PATTERNS, s=None))["items"]] == ["p/"]
