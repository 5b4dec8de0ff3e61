"""Resolver for the graph statistics."""

from __future__ import annotations

from memexd.schema.stats import GraphStats

__all__ = ["stats"]


def stats() -> GraphStats:
    """The counts resolve field by field (``GraphStats``)."""
    return GraphStats()
