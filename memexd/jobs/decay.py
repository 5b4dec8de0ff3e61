"""DECAY_UPDATE (SPEC §13): store every item's decay score.

Each batch is one page of a scan over the items: the live ones under the
job's scope prefix that its caller may write are scored at the job's start
time by a read (``cypher/job_decay_scores``), and those whose stored score is
missing or :data:`TOLERANCE` away from it are stored as ``decay_stored``
(indexed), with ``decay_at``, by a write that only seeks and sets
(``cypher/job_decay_store``), :data:`WRITE_CHUNK` at a time with the job's
pauses between: the graph's write lock, which readers wait for, is held for
that alone and briefly. A stored score is always the score at its
``decay_at``. A derived value, as an embedding is: no event. The result
counts the items scored, those stored, and how many fall under the archival
(0.1) and cleanup (0.2) thresholds; a dry run counts the same and stores
nothing.

params: ``halfLifeMs`` (the server's half-life unless given).
"""

from __future__ import annotations

from typing import Any

from memexd.jobs.params import known, number
from memexd.jobs.run import JobRun, now_ms
from memexd.jobs.scan import Scan
from memexd.types import JSONObject

__all__ = ["TOLERANCE", "DecayUpdate"]

#: A stored score this close to the new one is left as it is.
TOLERANCE = 0.001
#: Scores stored a statement: readers wait for each (FalkorDB's write lock),
#: so a page's writes go in short statements with pauses between.
WRITE_CHUNK = 50


class DecayUpdate:
    def check(self, params: Any) -> JSONObject:
        checked = known(params, ("halfLifeMs",))
        number(checked, "halfLifeMs", 1.0, 1e15)
        return checked

    async def run(self, run: JobRun) -> JSONObject:
        half_life = run.params.get("halfLifeMs") or run.limits.decay_half_life_ms
        at = now_ms()
        totals = {"scored": 0, "stored": 0, "belowArchive": 0, "belowCleanup": 0}
        scan = await Scan.start(run)
        while not scan.done:
            asked = {"prefix": run.job.prefix, "now": at, "half_life": float(half_life),
                     "tolerance": TOLERANCE}  # fmt: skip
            row = await scan.page("job_decay_scores", asked, write=False)
            moved = [m for m in row["moved"] if m is not None]
            for start in range(0, 0 if run.dry_run else len(moved), WRITE_CHUNK):
                if start:
                    await run.breathe()
                chunk = {"rows": moved[start : start + WRITE_CHUNK], "now": at}
                stored = await run.graph.write("job_decay_store", chunk)
                totals["stored"] += int(stored[0]["stored"])
            scan.advance(row)
            totals["scored"] += int(row["matched"])
            totals["belowArchive"] += int(row["below_archive"])
            totals["belowCleanup"] += int(row["below_cleanup"])
            await run.step(scan.progress, {**totals, "at": at, "halfLifeMs": half_life})
        return {**totals, "at": at, "halfLifeMs": half_life}
