"""The memory tools: remember, recall, context, forget."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from memexd.errors import BadUserInput, Conflict, MemoryNotFound
from memexd.mcp.answers import answer, guarded, item_data, item_line
from memexd.mcp.args import Author, Id, Limit, ScopePrefix
from memexd.mcp.caller import Bind, Caller
from memexd.mcp.links import LinkKind, link_items
from memexd.memory.context import ContextRequest
from memexd.memory.filters import MemoryFilter
from memexd.memory.model import NewItem
from memexd.recall.fusion import Hit
from memexd.recall.service import RecallMode, RecallRequest

__all__ = ["MAX_LINKS", "NOTHING", "MemoryTools"]

#: Links one ``remember`` may add.
MAX_LINKS = 16
#: What recall says when no memory is about the cue (none passed the floor).
NOTHING = "Nothing relevant: no memory is about this cue."


class NewLink(BaseModel):
    """An edge from the new item to an existing one."""

    to: Id
    kind: LinkKind


def _content(given: str | dict[str, Any]) -> dict[str, Any]:
    return {"text": given} if isinstance(given, str) else given


def _author(caller: Caller, given: str | None) -> str:
    return caller.name if given is None else given


class MemoryTools:
    def __init__(self, bind: Bind) -> None:
        self.bind = bind

    def register(self, server: MCPServer) -> None:
        writes = ToolAnnotations(read_only_hint=False, destructive_hint=False)
        reads = ToolAnnotations(read_only_hint=True)
        server.add_tool(guarded(self.remember), annotations=writes)
        server.add_tool(guarded(self.recall), annotations=reads)
        server.add_tool(guarded(self.context), annotations=reads)
        server.add_tool(guarded(self.forget), annotations=ToolAnnotations(destructive_hint=True))

    async def remember(
        self,
        ctx: Context[Any, Any],
        content: Annotated[
            str | dict[str, Any],
            Field(description="What to remember: text (kept as {'text': …}) or a JSON object."),
        ],
        scope: Annotated[str, Field(description="Where it belongs, e.g. 'proj/x/notes'.")],
        kind: Annotated[str, Field(description="What it is: note, observation, fact…")] = "note",
        parents: Annotated[
            list[str] | None,
            Field(description="Ids of the items this was derived from (its provenance)."),
        ] = None,
        authority: Annotated[
            float, Field(ge=0, le=1, description="How much the source is trusted, 0 to 1.")
        ] = 0.5,
        source_kind: Annotated[
            str, Field(description="Where it came from: agent, user, tool…")
        ] = "agent",
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        tags: Annotated[list[str] | None, Field(description="Free labels.")] = None,
        links: Annotated[
            list[NewLink] | None,
            Field(max_length=MAX_LINKS, description="Edges from the new item to existing items."),
        ] = None,
        author: Author = None,
    ) -> CallToolResult:
        """Store a memory item, with its provenance (parents) and optional
        links (SUPPORTS, CONTRADICTS, ALIAS, SUPERSEDES) to items you already
        have. Returns the new item's id."""
        caller = self.bind(ctx)
        wanted = links or []
        await _exist(caller, [link.to for link in wanted])  # before anything is written
        draft = NewItem(
            scope=scope, kind=kind, content=_content(content),
            author=_author(caller, author), source_kind=source_kind, authority=authority,
            parents=parents, importance=importance, tags=tags,
        )  # fmt: skip
        created, _ = await caller.memex.items.create([draft], caller.origin)
        item = created[0]
        made = [await link_items(caller, item.id, x.to, x.kind, draft.author) for x in wanted]
        text = f"Remembered {item_line(item)}" + "".join(f"\nLinked {m}" for m in made)
        return answer(text, {"item": item_data(item), "links": made,
                             "trace_id": caller.origin.trace_id})  # fmt: skip

    async def recall(
        self,
        ctx: Context[Any, Any],
        cue: Annotated[str, Field(description="What you want to remember, in your own words.")],
        scope_prefix: ScopePrefix = None,
        limit: Limit = 10,
        mode: Annotated[
            Literal["HYBRID", "VECTOR", "TEXT"],
            Field(description="HYBRID: by meaning and words; VECTOR: meaning; TEXT: words."),
        ] = "HYBRID",
        trust: Annotated[
            bool,
            Field(
                description="Weigh hits by how far their support can be trusted "
                "(effective authority) instead of their own authority."
            ),
        ] = False,
        min_score: Annotated[
            float | None,
            Field(
                ge=0,
                le=1,
                description="Leave out hits less relevant than this (0 to 1); unless given, "
                "the server's floor, below which a memory is not about the cue.",
            ),
        ] = None,
    ) -> CallToolResult:
        """Find memories by meaning and words, best first, each with its score,
        relevance (0 to 1) and why; "Nothing relevant" when no memory is about
        the cue."""
        caller = self.bind(ctx)
        flt = None if scope_prefix is None else MemoryFilter(scope_prefix=scope_prefix)
        request = RecallRequest(cue=cue, filter=flt, limit=limit, mode=RecallMode(mode),
                                trust=trust, min_score=min_score)  # fmt: skip
        hits = await caller.memex.recall.recall(request)
        lines = [f"{n}. ({h.score:.3f}) {item_line(h.item)}" for n, h in enumerate(hits, 1)]
        return answer("\n".join(lines) or NOTHING, {"hits": [_hit(h) for h in hits]})

    async def context(
        self,
        ctx: Context[Any, Any],
        scope_prefix: ScopePrefix = None,
        cue: Annotated[str | None, Field(description="Put memories about this first.")] = None,
        max_bytes: Annotated[int | None, Field(ge=1, description="Its size budget.")] = None,
        session_id: str | None = None,
        task_id: str | None = None,
        intent_id: str | None = None,
    ) -> CallToolResult:
        """The context block: the memories worth having in mind now (this
        session's, the task's and intent's, recalled by the cue, the most
        important), as markdown within a byte budget."""
        caller = self.bind(ctx)
        block = await caller.memex.contexts.block(
            ContextRequest(scope_prefix=scope_prefix, cue=cue, max_bytes=max_bytes,
                           session_id=session_id, task_id=task_id, intent_id=intent_id)
        )  # fmt: skip
        data = {"text": block.text, "bytes": block.bytes, "ids": [i.id for i in block.items]}
        return answer(block.text or "No memories fit.", data)

    async def forget(
        self,
        ctx: Context[Any, Any],
        id: Id,
        reason: Annotated[str | None, Field(description="Why (kept in the event log).")] = None,
        cascade: Annotated[
            bool,
            Field(description="Also retract everything derived from it (see impact first)."),
        ] = False,
        confirm: Annotated[
            int | None,
            Field(
                description="With cascade: the number of items impact said would be "
                "retracted; refused if that changed."
            ),
        ] = None,
        author: Author = None,
    ) -> CallToolResult:
        """Retract an item (kept as a tombstone, its history in the log). With
        cascade=true and confirm=<count from impact>, retract it and every item
        derived from it, at once."""
        caller = self.bind(ctx)
        who = _author(caller, author)
        if not cascade:
            if confirm is not None:
                raise BadUserInput("only with cascade", field="confirm")
            await caller.memex.items.retract(id, who, reason, caller.origin)
            return answer(f"Retracted {id}.", {"retracted": [id]})
        if confirm is None:
            raise BadUserInput("a cascade needs the count impact reported", field="confirm")
        closure = await caller.memex.provenance.dependents(id, True)
        if 1 + len(closure) != confirm:
            raise Conflict(f"the cascade would now retract {1 + len(closure)} items, not {confirm}")
        order, _ = await caller.memex.cascade.retract(id, who, reason, caller.origin)
        return answer(f"Retracted {len(order)} items:\n" + "\n".join(order), {"retracted": order})


async def _exist(caller: Caller, ids: list[str]) -> None:
    found = await caller.memex.item_reads.get_many(ids) if ids else {}
    for item_id in ids:
        if item_id not in found:
            raise MemoryNotFound(item_id)


def _hit(hit: Hit) -> dict[str, Any]:
    return {"item": item_data(hit.item), "score": hit.score, "relevance": hit.relevance,
            "why": hit.why}  # fmt: skip
