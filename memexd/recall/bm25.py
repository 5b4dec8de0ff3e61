"""BM25: how recall's text side ranks the items a cue's words find.

The engines' full-text indexes find the items (FalkorDB's RediSearch and
Neo4j's Lucene, both stemming English words and dropping the same stop
words), but their scores are not one ranking: FalkorDB's does not add up the
words an item holds, and Lucene's counts every item in the index, readable
or not. So memexd scores the items itself, the same way on both engines:
Okapi BM25 with Lucene's parameters (k1 = 1.2, b = 0.75) and idf
``ln(1 + (N - df + 0.5) / (df + 0.5))``, over terms made here (words of
letters and digits, lower case, Lucene's English stop words dropped,
Snowball's English stemmer), from :class:`Collection` statistics of the
items the caller can read that match the filter only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

__all__ = [
    "K1",
    "STOP_WORDS",
    "B",
    "Collection",
    "bm25",
    "ceiling",
    "idf",
    "stem",
    "terms",
    "words",
]

K1 = 1.2
B = 0.75
#: Lucene's English stop set, which Neo4j's analyzer drops, and RediSearch's
#: default list, which FalkorDB's drops: the same 33 words.
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "  # noqa: SIM905
    "then there these they this to was will with".split()
)
_WORD = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A word's stem (Snowball's English stemmer)."""
    stemmed: str = _STEMMER.stemWord(word)
    return stemmed


def words(text: str) -> list[str]:
    """``text``'s words, in order: letters and digits, lower case, stop words out."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def terms(text: str) -> list[str]:
    """``text``'s terms: its words, stemmed."""
    return [stem(w) for w in words(text)]


@dataclass(frozen=True, slots=True)
class Collection:
    """What BM25 knows of the items ranked among: how many there are, their
    average length in terms, and in how many of them each term appears."""

    items: int
    average_length: float
    frequencies: Mapping[str, int]

    def df(self, term: str) -> int:
        return self.frequencies.get(term, 0)


def idf(documents: int, frequency: int) -> float:
    """Lucene's idf: never negative, highest for the rarest term."""
    frequency = min(frequency, documents)
    return math.log(1.0 + (documents - frequency + 0.5) / (frequency + 0.5))


def bm25(cue: Iterable[str], document: Counter[str], length: int, collection: Collection) -> float:
    """The BM25 score of a document (its term counts and length) for the cue's
    terms."""
    norm = K1 * (1.0 - B + B * length / max(collection.average_length, 1.0))
    score = 0.0
    for term in cue:
        tf = document.get(term, 0)
        if tf:
            weight = idf(collection.items, collection.df(term))
            score += weight * tf * (K1 + 1.0) / (tf + norm)
    return score


def ceiling(cue: Iterable[str], collection: Collection) -> float:
    """The highest score an item could reach for the cue (every term, said
    without end): a score over it is the share of the cue's weight an item
    holds, from 0 to 1 on any cue and collection."""
    return sum(idf(collection.items, collection.df(term)) for term in cue) * (K1 + 1.0)
