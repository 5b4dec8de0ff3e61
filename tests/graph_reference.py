"""A small in-memory reference of MemEX's graph semantics (tests only)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass
class Model:
    parents: dict[str, list[str]] = field(default_factory=dict)  # every created item
    retracted: set[str] = field(default_factory=set)
    aliases: set[tuple[str, str]] = field(default_factory=set)  # directed ALIAS edges
    contradictions: set[tuple[str, str]] = field(default_factory=set)

    def live(self, i: str) -> bool:
        return i in self.parents and i not in self.retracted

    def live_parents(self, i: str) -> list[str]:
        return [p for p in dict.fromkeys(self.parents[i]) if self.live(p)]

    def live_children(self, i: str) -> list[str]:
        return [c for c, ps in self.parents.items() if self.live(c) and i in ps]

    def alias_neighbours(self, i: str) -> list[str]:
        out = [b for a, b in self.aliases if a == i] + [a for a, b in self.aliases if b == i]
        return [x for x in dict.fromkeys(out) if self.live(x)]

    def bfs(
        self, root: str, step: Callable[[str], Iterable[str]], *, from_any: bool = False
    ) -> dict[str, int]:
        """Breadth-first from a live root (or from any id, live or not)."""
        if not from_any and not self.live(root):
            return {}
        depth, queue = {root: 0}, deque([root])
        while queue:
            node = queue.popleft()
            for nxt in step(node):
                if nxt not in depth:
                    depth[nxt] = depth[node] + 1
                    queue.append(nxt)
        return depth

    def support(self, root: str) -> dict[str, int]:
        return self.bfs(root, self.live_parents)

    def support_links(self, root: str) -> set[tuple[str, str]]:
        reached = self.support(root)
        return {(c, p) for c in reached for p in self.live_parents(c)}

    def dependents(self, root: str) -> set[str]:
        """Live descendants through live items, whatever the root is (MemEX)."""
        return set(self.bfs(root, self.live_children, from_any=True)) - {root}

    def alias_group(self, root: str) -> set[str]:
        return set(self.bfs(root, self.alias_neighbours))

    def stale(self) -> dict[str, list[str]]:
        out = {}
        for i, ps in self.parents.items():
            if self.live(i):
                bad = [p for p in dict.fromkeys(ps) if not self.live(p)]
                if bad:
                    out[i] = bad
        return out

    def reaches(self, a: str, b: str) -> bool:
        """Is b a live descendant of a (or a itself)?"""
        return b == a or b in self.dependents(a)
