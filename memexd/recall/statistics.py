"""The statistics BM25 needs, of what one caller may find with one filter.

A word's weight depends on how many items hold it, among how many. Counted
over every item in the store (as Lucene's own scores count them), one
tenant's texts would change the order another tenant's recall sees. So the
statistics are of the live items the caller can read that match the
recall's filter, nothing else: how many there are (up to :data:`COUNT_CAP`),
their average length and how often each term appears in a sample of up to
:data:`SAMPLE` of them (all of them when there are fewer). Reading the
sample costs a scan, so each (grants, filter) pair's statistics are kept
for :data:`TTL` seconds, at most :data:`KEPT` pairs per process: a recall
that follows a write within that time may weigh words by slightly older
counts, never miss the item (the items themselves always come from the
index at once).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass

from memexd.graph import Fragment, Graph
from memexd.recall.bm25 import terms
from memexd.recall.model import stored_text

__all__ = ["COUNT_CAP", "KEPT", "SAMPLE", "TTL", "Sample", "Statistics"]

#: Items counted at most (past this a word's rarity hardly changes).
COUNT_CAP = 100_000
#: Items whose terms are counted for lengths and common words' frequencies.
SAMPLE = 2_000
#: Seconds a (grants, filter) pair's statistics are kept.
TTL = 30.0
#: (grants, filter) pairs kept per process.
KEPT = 256


@dataclass(frozen=True, slots=True)
class Sample:
    #: live readable items matching the filter (up to COUNT_CAP)
    items: int
    #: items in the sample
    size: int
    average_length: float
    #: in how many of the sample's items each term appears
    frequencies: Counter[str]

    def estimate(self, term: str) -> int:
        """How many of all the items hold ``term``, from the sample."""
        if not self.size:
            return 0
        return round(self.frequencies.get(term, 0) * self.items / self.size)


class Statistics:
    """Per-process memory of each (grants, filter) pair's :class:`Sample`."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[float, Sample]] = OrderedDict()

    async def of(self, graph: Graph, where: Fragment) -> Sample:
        key = json.dumps([graph.access.read, where.text, where.params], sort_keys=True,
                         default=str)  # fmt: skip
        kept = self._kept.get(key)
        if kept is not None and time.monotonic() - kept[0] < TTL:
            self._kept.move_to_end(key)
            return kept[1]
        sample = await _measure(graph, where)
        self._kept[key] = (time.monotonic(), sample)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return sample


async def _measure(graph: Graph, where: Fragment) -> Sample:
    counted, sampled = await asyncio.gather(
        graph.read("recall_text_collection", {"cap": COUNT_CAP}, filter=where),
        graph.read("recall_text_sample", {"size": SAMPLE}, filter=where),
    )
    lengths, frequencies = 0, Counter[str]()
    for row in sampled:
        words = terms(stored_text(row["content"]))
        lengths += len(words)
        frequencies.update(set(words))
    size = len(sampled)
    items = max(int(counted[0]["items"]), size)
    return Sample(items, size, lengths / size if size else 0.0, frequencies)
