"""CLEANUP (SPEC §13): purge what no one will miss.

Items archived or retracted, created more than ``olderThanDays`` days ago
(30 unless given), whose decay score is under ``maxDecay`` (0.2 unless
given), and not tagged ``pinned``, are deleted for good: the node, its typed
edges, every link, and the memory.* events whose payloads held its content.
The log keeps one ``memory.purged`` event per item with its id, scope, kind
and creation time, never its content; the feed delivers it. Children that
named a purged item as a parent wait for it as for a parent never created
(walks report it missing; restoring an archive that holds it links them
back). Each page of the scan is one statement at the versions read (a page
that lost a race is read again). Purging is new to memexd: everything else
only ever marks.

Result: ``purged`` (or, on a dry run, that would be), ``cutoff`` (epoch ms).
"""

from __future__ import annotations

from typing import Any

from memexd.concurrency import compare_and_set
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Origin, Why, event_props
from memexd.jobs.params import known, number
from memexd.jobs.run import JobRun, now_ms
from memexd.jobs.scan import Scan
from memexd.memory.records import item_from_row
from memexd.types import JSONObject, Row

__all__ = ["Cleanup"]

DAY_MS = 86_400_000
DEFAULT_DAYS = 30.0
DEFAULT_MAX_DECAY = 0.2


class Cleanup:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("olderThanDays", "maxDecay"))
        number(checked, "olderThanDays", 0.0, 36_500.0)
        number(checked, "maxDecay", 0.0, 10.0)
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        at = now_ms()
        days = run.params.get("olderThanDays", DEFAULT_DAYS)
        asked = {
            "prefix": run.job.prefix, "cutoff": at - int(days * DAY_MS), "now": at,
            "threshold": float(run.params.get("maxDecay", DEFAULT_MAX_DECAY)),
            "half_life": float(run.limits.decay_half_life_ms),
        }  # fmt: skip
        totals: JSONObject = {"purged": 0, "cutoff": asked["cutoff"]}
        scan = await Scan.start(run)
        while not scan.done:
            row = await compare_and_set(lambda: _batch(run, scan, asked), f"job {run.job.id}")
            scan.advance(row)
            totals["purged"] += len(row["doomed"])
            await run.step(scan.progress, dict(totals))
        return totals


async def _batch(run: JobRun, scan: Scan, asked: dict[str, Any]) -> Row | None:
    row = await scan.page("job_purgeable", asked, write=False)
    doomed = [item_from_row(r) for r in row["doomed"]]
    if run.dry_run or not doomed:
        return row
    why = Why(run.job.author, f"purged by CLEANUP (job {run.job.id})")
    origin = Origin(cause_id=run.job.id)
    written = await run.graph.write("job_purge", {
        "rows": [{"id": i.id, "version": int(r["version"])} for i, r in zip(doomed, row["doomed"],
                                                                           strict=True)],
        "events": [event_props(ev.memory_purged(i, origin, why)) for i in doomed]})  # fmt: skip
    return row if written and int(written[0]["purged"]) == len(doomed) else None
