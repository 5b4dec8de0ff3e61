"""Resolver for the graph statistics."""

from __future__ import annotations

from memexd.schema.common import Info
from memexd.schema.stats import GraphStats

from memexd.memory.stats import Stats

__all__ = ["stats"]


async def stats(info: Info) -> GraphStats:
    return GraphStats.of(await Stats(info.context.memex.graph).read())
