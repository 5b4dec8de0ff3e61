"""Breadth-first walks whose cost is linear in what they reach.

A ``[:PARENT*]`` pattern makes FalkorDB enumerate paths (2^40 of them on a
40-level diamond lattice). Instead ``cypher/traverse.cypher`` expands level
by level, keeping each level DISTINCT, up to 16 levels per round trip; this
module drives it window after window, keeps the global visited set and the
BFS depth of every item, and stops at the configured depth and size limits,
reporting ``truncated`` rather than failing silently. Cycles never loop: an
item is expanded again only inside one window, at most once per level, and
a level wider than ``WIDE`` ends the window, so the repeated work stays a
small constant factor of the items and relationships reached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from memexd.graph import Graph
from memexd.types import Row

__all__ = ["WIDE", "WINDOW", "Reach", "Walk", "post_order", "walk"]

WINDOW = 16
WIDE = 64


class Walk(Enum):
    """What to follow: the relationship pattern and predicate (trusted slots)."""

    PARENTS = ("-[r:PARENT]->", "true")
    CHILDREN = ("<-[r:PARENT]-", "true")
    ALIASES = ("-[r:ALIAS]-", "r.active = true AND r.retracted = false")

    @property
    def pattern(self) -> str:
        return self.value[0]

    @property
    def rel(self) -> str:
        return self.value[1]


@dataclass(slots=True)
class Reach:
    """What a walk reached: BFS depth per item (in BFS order) and the steps
    taken between reached items, as ``(from, to)`` in walking direction."""

    depth: dict[str, int] = field(default_factory=dict)
    steps: dict[tuple[str, str], None] = field(default_factory=dict)
    truncated: bool = False

    @property
    def found(self) -> bool:
        return bool(self.depth)

    def links(self) -> list[tuple[str, str]]:
        return [s for s in self.steps if s[0] in self.depth and s[1] in self.depth]


async def walk(
    graph: Graph,
    starts: Sequence[str],
    how: Walk,
    *,
    max_depth: int,
    max_nodes: int,
    steps: bool = True,
) -> Reach:
    """Walk from live items (depth 0); an empty reach means none of them is
    live. Without ``steps`` only the items are collected, not the links."""
    reach = Reach()
    frontier, base = list(dict.fromkeys(starts)), 0
    while frontier:
        rows = await graph.read(
            "traverse",
            {"ids": frontier, "wide": WIDE, "steps": steps},
            pattern=how.pattern,
            rel=how.rel,
        )
        if base == 0:
            if not rows or not rows[0]["l0"]:
                return reach
            if len(rows[0]["l0"]) > max_nodes:
                reach.truncated = True
                return reach
            reach.depth.update((n, 0) for n in rows[0]["l0"])
        frontier = _absorb(reach, rows[0], base, max_depth, max_nodes)
        base += WINDOW
    return reach


def _absorb(reach: Reach, row: Row, base: int, max_depth: int, max_nodes: int) -> list[str]:
    """Take one window's levels into the reach; return the next frontier."""
    fresh: list[str] = []
    for k in range(1, WINDOW + 1):
        level: list[str] = row[f"l{k}"]
        if not level:
            return []
        for a, b in row[f"e{k}"]:
            reach.steps[(a, b)] = None
        fresh = [n for n in dict.fromkeys(level) if n not in reach.depth]
        if base + k > max_depth or len(reach.depth) + len(fresh) > max_nodes:
            reach.truncated = reach.truncated or bool(fresh)
            return []
        for n in fresh:
            reach.depth[n] = base + k
        if len(level) > WIDE:  # the window stopped expanding here
            return fresh
    return fresh


def post_order(
    root: str, steps: list[tuple[str, str]], first: Callable[[str], Any] | None = None
) -> list[str]:
    """Depth-first post-order from ``root`` along ``steps`` (children before
    parents for a DAG of parent→child steps); cycle-safe, iterative. Targets
    are visited by descending ``first`` key (default: the id)."""
    below: dict[str, list[str]] = {}
    for a, b in steps:
        below.setdefault(a, []).append(b)
    for targets in below.values():
        targets.sort(key=first, reverse=True)
    order: list[str] = []
    seen = {root}
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        node, i = stack[-1]
        targets = below.get(node, [])
        if i < len(targets):
            stack[-1] = (node, i + 1)
            nxt = targets[i]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, 0))
        else:
            stack.pop()
            order.append(node)
    return order
