"""Log retention: fold the history of items that stopped changing long ago.

The log keeps every event by default. ``memexd compact-log --older-than-days
N`` folds, for each item whose events are all older than N days, its
memory.updated events into its creation: the creation event becomes the item
node again (docs/events.md, "Retention", says what is lost). Items are taken
in log order, a batch per statement; each statement is atomic, so the command
can stop and run again at any point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memexd.graph import Graph
from memexd.ids import creation_event_id

__all__ = ["Folded", "compact_log"]

DAY_MS = 86_400_000
BATCH = 1_000


@dataclass(frozen=True, slots=True)
class Folded:
    """What a compaction did: items whose history it looked at, and folded."""

    seen: int = 0
    folded: int = 0


async def compact_log(
    graph: Graph,
    before_ms: int,
    *,
    batch: int = BATCH,
    progress: Callable[[Folded], None] | None = None,
) -> Folded:
    """Fold the history of every item whose events are all older than
    ``before_ms`` (milliseconds since the epoch)."""
    after, done = 0, Folded()
    while rows := await graph.read("log_compact_scan", {"after": after, "limit": batch}):
        after = int(rows[-1]["seq"])
        items = [{"id": r["id"], "event_id": creation_event_id(r["id"])} for r in rows]
        written = await graph.write("log_compact", {"items": items, "before": before_ms})
        done = Folded(done.seen + len(rows), done.folded + int(written[0]["folded"]))
        if progress is not None:
            progress(done)
    return done
