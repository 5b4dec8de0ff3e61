"""The tools for memory through time: as_of (an item, and what it rested
on, as memory held them at an instant) and undo (take back everything one
trace did, SPEC §14).

Every tool call that writes runs under a trace of its own (the HTTP request's
over Streamable HTTP; one minted per call over stdio), and remember and link
answer with it, so an agent can take back what a call did.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from memexd.history.undo import UndoReport
from memexd.mcp.answers import answer, guarded, item_data, item_line, item_lines
from memexd.mcp.args import Author, Id
from memexd.mcp.caller import Bind
from memexd.transplant.timestamps import parse_iso_ts

__all__ = ["HistoryTools"]

At = Annotated[
    str,
    Field(description="The instant, ISO 8601 with Z or an offset (e.g. "
          "'2026-12-01T09:30:00Z'); from the log's first event to now."),
]  # fmt: skip


class HistoryTools:
    def __init__(self, bind: Bind) -> None:
        self.bind = bind

    def register(self, server: MCPServer) -> None:
        server.add_tool(guarded(self.as_of), annotations=ToolAnnotations(read_only_hint=True))
        server.add_tool(guarded(self.undo), annotations=ToolAnnotations(destructive_hint=True))

    async def as_of(
        self,
        ctx: Context[Any, Any],
        id: Id,
        at: At,
        support: Annotated[
            bool, Field(description="Also what it rested on then (its parents, theirs…).")
        ] = False,
    ) -> CallToolResult:
        """What memory held about an item at an instant: the item as it was
        then (absent if not created yet, retracted by then, or purged), and
        optionally its support set then. What did I believe when I acted?"""
        as_of = self.bind(ctx).memex.as_of
        instant = await as_of.instant(parse_iso_ts(at))
        item = await as_of.item(id, instant)
        found = await as_of.support_set(id, instant) if support and item is not None else []
        rested = [i for i in found if i.id != id]  # the set opens with the item itself
        text = f"At {at}: " + ("nothing (not there then)" if item is None else item_line(item))
        if support and item is not None:
            text += "\nresting on:\n" + item_lines(rested)
        data = {"at": at, "item": None if item is None else item_data(item),
                "support": [item_data(i) for i in rested]}  # fmt: skip
        return answer(text, data)

    async def undo(
        self,
        ctx: Context[Any, Any],
        trace_id: Annotated[
            str, Field(description="The trace to take back (remember and link answer theirs).")
        ],
        dry_run: Annotated[
            bool, Field(description="true (the default): only report what it would do.")
        ] = True,
        reason: Annotated[str | None, Field(description="Why (kept in the event log).")] = None,
        author: Author = None,
    ) -> CallToolResult:
        """Take back everything one trace did, in one write: items it created
        are retracted (with their edges), items it changed get back what they
        were, edges it made are retracted. Refused, naming each, when a later
        command built on or changed any of it. Run with dry_run=true first."""
        caller = self.bind(ctx)
        who = caller.name if author is None else author
        done = await caller.memex.undo.trace(trace_id, who, reason, dry_run, caller.origin)
        data = {"trace_id": done.trace_id, "dry_run": done.dry_run,
                "retracted_item_ids": done.retracted_item_ids,
                "restored_item_ids": done.restored_item_ids,
                "retracted_edge_ids": done.retracted_edge_ids,
                "conflicts": done.conflicts}  # fmt: skip
        return answer(_told(done), data)


def _told(done: UndoReport) -> str:
    if done.conflicts:
        return "Refused: later changes stop it:\n" + "\n".join(f"- {c}" for c in done.conflicts)
    counts = (f"{len(done.retracted_item_ids)} items retracted, "
              f"{len(done.restored_item_ids)} restored, "
              f"{len(done.retracted_edge_ids)} edges retracted")  # fmt: skip
    return (
        f"Would undo: {counts} (run with dry_run=false)." if done.dry_run else f"Undone: {counts}."
    )
