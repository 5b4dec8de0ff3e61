"""CONSOLIDATE (SPEC §13): items with the same content, kind and scope are
one memory.

Twins share a content key (:func:`memexd.memory.records.content_key`, stored
and indexed on every item). Items written before keys existed wait under the
``Unkeyed`` label; a run keys those its caller may write first (a dry run
counts them and leaves them out). Then it passes over the items a page a
batch: each live, unarchived item with an older live twin is a duplicate;
the oldest twin is kept and gets a ``SUPERSEDES`` edge to it, and the
duplicate is archived (never deleted), with the edge.created and
memory.archived events, in one statement per page at the versions read (a
page that lost a race is read again). A duplicate whose keeper already has
such an edge is only archived.

params: none. Result: ``duplicates`` (archived, or that would be),
``keyed`` (items given a key first), ``unkeyed`` (left out by a dry run).
"""

from __future__ import annotations

import json
from typing import Any

from memexd.concurrency import compare_and_set
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Origin, Why, event_props
from memexd.jobs.params import known
from memexd.jobs.run import JobRun, now_ms
from memexd.jobs.scan import Scan
from memexd.memory.edges import edge_key
from memexd.memory.model import NewEdge
from memexd.memory.records import content_key, edge_props, item_from_row
from memexd.memory.validation import new_edge
from memexd.types import JSONObject, Row

__all__ = ["Consolidate"]

EDGE_KIND = "SUPERSEDES"


class Consolidate:
    def check(self, params: Any) -> JSONObject:
        return known(params, ())

    async def run(self, run: JobRun) -> JSONObject:
        totals = {"duplicates": 0, "keyed": 0, "unkeyed": 0}
        if run.dry_run:
            rows = await run.graph.read("job_unkeyed_count")
            totals["unkeyed"] = int(rows[0]["waiting"]) if rows else 0
        else:
            totals["keyed"] = await _key_waiting(run)
        scan = await Scan.start(run)
        while not scan.done:
            row = await compare_and_set(lambda: _batch(run, scan), f"job {run.job.id}")
            scan.advance(row)
            totals["duplicates"] += len(row["pairs"])
            await run.step(scan.progress, dict(totals))
        return totals


async def _key_waiting(run: JobRun) -> int:
    """Give every waiting item the caller may write its content key."""
    keyed = 0
    while True:
        rows = await run.graph.read("job_unkeyed", {"limit": run.batch})
        if not rows:
            return keyed
        stored = [
            [r["id"], r["version"], content_key(r["scope"], r["kind"], json.loads(r["content"]))]
            for r in rows
        ]
        await run.graph.write("job_keys_set", {"rows": stored})
        keyed += len(rows)
        await run.step(0.0, {"duplicates": 0, "keyed": keyed, "unkeyed": 0})


async def _batch(run: JobRun, scan: Scan) -> Row | None:
    """One page: find its duplicates, and (unless a dry run) consolidate
    them. None: the page changed since it was read."""
    row = await scan.page("job_duplicates", {"prefix": run.job.prefix}, write=False)
    pairs = row["pairs"]
    if run.dry_run or not pairs:
        return row
    written = await run.graph.write("job_consolidate", _params(run, pairs))
    # the statement counts what it archived (an aggregation always returns a
    # row): none when its guard found the page changed
    return row if written and int(written[0]["archived"]) == len(pairs) else None


def _params(run: JobRun, pairs: list[Row]) -> dict[str, Any]:
    why = Why(run.job.author, f"consolidated into its oldest twin (job {run.job.id})")
    origin = Origin(cause_id=run.job.id)
    shaped: list[dict[str, Any]] = []
    edges: list[dict[str, Any] | None] = []
    events: list[dict[str, Any]] = []
    for pair in pairs:
        dup, keeper = item_from_row(pair["dup"]), item_from_row(pair["keeper"])
        shaped.append({"dup": dup.id, "version": int(pair["dup"]["version"]),
                       "keeper": keeper.id, "at": len(events)})  # fmt: skip
        if pair["linked"]:
            edges.append(None)
        else:
            edge = new_edge(NewEdge(from_id=keeper.id, to_id=dup.id, kind=EDGE_KIND,
                                    author=run.job.author, source_kind="consolidation",
                                    authority=keeper.authority), run.limits)  # fmt: skip
            edges.append({"props": edge_props(edge), "key": edge_key(edge)})
            events.append(event_props(ev.edge_created(edge, origin, scopes=(dup.scope, dup.scope),
                                                      why=why)))  # fmt: skip
        events.append(event_props(ev.memory_archived(dup, origin, why, True)))
    return {"pairs": shaped, "edges": edges, "events": events, "now": now_ms()}
