"""The intent and task tools: plan, add_task, move_task, move_intent, plans."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from memexd.intents.records import Record
from memexd.mcp.answers import answer, guarded
from memexd.mcp.caller import Bind

__all__ = ["PlanTools"]

Priority = Annotated[float, Field(ge=0, le=1, description="0 to 1; higher first.")]
Ids = Annotated[list[str] | None, Field(description="Item ids.")]


def _line(r: Record) -> str:
    what = r.data.get("label") or r.data.get("action")
    return f"[{r.id}] {r.status}: {what} (priority {float(r.data['priority']):.2f})"


def _plain(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


class PlanTools:
    def __init__(self, bind: Bind) -> None:
        self.bind = bind

    def register(self, server: MCPServer) -> None:
        server.add_tool(guarded(self.plan))
        server.add_tool(guarded(self.add_task))
        server.add_tool(guarded(self.move_task))
        server.add_tool(guarded(self.move_intent))
        server.add_tool(guarded(self.plans), annotations=ToolAnnotations(read_only_hint=True))

    async def plan(
        self,
        ctx: Context[Any, Any],
        label: Annotated[str, Field(description="What you mean to achieve.")],
        scope: Annotated[str, Field(description="Where it belongs, e.g. 'proj/x/'.")],
        description: str | None = None,
        priority: Priority = 0.5,
        owner: Annotated[str | None, Field(description="Default: your key's name.")] = None,
        parent_id: Annotated[str | None, Field(description="The intent this serves.")] = None,
        root_memory_ids: Ids = None,
    ) -> CallToolResult:
        """Start an intent: a goal that tasks work towards (status active)."""
        caller = self.bind(ctx)
        fields = _plain({"label": label, "description": description, "priority": priority,
                         "owner": owner or caller.name, "parent_id": parent_id,
                         "root_memory_ids": root_memory_ids})  # fmt: skip
        record, _ = await caller.memex.intents.create(fields, scope, caller.origin)
        return answer(f"Intent {_line(record)}", {"intent": record.data, "scope": record.scope})

    async def add_task(
        self,
        ctx: Context[Any, Any],
        intent_id: Annotated[str, Field(description="The intent it serves.")],
        action: Annotated[str, Field(description="What to do (a short verb phrase).")],
        label: str | None = None,
        priority: Priority = 0.5,
        parent_id: Annotated[str | None, Field(description="The task this is a step of.")] = None,
        input_memory_ids: Ids = None,
    ) -> CallToolResult:
        """Add a task to an intent (status pending; in the intent's scope)."""
        caller = self.bind(ctx)
        fields = _plain({"intent_id": intent_id, "action": action, "label": label,
                         "priority": priority, "parent_id": parent_id,
                         "input_memory_ids": input_memory_ids})  # fmt: skip
        record, _ = await caller.memex.tasks.create(fields, None, caller.origin)
        return answer(f"Task {_line(record)}", {"task": record.data, "scope": record.scope})

    async def move_task(
        self,
        ctx: Context[Any, Any],
        id: Annotated[str, Field(description="The task's id.")],
        action: Literal["start", "complete", "fail", "cancel"],
        result: Annotated[
            dict[str, Any] | None, Field(description="complete: what it produced.")
        ] = None,
        error: Annotated[str | None, Field(description="fail: why (required).")] = None,
    ) -> CallToolResult:
        """Move a task along: start (pending or failed → running), complete or
        fail (running →), cancel."""
        caller = self.bind(ctx)
        changes = _plain({"result": result, "error": error,
                          "agent_id": caller.name if action == "start" else None})  # fmt: skip
        record, _ = await caller.memex.tasks.move(id, action, caller.origin, **changes)
        return answer(f"Task {_line(record)}", {"task": record.data})

    async def move_intent(
        self,
        ctx: Context[Any, Any],
        id: Annotated[str, Field(description="The intent's id.")],
        action: Literal["pause", "resume", "complete", "cancel"],
    ) -> CallToolResult:
        """Move an intent along: pause, resume, complete or cancel."""
        caller = self.bind(ctx)
        record, _ = await caller.memex.intents.move(id, action, caller.origin)
        return answer(f"Intent {_line(record)}", {"intent": record.data})

    async def plans(
        self,
        ctx: Context[Any, Any],
        status: Literal["active", "paused", "completed", "cancelled"] | None = "active",
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> CallToolResult:
        """Intents (active ones unless asked) with their tasks."""
        memex = self.bind(ctx).memex
        intents = await memex.intent_reads.find(_plain({"status": status}), limit)
        tasks = await memex.task_reads.tasks_of([i.id for i in intents])
        lines: list[str] = []
        for i in intents:
            lines.append(f"- {_line(i)}")
            lines += [f"  - {_line(t)}" for t in tasks.get(i.id, [])]
        data = [{"intent": i.data, "tasks": [t.data for t in tasks.get(i.id, [])]} for i in intents]
        return answer("\n".join(lines) or "No intents.", {"intents": data})
