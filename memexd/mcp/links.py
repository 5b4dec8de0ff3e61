"""An edge between two items, of the four kinds an agent asks for."""

from __future__ import annotations

from typing import Literal

from memexd.integrity.aliases import marker
from memexd.mcp.caller import Caller

__all__ = ["LinkKind", "link_items"]

LinkKind = Literal["SUPPORTS", "CONTRADICTS", "ALIAS", "SUPERSEDES"]


async def link_items(caller: Caller, a: str, b: str, kind: LinkKind, author: str) -> str:
    """Link ``a`` to ``b``; what was made, as a line. ALIAS joins both ways
    (MemEX's rule), the others point from ``a`` to ``b``."""
    memex, origin = caller.memex, caller.origin
    if kind == "ALIAS":
        await memex.aliases.mark(a, b, author, None, origin, skip_existing=True)
        return f"{a} ALIAS {b} (both ways)"
    if kind == "CONTRADICTS":
        edge, _ = await memex.contradictions.mark(a, b, author, None, origin)
    else:
        edge, _ = await memex.edges.create(marker(a, b, kind, author), origin)
    return f"{a} {kind} {b} (edge {edge.edge_id})"
