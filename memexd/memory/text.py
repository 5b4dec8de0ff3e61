"""Text search: items whose content holds given words, through each engine's
full-text index (FalkorDB's RediSearch index, Neo4j's Lucene index), never by
scanning content in Python.

On by default (``MEMEXD_TEXT_SEARCH``); the index costs engine memory per
item: about 100 B for ordinary prose, 320 B when every note carries a word of
its own (an id, a hash), against memexd's 1.2 KB per item (README, "Text
search"). memexd creates the index at start when it is on and drops it when
it is off. The caller's text is reduced to words (letters and digits, lower
case), which each engine's query (``cypher/item_search``) joins as "all of
these": nothing of it reaches either engine's query syntax as an operator.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from memexd.errors import BadUserInput, StorageError, Unsupported
from memexd.graph import Graph
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.model import Item
from memexd.memory.records import item_from_row
from memexd.memory.validation import Limits

__all__ = ["MAX_TERMS", "MAX_TEXT", "TextSearch", "ensure_index", "terms"]

MAX_TEXT = 1_000
MAX_TERMS = 16
MAX_WORD = 64
_DROP_ROUNDS = 5
_WORD = re.compile(r"\w+")


def terms(text: Any) -> list[str]:
    """The words of ``text`` (``BAD_USER_INPUT`` for none, too many, too long)."""
    if not isinstance(text, str):
        raise BadUserInput("must be a string", field="text")
    if len(text) > MAX_TEXT:
        raise BadUserInput(f"longer than {MAX_TEXT} characters", field="text")
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text) if w != "_"))
    if not words:
        raise BadUserInput("has no words to search for", field="text")
    if len(words) > MAX_TERMS:
        raise BadUserInput(f"more than {MAX_TERMS} words", field="text")
    if any(len(w) > MAX_WORD for w in words):
        raise BadUserInput(f"a word longer than {MAX_WORD} characters", field="text")
    return words


async def _index_present(graph: Graph) -> bool:
    return int((await graph.read("text_index_exists"))[0]["found"]) > 0


async def ensure_index(graph: Graph, enabled: bool) -> None:
    """Create the full-text index when text search is on, drop it when off."""
    present = await _index_present(graph)
    if enabled and not present:
        await graph.schema("text_index_create")
    elif present and not enabled:
        await _drop_index(graph)


async def _drop_index(graph: Graph) -> None:
    # FalkorDB 4.16 can skip the full-text field when the label's index is
    # still being built in the background (FalkorDB issue 1622): the drop
    # reports success and the index stays. Dropping again once it is built
    # removes it, so drop until it is gone (a few rounds at most).
    for attempt in range(_DROP_ROUNDS):
        await graph.schema("text_index_drop")
        if not await _index_present(graph):
            return
        await asyncio.sleep(0.05 * (attempt + 1))
    raise StorageError("the full-text index could not be dropped")


class TextSearch:
    def __init__(self, graph: Graph, limits: Limits, enabled: bool) -> None:
        self.graph = graph
        self.limits = limits
        self.enabled = enabled

    async def search(
        self,
        text: Any,
        flt: MemoryFilter | None = None,
        limit: int | None = None,
        *,
        include_retracted: bool = False,
    ) -> list[Item]:
        """Items holding every word of ``text`` that also match ``flt``, best
        match first (ties by id); the caller's grants apply."""
        words = terms(text)
        size = self.limits.page(limit)
        where = to_cypher(prepare(flt, self.limits, time.time_ns() // 1_000_000), self.graph)
        if not self.enabled:
            raise Unsupported(
                "text search is off on this server (MEMEXD_TEXT_SEARCH=true turns it on)"
            )
        params = {"words": words, "limit": size,
                  "include_retracted": include_retracted}  # fmt: skip
        rows = await self.graph.read("item_search", params, filter=where)
        return [item_from_row(row["item"]) for row in rows]
