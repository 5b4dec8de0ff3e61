"""Recall's text side: which items the cue's words find, ranked by BM25.

The full-text index finds the items holding each of the cue's words, one
word per query: its matches are counted up to ``COMMON + 1`` (the index
yields them one by one, so counting stops there) and the live ones the
caller can read that match the filter are returned. A word with at most
``COMMON`` matches is rare: its readable matches are all of them, and their
number is its exact document frequency. A common word (more matches) is
weighed by its frequency in the caller's sample
(:mod:`memexd.recall.statistics`), and only its first ``COMMON`` matches are
candidates: an item holding common words only ranks low anyway.

A hit's text score is its BM25 score over the highest the cue could reach
(:func:`~memexd.recall.bm25.ceiling`): the share of the cue's weight the
item holds, 0 to 1, comparable from cue to cue.

Every candidate gets a first, cheap score: the idf of each cue word whose
matches hold it. The ``CANDIDATES`` best are read and scored by BM25
(:mod:`memexd.recall.bm25`) on their own terms: how often each word appears
and how long the item is. A BM25 score is that idf sum scaled by per-word
factors between 0 and 2.2, so the pool's best are among the idf sum's best.
Nothing here counts an item the caller cannot read: the ranking a caller
sees depends on what it may read only.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memexd.graph import Fragment, Graph
from memexd.memory.text import MAX_WORD
from memexd.recall.bm25 import Collection, bm25, ceiling, idf, stem, terms, words
from memexd.recall.fusion import Candidate
from memexd.recall.model import stored_text
from memexd.recall.statistics import Sample, Statistics

__all__ = ["CANDIDATES", "COMMON", "MAX_WORDS", "Matches", "cue_terms", "text_candidates"]

#: Items a word may match and still be rare.
COMMON = 2_000
#: Candidates read and scored by BM25.
CANDIDATES = 300
#: Terms of the cue the text side looks for.
MAX_WORDS = 32


def cue_terms(cue: str) -> dict[str, str]:
    """The cue's distinct terms (stemmed), each with a word that says it."""
    found: dict[str, str] = {}
    for word in words(cue):
        if len(word) <= MAX_WORD:
            found.setdefault(stem(word), word)
    return dict(list(found.items())[:MAX_WORDS])


@dataclass(frozen=True, slots=True)
class Matches:
    #: the index's matches, counted up to COMMON + 1
    counted: int
    #: the live ones the caller can read that match the filter
    ids: list[str]

    @property
    def rare(self) -> bool:
        return self.counted <= COMMON


async def text_candidates(
    graph: Graph, cue: str, where: Fragment, pool: int, statistics: Statistics
) -> list[Candidate]:
    """Up to ``pool`` items the cue's words find, best first."""
    said = cue_terms(cue)
    if not said:
        return []
    found, sample = await asyncio.gather(
        asyncio.gather(*(_matches(graph, where, word) for word in said.values())),
        statistics.of(graph, where),
    )
    matches = dict(zip(said, found, strict=True))
    collection = _collection(matches, sample)
    ranked = await _scored(graph, _shortlist(matches, collection), list(said), collection)
    top = ceiling(said, collection) or 1.0
    return [Candidate(i, score / top, rank) for rank, (i, score) in enumerate(ranked[:pool], 1)]


async def _matches(graph: Graph, where: Fragment, word: str) -> Matches:
    row = (await graph.read("recall_text_matches", {"word": word, "cap": COMMON + 1},
                            filter=where))[0]  # fmt: skip
    return Matches(int(row["matches"]), [i for i in row["ids"] if i is not None])


def _collection(matches: Mapping[str, Matches], sample: Sample) -> Collection:
    """The statistics BM25 weighs the cue's terms by: a rare term's exact
    frequency, a common one's from the sample (at least its readable matches
    seen)."""
    frequencies = {
        term: len(m.ids) if m.rare else max(len(m.ids), sample.estimate(term))
        for term, m in matches.items()
    }
    items = max([sample.items, *frequencies.values()])
    return Collection(items, sample.average_length, frequencies)


def _shortlist(matches: Mapping[str, Matches], collection: Collection) -> list[str]:
    """The ``CANDIDATES`` ids whose matched terms' idf add up highest."""
    first: dict[str, float] = {}
    for term, m in matches.items():
        weight = idf(collection.items, collection.df(term))
        for item_id in m.ids:
            first[item_id] = first.get(item_id, 0.0) + weight
    return [i for i, _ in sorted(first.items(), key=lambda p: (-p[1], p[0]))[:CANDIDATES]]


async def _scored(
    graph: Graph, ids: list[str], cue: Sequence[str], collection: Collection
) -> list[tuple[str, float]]:
    rows = await graph.read("recall_text_contents", {"ids": ids}) if ids else []
    scored = []
    for row in rows:
        words = terms(stored_text(row["content"]))
        scored.append((row["id"], bm25(cue, Counter(words), len(words), collection)))
    return sorted(scored, key=lambda p: (-p[1], p[0]))
