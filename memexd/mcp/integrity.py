"""The integrity tools: why, impact, link, contradictions, resolve_contradiction."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from memexd.errors import MemoryNotFound, ResourceExhausted
from memexd.integrity.provenance import SupportTree
from memexd.integrity.trust import Trusted
from memexd.mcp.answers import answer, guarded, item_data, item_line, item_lines
from memexd.mcp.args import Author, Id, Limit
from memexd.mcp.caller import Bind, Caller
from memexd.mcp.links import LinkKind, link_items
from memexd.memory.model import Item

__all__ = ["IntegrityTools"]


class IntegrityTools:
    def __init__(self, bind: Bind) -> None:
        self.bind = bind

    def register(self, server: MCPServer) -> None:
        reads = ToolAnnotations(read_only_hint=True)
        server.add_tool(guarded(self.why), annotations=reads)
        server.add_tool(guarded(self.impact), annotations=reads)
        server.add_tool(guarded(self.link), annotations=ToolAnnotations(destructive_hint=False))
        server.add_tool(guarded(self.contradictions), annotations=reads)
        server.add_tool(guarded(self.resolve_contradiction))

    async def why(
        self,
        ctx: Context[Any, Any],
        id: Id,
        max_depth: Annotated[int | None, Field(ge=1, description="Stop this far up.")] = None,
    ) -> CallToolResult:
        """Why do we believe this? The item's support: its parents, theirs and
        so on, as a tree, with parents that were retracted or are missing
        said plainly, and how far to trust it: its effective authority, the
        weakest link of its best support path."""
        caller = self.bind(ctx)
        tree = await caller.memex.provenance.support_tree(id, max_depth)
        if tree is None:
            raise MemoryNotFound(id)
        gone = await _gone(caller, tree)
        trust = await _trust(caller, tree.root)
        lines = [f"{'  ' * d}- {item_line(i)}" for i, d in tree.nodes]
        lines.insert(0, "trust: past the traversal limits" if trust is None else
                     f"trust {trust.value:.2f} along " + " → ".join(trust.path))  # fmt: skip
        lines += [f"  ! parent {p} is {state}" for p, state in gone.items()]
        if tree.truncated:
            lines.append("  (cut short: ask with a larger max_depth for more)")
        data = {
            "root": tree.root,
            "nodes": [{"item": item_data(i), "depth": d} for i, d in tree.nodes],
            "links": [{"child": c, "parent": p} for c, p in tree.links],
            "gone": [{"id": p, "state": s} for p, s in gone.items()],
            "truncated": tree.truncated,
            "effective_authority": None if trust is None else trust.value,
            "trust_path": None if trust is None else list(trust.path),
        }
        return answer("\n".join(lines), data)

    async def impact(self, ctx: Context[Any, Any], id: Id) -> CallToolResult:
        """What falls if this falls: the item and every live item derived from
        it, which forget with cascade would retract. Nothing is changed."""
        caller = self.bind(ctx)
        item = await caller.memex.item_reads.get(id)
        if item is None:
            raise MemoryNotFound(id)
        closure = await caller.memex.provenance.dependents(id, True)
        count = 1 + len(closure)
        text = f"forget with cascade would retract {count} items:\n" + item_lines([item, *closure])
        return answer(text, {"count": count, "items": [item_data(i) for i in [item, *closure]]})

    async def link(
        self,
        ctx: Context[Any, Any],
        a: Annotated[str, Field(description="The item the edge leaves.")],
        b: Annotated[str, Field(description="The item it points at.")],
        kind: Annotated[
            LinkKind,
            Field(
                description="SUPPORTS: a backs b; CONTRADICTS: a conflicts with b; ALIAS: "
                "the same thing (both ways); SUPERSEDES: a replaces b."
            ),
        ],
        author: Author = None,
    ) -> CallToolResult:
        """Relate two items you already have."""
        caller = self.bind(ctx)
        made = await link_items(caller, a, b, kind, caller.name if author is None else author)
        return answer(f"Linked {made}", {"link": made, "trace_id": caller.origin.trace_id})

    async def contradictions(self, ctx: Context[Any, Any], limit: Limit = 20) -> CallToolResult:
        """Active contradictions between live items you can read, each pair
        with both sides."""
        found = await self.bind(ctx).memex.contradictions.active(limit)
        lines = [f"- {item_line(c.a)}\n  contradicts {item_line(c.b)}" for c in found]
        data = [{"a": item_data(c.a), "b": item_data(c.b), "edge_id": c.edge.edge_id}
                for c in found]  # fmt: skip
        return answer("\n".join(lines) or "No active contradictions.", {"contradictions": data})

    async def resolve_contradiction(
        self,
        ctx: Context[Any, Any],
        winner_id: Annotated[str, Field(description="The item that stands.")],
        loser_id: Annotated[str, Field(description="The item it supersedes.")],
        reason: str | None = None,
        author: Author = None,
    ) -> CallToolResult:
        """Settle a contradiction: the winner supersedes the loser, whose
        authority drops; the contradiction ends."""
        caller = self.bind(ctx)
        who = caller.name if author is None else author
        await caller.memex.contradictions.resolve(winner_id, loser_id, who, reason, caller.origin)
        return answer(f"{winner_id} now supersedes {loser_id}.",
                      {"winner": winner_id, "loser": loser_id})  # fmt: skip


async def _gone(caller: Caller, tree: SupportTree) -> dict[str, str]:
    """Parents named inside the tree that are not in it: retracted, or
    missing (never written, purged, or not yours to read: the same answer,
    so nothing unreadable is revealed)."""
    shown = {i.id for i, _ in tree.nodes}
    deepest = max((d for _, d in tree.nodes), default=0)
    named = [p for i, d in tree.nodes if not (tree.truncated and d == deepest)
             for p in _parents(i) if p not in shown]  # fmt: skip
    named = list(dict.fromkeys(named))
    found = await caller.memex.item_reads.fetch(named, include_retracted=True) if named else {}
    return {p: "retracted" if p in found and found[p].retracted else "missing" for p in named}


async def _trust(caller: Caller, item_id: str) -> Trusted | None:
    """The item's trust, or None when its provenance is too large to weigh
    (the tree is still shown, a depth at a time)."""
    try:
        return (await caller.memex.trust.of([item_id])).get(item_id)
    except ResourceExhausted:
        return None


def _parents(item: Item) -> tuple[str, ...]:
    return item.parents or ()
