"""Resolvers for intents and tasks."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from memexd.resolvers.args import Limit
from memexd.schema.common import Info
from memexd.schema.intents import (
    Intent,
    IntentFilter,
    IntentInput,
    IntentPatch,
    IntentResult,
    Task,
    TaskFilter,
    TaskInput,
    TaskPatch,
    TaskResult,
    given,
)
from strawberry.scalars import JSON

RecordId = Annotated[strawberry.ID, strawberry.argument(description="Its id.")]


def _filter(value: Any) -> dict[str, Any] | None:
    return None if value is None else given(value)


async def intent(info: Info, id: RecordId) -> Intent | None:
    return Intent.of(await info.context.memex.intent_reads.get(id))


async def intents(
    info: Info,
    filter: Annotated[IntentFilter | None, strawberry.argument(description="Which.")] = None,
    limit: Limit = None,
) -> list[Intent]:
    found = await info.context.memex.intent_reads.find(_filter(filter), limit)
    return [Intent(record=r) for r in found]


async def task(info: Info, id: RecordId) -> Task | None:
    return Task.of(await info.context.memex.task_reads.get(id))


async def tasks(
    info: Info,
    filter: Annotated[TaskFilter | None, strawberry.argument(description="Which.")] = None,
    limit: Limit = None,
) -> list[Task]:
    found = await info.context.memex.task_reads.find(_filter(filter), limit)
    return [Task(record=r) for r in found]


def _split(value: Any) -> tuple[dict[str, Any], str | None]:
    fields = given(value)
    return fields, fields.pop("scope")


async def create_intent(
    info: Info, input: Annotated[IntentInput, strawberry.argument(description="The intent.")]
) -> IntentResult:
    fields, scope = _split(input)
    ctx = info.context
    return IntentResult.of(*await ctx.memex.intents.create(fields, scope, ctx.origin))


async def update_intent(
    info: Info,
    id: RecordId,
    patch: Annotated[IntentPatch, strawberry.argument(description="What to change.")],
) -> IntentResult:
    ctx = info.context
    return IntentResult.of(*await ctx.memex.intents.update(id, given(patch), ctx.origin))


async def _intent_move(info: Info, id: str, command: str) -> IntentResult:
    ctx = info.context
    return IntentResult.of(*await ctx.memex.intents.move(id, command, ctx.origin))


async def pause_intent(info: Info, id: RecordId) -> IntentResult:
    return await _intent_move(info, id, "pause")


async def resume_intent(info: Info, id: RecordId) -> IntentResult:
    return await _intent_move(info, id, "resume")


async def complete_intent(info: Info, id: RecordId) -> IntentResult:
    return await _intent_move(info, id, "complete")


async def cancel_intent(info: Info, id: RecordId) -> IntentResult:
    return await _intent_move(info, id, "cancel")


async def create_task(
    info: Info, input: Annotated[TaskInput, strawberry.argument(description="The task.")]
) -> TaskResult:
    fields, scope = _split(input)
    ctx = info.context
    return TaskResult.of(*await ctx.memex.tasks.create(fields, scope, ctx.origin))


async def update_task(
    info: Info,
    id: RecordId,
    patch: Annotated[TaskPatch, strawberry.argument(description="What to change.")],
) -> TaskResult:
    ctx = info.context
    return TaskResult.of(*await ctx.memex.tasks.update(id, given(patch), ctx.origin))


async def _task_move(info: Info, id: str, command: str, **changes: Any) -> TaskResult:
    ctx = info.context
    return TaskResult.of(*await ctx.memex.tasks.move(id, command, ctx.origin, **changes))


async def start_task(
    info: Info,
    id: RecordId,
    agent_id: Annotated[
        str | None, strawberry.argument(description="The agent taking it (kept if absent).")
    ] = None,
) -> TaskResult:
    return await _task_move(info, id, "start", agent_id=agent_id)


async def complete_task(
    info: Info,
    id: RecordId,
    result: Annotated[
        JSON | None, strawberry.argument(description="What it produced (a JSON object).")
    ] = None,
) -> TaskResult:
    return await _task_move(info, id, "complete", result=result)


async def fail_task(
    info: Info,
    id: RecordId,
    error: Annotated[str, strawberry.argument(description="Why it failed.")],
) -> TaskResult:
    return await _task_move(info, id, "fail", error=error)


async def cancel_task(info: Info, id: RecordId) -> TaskResult:
    return await _task_move(info, id, "cancel")
