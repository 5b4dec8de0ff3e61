"""DECAY_UPDATE (SPEC §13): store every item's decay score.

Each batch is one page of a scan over the items (``cypher/job_decay``): the
live ones under the job's scope prefix that its caller may write get their
decay score at the job's start time stored as ``decay_stored`` (indexed),
with ``decay_at``. A derived value, as an embedding is: no event. The result
counts the items scored and how many fall under the archival (0.1) and
cleanup (0.2) thresholds; a dry run counts the same and stores nothing.

params: ``halfLifeMs`` (the server's half-life unless given).
"""

from __future__ import annotations

from typing import Any

from memexd.jobs.params import known, number
from memexd.jobs.run import JobRun, now_ms
from memexd.jobs.scan import Scan
from memexd.types import JSONObject

__all__ = ["DecayUpdate"]


class DecayUpdate:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("halfLifeMs",))
        number(checked, "halfLifeMs", 1.0, 1e15)
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        half_life = run.params.get("halfLifeMs") or run.limits.decay_half_life_ms
        at = now_ms()
        totals = {"scored": 0, "belowArchive": 0, "belowCleanup": 0}
        scan = await Scan.start(run)
        while not scan.done:
            row = await scan.page("job_decay", {"prefix": run.job.prefix, "now": at,
                                                "half_life": float(half_life),
                                                "dry": run.dry_run})  # fmt: skip
            scan.advance(row)
            totals["scored"] += int(row["matched"])
            totals["belowArchive"] += int(row["below_archive"])
            totals["belowCleanup"] += int(row["below_cleanup"])
            await run.step(scan.progress, {**totals, "at": at, "halfLifeMs": half_life})
        return {**totals, "at": at, "halfLifeMs": half_life}
