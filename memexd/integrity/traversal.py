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

Answers are the same whatever order the engine collects a level in: each
level's items are taken in id order (UUIDv7 ids sort by creation time), and
links by the depth they start from, then by id.

Long thin stretches (a 10,000-long chain of provenance) would still cost one
round trip per 16 levels, so from a narrow frontier the walk first tries
``cypher/traverse_deep.cypher``: 64 levels at once by enumerating at most 4
paths per level per frontier item (``BUDGET`` in all). Where paths multiply
(diamonds) that budget runs out, the attempt is thrown away and one levelled
window follows, so failed attempts cost a bounded number of paths per
window: still linear. Each path also names its last step, and together they
are every step from what the attempt reached. Alias groups are always walked
level by level: every alias is two relationships, so their paths double at
every step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import islice
from typing import Any

from memexd.graph import Graph
from memexd.types import Row

__all__ = ["BUDGET", "DEEP", "WIDE", "WINDOW", "Reach", "Walk", "post_order", "walk"]

WINDOW = 16
WIDE = 64
#: Levels per deep attempt (the bound written in the patterns below) and the
#: most paths it may enumerate before giving up.
DEEP = 64
BUDGET = 4096


class Walk(Enum):
    """What to follow: the relationship pattern, a predicate on it, the
    pattern for deep attempts, if any (trusted slots; deep attempts cannot
    check a predicate on relationships, so a walk with one has none), and
    for whole walks the path pattern (its most levels left to fill) with
    the predicate on a path's relationships."""

    PARENTS = ("-[r:PARENT]->", "true", "-[:PARENT*1..64]->", "-[:PARENT*1..{}]->", "true")
    CHILDREN = ("<-[r:PARENT]-", "true", "<-[:PARENT*1..64]-", "<-[:PARENT*1..{}]-", "true")
    ALIASES = (
        "-[r:ALIAS]-",
        "r.active = true AND r.retracted = false",
        None,
        "-[:ALIAS*1..{}]-",
        "all(r IN relationships(p) WHERE r.active = true AND r.retracted = false)",
    )

    @property
    def pattern(self) -> str:
        pattern: str = self.value[0]
        return pattern

    @property
    def rel(self) -> str:
        rel: str = self.value[1]
        return rel

    @property
    def deep(self) -> str | None:
        deep: str | None = self.value[2]
        return deep

    def path(self, levels: int) -> str:
        """The whole walk's path pattern, at most ``levels`` deep."""
        return str(self.value[3]).format(levels)

    @property
    def path_rels(self) -> str:
        return str(self.value[4])

    @property
    def along(self) -> bool:
        """Whether it walks the way its relationships point (start to end)."""
        return not self.pattern.startswith("<")


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
        """The steps between reached items, by the depth they start from,
        then by id."""
        depth = self.depth
        return sorted((s for s in self.steps if s[0] in depth and s[1] in depth),
                      key=lambda s: (depth[s[0]], s))  # fmt: skip


async def walk(
    graph: Graph,
    starts: Sequence[str],
    how: Walk,
    *,
    max_depth: int,
    max_nodes: int,
    steps: bool = True,
    found: Callable[[list[str]], None] | None = None,
) -> Reach:
    """Walk from live items (depth 0); an empty reach means none of them is
    live. Without ``steps`` only the items are collected, not the links.
    ``found`` is told the items reached after each round trip (new ones
    only), so reads about them can start while the walk goes on."""
    frontier = list(dict.fromkeys(starts))
    if graph.walks_whole and frontier:
        whole = await _whole(graph, frontier, how, max_depth, max_nodes, steps)
        if whole is not None:
            if found is not None and whole.depth:
                found(list(whole.depth))
            return whole
    reach = Reach()
    told, base = 0, 0
    while frontier:
        # deep where it pays; a levelled window where it would not (wide
        # frontiers) or ran out of paths, then deep again
        row = await _deep(graph, frontier, how, steps)
        if row is None:
            row = (await graph.read(
                "traverse", {"ids": frontier, "wide": WIDE, "steps": steps},
                pattern=how.pattern, rel=how.rel,
            ))[0]  # fmt: skip
        if base == 0 and not _started(reach, row["starts"], max_nodes):
            return reach
        if "ends" in row:
            if steps:
                reach.steps.update(dict.fromkeys(row["steps"]))
            frontier = _absorb_deep(reach, row["ends"], base, max_depth, max_nodes)
            base += DEEP
        else:
            frontier, base = _absorb(reach, row, base, max_depth, max_nodes)
        if found is not None and len(reach.depth) > told:
            found(list(islice(reversed(reach.depth), len(reach.depth) - told)))
            told = len(reach.depth)
    return reach


async def _whole(
    graph: Graph, starts: list[str], how: Walk, max_depth: int, max_nodes: int, steps: bool
) -> Reach | None:
    """The whole walk in one statement, on engines whose walks search
    breadth first (:attr:`Graph.walks_whole`); None where that answer would
    not be exact: the search stopped at ``max_nodes`` from several starts
    (its ends are the nearest to each start in turn, not to all of them)."""
    row = (await graph.read(
        "traverse_reach", {"ids": starts, "cap": max_nodes + 1},
        path=how.path(1 << max_depth.bit_length()), rels=how.path_rels,
        pattern=how.pattern, rel=how.rel,
    ))[0]  # fmt: skip
    if len(row["ends"]) > max_nodes and len(row["starts"]) > 1:
        return None
    reach = Reach()
    if not _started(reach, row["starts"], max_nodes):
        return reach
    edges = list(zip(row["froms"], row["tos"], strict=True))
    if steps:
        reach.steps.update(dict.fromkeys(edges))
    for k, level in enumerate(_levels(list(reach.depth), edges), start=1):
        fresh = sorted(level)
        if k > max_depth or len(reach.depth) + len(fresh) > max_nodes:
            reach.truncated = True
            break
        reach.depth.update((n, k) for n in fresh)
    return reach


def _levels(starts: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Breadth first from ``starts`` along ``edges``: the items first reached
    at each depth from 1. Over every step out of a search's starts and ends,
    these are the search's own depths (the levels it ended in included):
    each item's shortest path runs through items the search reached."""
    below: dict[str, list[str]] = {}
    for a, b in edges:
        below.setdefault(a, []).append(b)
    seen = set(starts)
    levels = [starts]
    while levels[-1]:
        level = []
        for y in (y for x in levels[-1] for y in below.get(x, ())):
            if y not in seen:
                seen.add(y)
                level.append(y)
        levels.append(level)
    return levels[1:-1]


async def _deep(graph: Graph, frontier: list[str], how: Walk, steps: bool) -> Row | None:
    """A deep attempt's row (with ``steps``, the steps its paths took), or
    None where it would not pay (a wide frontier) or ran out of paths (the
    levels are walked one by one instead)."""
    if len(frontier) > WIDE or how.deep is None:
        return None
    # enough for thin stretches (a few paths per level per item); where paths
    # multiply, failing fast is what keeps the attempt cheap
    params = {"ids": frontier, "budget": min(BUDGET, 4 * DEEP * len(frontier))}
    slots = {"pattern": how.deep} if steps else {"pattern": how.deep, "step": ""}
    row = (await graph.read("traverse_deep", params, **slots))[0]
    if not row["complete"]:
        return None
    if not steps:
        return row
    last = _last_steps(row["ends"], how.along)
    return None if last is None else {**row, "steps": last}


def _last_steps(ends: list[list[Any]], along: bool) -> list[tuple[str, str]] | None:
    """Each path's last step, ``(from, to)`` in walking direction, from its last
    relationship's ends (``a``, ``b``); None if one does not lead to its path's
    end (a path listed backwards: the attempt is not used)."""
    steps = []
    for end, _, a, b in ends:
        if end is None:  # a start without paths
            continue
        step = (a, b) if along else (b, a)
        if step[1] != end:
            return None
        steps.append(step)
    return steps


def _started(reach: Reach, starts: list[str], max_nodes: int) -> bool:
    """Depth 0: the live starts, unless there are none or too many."""
    if len(starts) > max_nodes:
        reach.truncated = True
    elif starts:
        reach.depth.update((n, 0) for n in sorted(starts))
    return bool(starts) and not reach.truncated


def _absorb(
    reach: Reach, row: Row, base: int, max_depth: int, max_nodes: int
) -> tuple[list[str], int]:
    """Take one window's levels into the reach; return the next frontier and
    the depth it stands at (a wide level ends the window early)."""
    fresh: list[str] = []
    for k in range(1, WINDOW + 1):
        level: list[str] = row[f"l{k}"]
        if not level:
            return [], base + k
        for a, b in row[f"e{k}"]:
            reach.steps[(a, b)] = None
        fresh = sorted({n for n in level if n not in reach.depth})
        if base + k > max_depth or len(reach.depth) + len(fresh) > max_nodes:
            reach.truncated = reach.truncated or bool(fresh)
            return [], base + k
        for n in fresh:
            reach.depth[n] = base + k
        if len(level) > WIDE:  # the window stopped expanding here
            return fresh, base + k
    return fresh, base + WINDOW


def _absorb_deep(
    reach: Reach,
    ends: list[list[Any]],
    base: int,
    max_depth: int,
    max_nodes: int,
) -> list[str]:
    """Take a deep attempt's paths into the reach; return the next frontier
    (the new items at its last level)."""
    levels: dict[str, int] = {}
    for end, length, *_ in ends:
        if end is None:  # a start without paths
            continue
        if end not in reach.depth and length < levels.get(end, DEEP + 1):
            levels[end] = length
    by_level: dict[int, list[str]] = {}
    for end, length in levels.items():
        by_level.setdefault(length, []).append(end)
    fresh: list[str] = []
    for length in sorted(by_level):  # whole levels, as the levelled walk
        fresh = sorted(by_level[length])
        if base + length > max_depth or len(reach.depth) + len(fresh) > max_nodes:
            reach.truncated = True
            return []
        reach.depth.update((n, base + length) for n in fresh)
    return fresh if DEEP in by_level else []


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
        if len(targets) > 1:  # most items of a chain have one child
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
