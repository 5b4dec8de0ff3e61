"""Intents and tasks in GraphQL: types, inputs, filters, results.

Records are MemEX JSON underneath (``memexd.intents.records``); nested fields
(``Intent.tasks``, ``Task.inputMemories``, ``MemoryItem.intent`` …) read
through the per-request loaders.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

import strawberry
from memexd.schema.common import Info
from memexd.schema.events import Event
from memexd.schema.items import MemoryItem
from strawberry.scalars import JSON

from memexd.events.vocabulary import Event as EventRecord
from memexd.intents.records import Record

__all__ = [
    "Intent",
    "IntentFilter",
    "IntentInput",
    "IntentPatch",
    "IntentResult",
    "IntentStatus",
    "Task",
    "TaskFilter",
    "TaskInput",
    "TaskPatch",
    "TaskResult",
    "TaskStatus",
    "given",
]


@strawberry.enum(description="Where an intent stands: active ⇄ paused → completed / cancelled.")
class IntentStatus(Enum):
    ACTIVE = strawberry.enum_value("active", description="Being worked towards.")
    PAUSED = strawberry.enum_value("paused", description="On hold; resume makes it active again.")
    COMPLETED = strawberry.enum_value("completed", description="Reached (final).")
    CANCELLED = strawberry.enum_value("cancelled", description="Given up (final).")


@strawberry.enum(
    description="Where a task stands: pending/failed → running → completed/failed; "
    "pending/running/failed → cancelled."
)
class TaskStatus(Enum):
    PENDING = strawberry.enum_value("pending", description="Not started yet.")
    RUNNING = strawberry.enum_value("running", description="Being worked on by an agent.")
    COMPLETED = strawberry.enum_value("completed", description="Done, with its result (final).")
    FAILED = strawberry.enum_value("failed", description="Failed; may be started again (a retry).")
    CANCELLED = strawberry.enum_value("cancelled", description="Called off (final).")


def given(value: Any) -> dict[str, Any]:
    """An input's fields by their MemEX names (enums as their values). Fields
    left out of a patch are left out here; an explicit null stays ``None``."""
    out = {}
    for f in dataclasses.fields(value):
        v = getattr(value, f.name)
        if v is strawberry.UNSET:
            continue
        if isinstance(v, Enum):
            v = v.value
        elif isinstance(v, list) and v and isinstance(v[0], Enum):
            v = [e.value for e in v]
        out[f.name] = v
    return out


def _ids(values: Any) -> list[strawberry.ID]:
    return [strawberry.ID(v) for v in values or []]


def _id(value: Any) -> strawberry.ID | None:
    return None if value is None else strawberry.ID(value)


@strawberry.federation.type(
    keys=["id"], description="A goal: what the agents work towards (MemEX intent)."
)
class Intent:
    record: strawberry.Private[Record]

    @classmethod
    def of(cls, record: Record | None) -> Intent | None:
        return None if record is None else cls(record=record)

    @classmethod
    async def resolve_reference(cls, info: Info, key: str) -> Intent | None:
        """A federation reference: null when missing or unreadable."""
        return cls.of(await info.context.loaders.intents.load(key))

    @strawberry.field(description="The intent's id.")
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.record.id)

    @strawberry.field(description="The intent it is part of.")
    def parent_id(self) -> strawberry.ID | None:
        return _id(self.record.data.get("parent_id"))

    @strawberry.field(description="A short name.")
    def label(self) -> str:
        return str(self.record.data["label"])

    @strawberry.field(description="What it is about, in prose.")
    def description(self) -> str | None:
        return self.record.data.get("description")

    @strawberry.field(description="How much it matters, in [0, 1].")
    def priority(self) -> float:
        return float(self.record.data["priority"])

    @strawberry.field(description="Whose goal it is: `user:…`, `agent:…`.")
    def owner(self) -> str:
        return str(self.record.data["owner"])

    @strawberry.field(description="Its lifecycle status.")
    def status(self) -> IntentStatus:
        return IntentStatus(self.record.status)

    @strawberry.field(description="Free-form JSON object.")
    def context(self) -> JSON | None:
        return self.record.data.get("context")

    @strawberry.field(description="Memory items it is anchored in (may name missing ids).")
    def root_memory_ids(self) -> list[strawberry.ID]:
        return _ids(self.record.data.get("root_memory_ids"))

    @strawberry.field(description="Free-form JSON object.")
    def meta(self) -> JSON | None:
        return self.record.data.get("meta")

    @strawberry.field(description="The scope its grants are checked on (memexd's addition).")
    def scope(self) -> str:
        return self.record.scope

    @strawberry.field(description="The parent intent, if it exists and is readable.")
    async def parent(self, info: Info) -> Intent | None:
        parent = self.record.data.get("parent_id")
        if parent is None:
            return None
        return Intent.of(await info.context.loaders.intents.load(parent))

    @strawberry.field(description="Its sub-intents.")
    async def children(self, info: Info) -> list[Intent]:
        found = await info.context.loaders.sub_intents.load(self.record.id)
        return [Intent(record=r) for r in found]

    @strawberry.field(description="The tasks serving it.")
    async def tasks(self, info: Info) -> list[Task]:
        found = await info.context.loaders.intent_tasks.load(self.record.id)
        return [Task(record=r) for r in found]

    @strawberry.field(description="The live root memory items that exist, in list order.")
    async def root_memories(self, info: Info) -> list[MemoryItem]:
        return await MemoryItem.listed(info, self.record.data.get("root_memory_ids"))


@strawberry.federation.type(keys=["id"], description="A unit of work for an intent (MemEX task).")
class Task:
    record: strawberry.Private[Record]

    @classmethod
    def of(cls, record: Record | None) -> Task | None:
        return None if record is None else cls(record=record)

    @classmethod
    async def resolve_reference(cls, info: Info, key: str) -> Task | None:
        """A federation reference: null when missing or unreadable."""
        return cls.of(await info.context.loaders.tasks.load(key))

    @strawberry.field(description="The task's id.")
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.record.id)

    @strawberry.field(description="The intent it serves.")
    def intent_id(self) -> strawberry.ID:
        return strawberry.ID(self.record.data["intent_id"])

    @strawberry.field(description="The task it is a step of.")
    def parent_id(self) -> strawberry.ID | None:
        return _id(self.record.data.get("parent_id"))

    @strawberry.field(description="What to do, e.g. `search_linkedin`.")
    def action(self) -> str:
        return str(self.record.data["action"])

    @strawberry.field(description="A short name.")
    def label(self) -> str | None:
        return self.record.data.get("label")

    @strawberry.field(description="Its lifecycle status.")
    def status(self) -> TaskStatus:
        return TaskStatus(self.record.status)

    @strawberry.field(description="How much it matters, in [0, 1].")
    def priority(self) -> float:
        return float(self.record.data["priority"])

    @strawberry.field(description="Free-form JSON object.")
    def context(self) -> JSON | None:
        return self.record.data.get("context")

    @strawberry.field(description="What it produced (set by completeTask).")
    def result(self) -> JSON | None:
        return self.record.data.get("result")

    @strawberry.field(description="Why it failed (set by failTask).")
    def error(self) -> str | None:
        return self.record.data.get("error")

    @strawberry.field(description="Memory items it consumes (may name missing ids).")
    def input_memory_ids(self) -> list[strawberry.ID]:
        return _ids(self.record.data.get("input_memory_ids"))

    @strawberry.field(description="Memory items it produced (may name missing ids).")
    def output_memory_ids(self) -> list[strawberry.ID]:
        return _ids(self.record.data.get("output_memory_ids"))

    @strawberry.field(description="The agent running it.")
    def agent_id(self) -> str | None:
        return self.record.data.get("agent_id")

    @strawberry.field(description="How many times it was started.")
    def attempt(self) -> int:
        return int(self.record.data.get("attempt", 0))

    @strawberry.field(description="Free-form JSON object.")
    def meta(self) -> JSON | None:
        return self.record.data.get("meta")

    @strawberry.field(description="The scope its grants are checked on (memexd's addition).")
    def scope(self) -> str:
        return self.record.scope

    @strawberry.field(description="The intent, if it exists and is readable.")
    async def intent(self, info: Info) -> Intent | None:
        return Intent.of(await info.context.loaders.intents.load(self.record.data["intent_id"]))

    @strawberry.field(description="The parent task, if it exists and is readable.")
    async def parent(self, info: Info) -> Task | None:
        parent = self.record.data.get("parent_id")
        return None if parent is None else Task.of(await info.context.loaders.tasks.load(parent))

    @strawberry.field(description="Its subtasks.")
    async def children(self, info: Info) -> list[Task]:
        found = await info.context.loaders.subtasks.load(self.record.id)
        return [Task(record=r) for r in found]

    @strawberry.field(description="The live input items that exist, in list order.")
    async def input_memories(self, info: Info) -> list[MemoryItem]:
        return await MemoryItem.listed(info, self.record.data.get("input_memory_ids"))

    @strawberry.field(description="The live output items that exist, in list order.")
    async def output_memories(self, info: Info) -> list[MemoryItem]:
        return await MemoryItem.listed(info, self.record.data.get("output_memory_ids"))


@strawberry.input(description="A new intent (status starts `active`).")
class IntentInput:
    id: strawberry.ID | None = strawberry.field(default=None, description="A UUID; made if absent.")
    parent_id: strawberry.ID | None = strawberry.field(default=None, description="Parent intent.")
    label: str = strawberry.field(description="A short name.")
    description: str | None = strawberry.field(default=None, description="Prose.")
    priority: float = strawberry.field(description="In [0, 1].")
    owner: str = strawberry.field(description="Whose goal it is.")
    context: JSON | None = strawberry.field(default=None, description="JSON object.")
    root_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Memory items it is anchored in."
    )
    meta: JSON | None = strawberry.field(default=None, description="JSON object.")
    scope: str | None = strawberry.field(
        default=None,
        description="Whose it is, for grants; default: your only write prefix (README).",
    )


@strawberry.input(
    description="What to change on an intent: fields left out stay as they are, "
    "null clears an optional field (label and priority cannot be cleared)."
)
class IntentPatch:
    label: str | None = strawberry.field(default=strawberry.UNSET, description="A short name.")
    description: str | None = strawberry.field(default=strawberry.UNSET, description="Prose.")
    priority: float | None = strawberry.field(default=strawberry.UNSET, description="In [0, 1].")
    context: JSON | None = strawberry.field(
        default=strawberry.UNSET, description="Replaces the context."
    )
    root_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=strawberry.UNSET, description="Replaces the list."
    )
    meta: JSON | None = strawberry.field(default=strawberry.UNSET, description="Replaces the meta.")


@strawberry.input(description="A new task (status starts `pending`, attempt 0).")
class TaskInput:
    id: strawberry.ID | None = strawberry.field(default=None, description="A UUID; made if absent.")
    intent_id: strawberry.ID = strawberry.field(description="The intent it serves.")
    parent_id: strawberry.ID | None = strawberry.field(default=None, description="Parent task.")
    action: str = strawberry.field(description="What to do.")
    label: str | None = strawberry.field(default=None, description="A short name.")
    priority: float = strawberry.field(description="In [0, 1].")
    context: JSON | None = strawberry.field(default=None, description="JSON object.")
    input_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Memory items it consumes."
    )
    output_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Memory items it produced."
    )
    agent_id: str | None = strawberry.field(default=None, description="The agent assigned.")
    meta: JSON | None = strawberry.field(default=None, description="JSON object.")
    scope: str | None = strawberry.field(
        default=None, description="Whose it is, for grants; default: its intent's scope (README)."
    )


@strawberry.input(
    description="What to change on a task: fields left out stay as they are, "
    "null clears an optional field (priority cannot be cleared)."
)
class TaskPatch:
    label: str | None = strawberry.field(default=strawberry.UNSET, description="A short name.")
    priority: float | None = strawberry.field(default=strawberry.UNSET, description="In [0, 1].")
    context: JSON | None = strawberry.field(
        default=strawberry.UNSET, description="Replaces the context."
    )
    input_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=strawberry.UNSET, description="Replaces the list."
    )
    output_memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=strawberry.UNSET, description="Replaces the list."
    )
    meta: JSON | None = strawberry.field(default=strawberry.UNSET, description="Replaces the meta.")


@strawberry.input(description="Which intents (every condition optional, all must hold).")
class IntentFilter:
    owner: str | None = strawberry.field(default=None, description="Exactly this owner.")
    status: IntentStatus | None = strawberry.field(default=None, description="This status.")
    statuses: list[IntentStatus] | None = strawberry.field(
        default=None, description="One of these statuses."
    )
    min_priority: float | None = strawberry.field(default=None, description="Priority ≥ this.")
    has_memory_id: strawberry.ID | None = strawberry.field(
        default=None, description="Anchored in this memory item."
    )
    parent_id: strawberry.ID | None = strawberry.field(default=None, description="Sub-intents of.")
    is_root: bool | None = strawberry.field(
        default=None, description="true: no parent; false: has one."
    )


@strawberry.input(description="Which tasks (every condition optional, all must hold).")
class TaskFilter:
    intent_id: strawberry.ID | None = strawberry.field(default=None, description="Serving it.")
    action: str | None = strawberry.field(default=None, description="This action.")
    status: TaskStatus | None = strawberry.field(default=None, description="This status.")
    statuses: list[TaskStatus] | None = strawberry.field(
        default=None, description="One of these statuses."
    )
    agent_id: str | None = strawberry.field(default=None, description="Assigned to this agent.")
    min_priority: float | None = strawberry.field(default=None, description="Priority ≥ this.")
    has_input_memory_id: strawberry.ID | None = strawberry.field(
        default=None, description="Consumes this item."
    )
    has_output_memory_id: strawberry.ID | None = strawberry.field(
        default=None, description="Produced this item."
    )
    parent_id: strawberry.ID | None = strawberry.field(default=None, description="Subtasks of.")
    is_root: bool | None = strawberry.field(
        default=None, description="true: no parent; false: has one."
    )


@strawberry.type(description="An intent after a command, and the events it emitted.")
class IntentResult:
    intent: Intent = strawberry.field(description="The intent as it is now.")
    events: list[Event] = strawberry.field(description="The events, in order.")

    @classmethod
    def of(cls, record: Record, events: list[EventRecord]) -> IntentResult:
        return cls(intent=Intent(record=record), events=Event.all(events))


@strawberry.type(description="A task after a command, and the events it emitted.")
class TaskResult:
    task: Task = strawberry.field(description="The task as it is now.")
    events: list[Event] = strawberry.field(description="The events, in order.")

    @classmethod
    def of(cls, record: Record, events: list[EventRecord]) -> TaskResult:
        return cls(task=Task(record=record), events=Event.all(events))
