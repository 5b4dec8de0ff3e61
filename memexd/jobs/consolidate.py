"""CONSOLIDATE (SPEC §13): items with the same content, kind and scope are
one memory.

Twins share a content key (:func:`memexd.memory.records.content_key`, stored
and indexed on every item). When some items the caller may write have none
(written before keys existed), a first pass over the items keys them, a page
a batch (a dry run counts them and leaves them out). Then it passes over the
items a page a batch: each live, unarchived item with an older live twin is a duplicate;
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
        if await run.graph.read("job_unkeyed_any"):
            await _key_waiting(run, totals)
        scan = await Scan.start(run)
        while not scan.done:
            row = await compare_and_set(lambda: _batch(run, scan), f"job {run.job.id}")
            scan.advance(row)
            totals["duplicates"] += len(row["pairs"])
            await run.step(0.5 + scan.progress / 2, dict(totals))
        return totals


async def _key_waiting(run: JobRun, totals: dict[str, int]) -> None:
    """The first pass: give the items without a content key theirs (a dry
    run counts them)."""
    scan = await Scan.start(run)
    while not scan.done:
        row = await scan.page("job_unkeyed", {"prefix": run.job.prefix}, write=False)
        scan.advance(row)
        waiting = row["unkeyed"]
        if waiting and not run.dry_run:
            keys = [[i, v, content_key(sc, k, json.loads(c))] for i, v, sc, k, c in waiting]
            await run.graph.write("job_keys_set", {"rows": keys})
        totals["unkeyed" if run.dry_run else "keyed"] += len(waiting)
        await run.step(scan.progress / 2, dict(totals))


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
