"""PATTERNS_EXTRACT (SPEC §13): what agents do again and again, learned from
task histories.

An intent's run is its tasks' actions in creation order. Every intent under
the job's scope prefix that the caller may read, whose tasks have all ended
(completed, failed or cancelled), is one run; runs of the same actions in the
same scope are one pattern, kept when at least ``minCount`` intents (2)
share it and it has at least ``minLength`` steps (2). A run succeeded when
every task of it completed. Each pattern is a ``pattern`` item in its scope
(PROJECT, tagged ``pattern``; authority: its success rate), its content::

    {"pattern_type": "task_sequence",
     "steps": [{"action": "search", "order": 0}, {"action": "summarize", "order": 1}],
     "execution_count": 3, "success_rate": 0.67, "intent_ids": ["…", …]}

``meta.pattern_key`` (a hash of the scope and the actions) finds it again: a
later run updates a pattern whose counts changed (``updateItem``: the log
keeps its history) and creates the new ones, in batches of
``MEMEXD_MAX_BATCH``. A dry run reports the patterns it would write.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from memexd.events.vocabulary import Origin
from memexd.jobs.params import known, number
from memexd.jobs.run import JobRun
from memexd.memory.filters import MemoryFilter
from memexd.memory.model import ItemPatch, NewItem
from memexd.types import JSONObject

__all__ = ["PatternsExtract"]

KIND = "pattern"
ENDED = ("completed", "failed", "cancelled")
#: Intents a pattern names, at most (as examples).
EXAMPLES = 10
#: Intents read a round trip.
PAGE = 500


@dataclass(slots=True)
class _Pattern:
    scope: str
    actions: tuple[str, ...]
    intents: list[str] = field(default_factory=list)
    succeeded: int = 0

    @property
    def key(self) -> str:
        raw = orjson.dumps([self.scope, list(self.actions)])
        return hashlib.sha256(raw).hexdigest()

    def content(self) -> JSONObject:
        return {"pattern_type": "task_sequence",
                "steps": [{"action": a, "order": k} for k, a in enumerate(self.actions)],
                "execution_count": len(self.intents),
                "success_rate": round(self.succeeded / len(self.intents), 4),
                "intent_ids": self.intents[:EXAMPLES]}  # fmt: skip


class PatternsExtract:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("minCount", "minLength"))
        number(checked, "minCount", 1, 1_000_000)
        number(checked, "minLength", 1, 1_000)
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        found = await _runs(run)
        least = int(run.params.get("minCount", 2))
        shortest = int(run.params.get("minLength", 2))
        kept = [p for p in found.values()
                if len(p.intents) >= least and len(p.actions) >= shortest]  # fmt: skip
        result: JSONObject = {"intents": sum(len(p.intents) for p in found.values()),
                              "patterns": len(kept), "created": 0, "updated": 0}  # fmt: skip
        if not run.dry_run:
            await _store(run, kept, result)
        return result


async def _runs(run: JobRun) -> dict[tuple[str, tuple[str, ...]], _Pattern]:
    """Every finished run, grouped by scope and actions."""
    found: dict[tuple[str, tuple[str, ...]], _Pattern] = {}
    after = ""
    while True:
        rows = await run.graph.read("job_intent_runs", {"after": after, "limit": PAGE,
                                                        "prefix": run.job.prefix})  # fmt: skip
        for row in rows:
            actions, statuses = tuple(row["actions"]), list(row["statuses"])
            if not actions or not all(s in ENDED for s in statuses):
                continue
            group = found.setdefault((row["scope"], actions), _Pattern(row["scope"], actions))
            group.intents.append(row["id"])
            group.succeeded += all(s == "completed" for s in statuses)
        await run.step(0.5, {"intents": sum(len(p.intents) for p in found.values())})
        if len(rows) < PAGE:
            return found
        after = rows[-1]["id"]


async def _store(run: JobRun, patterns: list[_Pattern], result: JSONObject) -> None:
    """Create the new patterns and update those whose counts changed."""
    origin, memex = Origin(cause_id=run.job.id), run.memex
    fresh: list[NewItem] = []
    for done, p in enumerate(patterns, 1):
        held = await memex.item_reads.find(
            MemoryFilter(scope=p.scope, kind=KIND, meta={"pattern_key": p.key}), limit=1
        )
        if not held:
            fresh.append(_draft(run, p))
        elif held[0].content != p.content():
            await memex.items.update(held[0].id, ItemPatch(content=p.content(),
                                     authority=_rate(p)), run.job.author,
                                     "patterns extracted again", None, origin)  # fmt: skip
            result["updated"] += 1
        if len(fresh) >= run.limits.max_batch or done == len(patterns):
            if fresh:
                await memex.items.create(fresh, origin)
                result["created"] += len(fresh)
                fresh = []
            await run.step(0.5 + 0.5 * done / len(patterns), dict(result))


def _draft(run: JobRun, p: _Pattern) -> NewItem:
    return NewItem(scope=p.scope, kind=KIND, content=p.content(), author=run.job.author,
                   source_kind="pattern_extract", authority=_rate(p),
                   meta={"pattern_key": p.key}, lifecycle="PROJECT",
                   tags=["pattern"])  # fmt: skip


def _rate(p: _Pattern) -> float:
    return round(p.succeeded / len(p.intents), 4)
