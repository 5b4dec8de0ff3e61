"""Recall by meaning: what do I remember about this?

``model`` is the embedding model (and how content becomes text);
``embedding`` embeds items after they are written, off the request path;
``service`` runs a recall (the vector and full-text sides, under grants and
filters); ``fusion`` ranks and explains its hits. README, "Recall".
"""

from __future__ import annotations

from memexd.graph import Graph
from memexd.memory.text import ensure_index
from memexd.recall.embedding import ensure_vector_index

__all__ = ["ensure_indexes"]


async def ensure_indexes(graph: Graph, text_search: bool) -> None:
    """The indexes recall and text search read, as a server starts: the
    full-text index when text search is on (dropped when off), the vector
    index always (it costs nothing until items carry vectors)."""
    await ensure_index(graph, text_search)
    await ensure_vector_index(graph)
