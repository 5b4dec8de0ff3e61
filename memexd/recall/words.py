"""Recall's text side: the cue's words, and which items they find.

Scoring every item a word matches costs time in proportion to its matches:
a cue holding one word found in 90% of 100,000 items took 90 ms on the text
side alone. So each cue word's matches are first counted up to ``COMMON``
(the index yields matches one by one, so counting stops there), and:

- words in at most ``COMMON`` items (rare) must match: an item holds at least
  one of them; the common ones add to its score only. The index then reads
  at most ``len(words) * COMMON`` matches. A rare word no item the caller can
  read holds is left out, as if no item held it;
- when every word is common, an item must hold every one of them, and when
  fewer than the pool do, any of them. Either way at most ``SCAN`` matches
  are ranked: FalkorDB's first (its order is oldest first), Neo4j's best
  (Lucene ranks them all, in the index).

Grants and filters are checked on the best ``BEST_MATCHES`` of a form's
matches, then on all of them when they leave too few (no post-filter
starvation within a form). Whether a word is common counts every item,
readable or not, as the index's own word statistics (IDF) do: what a caller
can learn from it is that some 2,000 items hold a word, never which.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from memexd.graph import Fragment, Graph
from memexd.memory.text import MAX_WORD
from memexd.recall.fusion import Candidate

__all__ = ["ALL_MATCHES", "BEST_MATCHES", "COMMON", "MAX_WORDS", "SCAN", "STOP_WORDS", "cue_words",
           "text_candidates"]  # fmt: skip

#: Items a word may match and still be one that must match.
COMMON = 2_000
#: Matches read from the index at most when every cue word is common.
SCAN = 5_000
#: Best text matches checked against grants and filter before all are.
BEST_MATCHES = 500
#: Every match: FalkorDB reads LIMIT as 32 bits (2^32 would be LIMIT 0).
ALL_MATCHES = 2**31 - 1
#: Words of the cue the text side looks for.
MAX_WORDS = 32
_WORD = re.compile(r"\w+")
#: Words too common to mean anything: Lucene's English stop set, which Neo4j's
#: analyzer drops; FalkorDB's index keeps them, so recall drops them for both.
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "  # noqa: SIM905
    "then there these they this to was will with".split()
)


def cue_words(cue: str) -> list[str]:
    """The cue's distinct words, lower case, stop words and overlong ones left out."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(cue) if w != "_")
    return [w for w in words if len(w) <= MAX_WORD and w not in STOP_WORDS][:MAX_WORDS]


async def text_candidates(graph: Graph, cue: str, where: Fragment, pool: int) -> list[Candidate]:
    """Up to ``pool`` items the cue's words find, best first."""
    words = cue_words(cue)
    counts = dict(zip(words, await asyncio.gather(*map(partial(_matches, graph), words)),
                      strict=True))  # fmt: skip
    common = {word for word, (matches, _) in counts.items() if matches > COMMON}
    found = [word for word, (_, readable) in counts.items() if readable or word in common]
    best: list[Any] = []
    for params in _attempts(found, common) if found else ():
        rows = await graph.read("recall_text", {**params, "limit": pool}, filter=where)
        best = rows if len(rows) > len(best) else best
        if len(best) >= pool:
            break
    return [Candidate(row["id"], float(row["score"]), rank) for rank, row in
            enumerate(best, 1)]  # fmt: skip


async def _matches(graph: Graph, word: str) -> tuple[int, int]:
    """Items holding ``word`` (up to ``COMMON + 1``), and how many of those
    the caller can read."""
    row = (await graph.read("recall_text_matches", {"word": word, "cap": COMMON + 1}))[0]
    return int(row["matches"]), int(row["found"])


def _attempts(words: list[str], common: set[str]) -> Iterator[dict[str, Any]]:
    """The forms and bounds to try, in order, until one fills the pool. Asking
    again with every match checked costs much only when there are many, which
    is when grants or a filter left too few of the best."""
    rare = [w for w in words if w not in common]
    if rare:
        optional = [w for w in words if w in common]
        forms = [{"required": rare, "every": False, "optional": optional, "scan": ALL_MATCHES}]
    else:
        forms = [{"required": words, "every": every, "optional": [], "scan": SCAN}
                 for every in (True, False)]  # fmt: skip
    for form in forms:
        yield {**form, "k": BEST_MATCHES}
        yield {**form, "k": ALL_MATCHES}
