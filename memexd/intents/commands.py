"""Creating, updating and moving intents and tasks through their lifecycle.

Every command checks its input first, then reads the record (a record the
caller cannot read is missing), checks the grant and the lifecycle table,
and writes the new state, its links (``links``) and its event in one
statement at the version it read: of two concurrent moves on one record, one
wins and the other reads again (and usually finds its move no longer valid).

Updates follow MemEX: fields given replace the old ones wholesale (objects
too), an explicit null clears a field. ``faithful`` (replay, import) widens
what create and update accept to what MemEX accepts; GraphQL never sets it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memexd.access.grants import Access
from memexd.concurrency import compare_and_set
from memexd.errors import (
    BadUserInput,
    ConstraintViolation,
    DuplicateIntent,
    DuplicateTask,
    IntentNotFound,
    InvalidIntentTransition,
    InvalidTaskTransition,
    InvalidTransition,
    MemexError,
    TaskNotFound,
)
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, event_props
from memexd.graph import Graph
from memexd.intents.links import link_params, relink_params
from memexd.intents.records import (
    Record,
    check_fields,
    check_patch,
    check_scope,
    new_data,
    patched,
    record_from_row,
    record_props,
    update_props,
)
from memexd.intents.spec import INTENT, TASK, Kind
from memexd.memory.records import nulls_apart
from memexd.memory.validation import Limits, check_uuid
from memexd.types import JSONObject

__all__ = ["PlanCommands"]

_ERRORS: Mapping[
    str, tuple[Callable[[str], MemexError], Callable[[str], MemexError], type[InvalidTransition]]
] = {
    "intent": (IntentNotFound, DuplicateIntent, InvalidIntentTransition),
    "task": (TaskNotFound, DuplicateTask, InvalidTaskTransition),
}


class PlanCommands:
    """Commands on one kind (intents or tasks)."""

    def __init__(self, graph: Graph, limits: Limits, kind: Kind) -> None:
        self.graph = graph
        self.limits = limits
        self.kind = kind
        self.not_found, self.duplicate, self.invalid = _ERRORS[kind.name]

    async def create(
        self,
        given: Mapping[str, Any],
        scope: str | None,
        origin: Origin,
        *,
        faithful: bool = False,
    ) -> tuple[Record, list[Event]]:
        """A new record from MemEX-named fields. ``faithful``: keep a given
        ``status`` and leave a task's ``attempt`` absent unless given."""
        data = new_data(self.kind, given, self.limits, faithful=faithful)
        record = Record(data, await self._scope(scope, data))
        event = self._event(record, f"{self.kind.name}.created", "create", origin)
        params = {"id": record.id, "props": record_props(self.kind, record),
                  "events": [event_props(event)], **link_params(self.kind, data)}  # fmt: skip
        try:
            rows = await self.graph.write("plan_create", params, label=self.kind.label)
        except ConstraintViolation:
            rows = []
        if not rows:
            raise self.duplicate(record.id)
        return record, [event]

    async def _scope(self, given: str | None, data: Mapping[str, Any]) -> str:
        """The scope given; else a task's intent's; else the caller's only
        write prefix. It must be writable."""
        access = self.graph.access
        scope = None if given is None else check_scope(given)
        if scope is None and self.kind is TASK:
            ids = {"ids": [data["intent_id"]]}
            rows = await self.graph.read("plan_get", ids, label=INTENT.label)
            scope = rows[0]["record"]["scope"] if rows else None
        if scope is None:
            scope = _sole_prefix(access, self.kind)
        access.require_write(scope, field="scope")
        return scope

    async def update(
        self,
        record_id: str,
        patch: Mapping[str, Any],
        origin: Origin,
        *,
        faithful: bool = False,
    ) -> tuple[Record, list[Event]]:
        """Replace the fields given; a ``None`` value clears its field (never
        a required one). Only the contract's patch fields, unless
        ``faithful``: then every field MemEX updates, and ``id`` and
        ``status`` are ignored as MemEX ignores them."""
        allowed = frozenset(self.kind.patchable)
        if faithful:
            allowed = self.kind.updatable
            patch = {k: v for k, v in patch.items() if k not in ("id", "status")}
        changes, cleared = check_patch(self.kind, patch, self.limits, allowed)
        event_type = f"{self.kind.name}.updated"

        def apply(data: JSONObject) -> JSONObject:
            return patched(data, changes, cleared)

        return await self._change(record_id, apply, "update", event_type, origin)

    async def move(
        self, record_id: str, command: str, origin: Origin, **changes: Any
    ) -> tuple[Record, list[Event]]:
        """A lifecycle command (``pause``, ``start``…) with the fields it sets."""
        move = self.kind.moves[command]
        checked = check_fields(self.kind, changes, self.limits)

        def apply(data: JSONObject) -> JSONObject:
            if data["status"] not in move.valid_from:
                raise self.invalid(self.kind.name, record_id, data["status"], move.target)
            extra = {"attempt": int(data.get("attempt") or 0) + 1} if command == "start" else {}
            return {**data, **checked, **extra, "status": move.target}

        return await self._change(record_id, apply, command, move.event, origin)

    async def _change(
        self,
        record_id: str,
        change: Callable[[JSONObject], JSONObject],
        command: str,
        event_type: str,
        origin: Origin,
    ) -> tuple[Record, list[Event]]:
        name = self.kind.name
        record_id = check_uuid(record_id, "id")

        async def attempt() -> tuple[Record, list[Event]] | None:
            rows = await self.graph.read("plan_get", {"ids": [record_id]}, label=self.kind.label)
            if not rows:
                raise self.not_found(record_id)
            current = record_from_row(self.kind, rows[0]["record"])
            self.graph.access.require_write(current.scope)
            changed = Record(change(current.data), current.scope, current.version)
            event = self._event(changed, event_type, command, origin)
            params = {
                "id": record_id,
                "version": current.version,
                **_props(update_props(self.kind, changed)),
                "events": [event_props(event)],
                **relink_params(self.kind, current.data, changed.data),
            }
            written = await self.graph.write("plan_write", params, label=self.kind.label)
            return (changed, [event]) if written else None

        return await compare_and_set(attempt, f"{name} {record_id}")

    def _event(self, record: Record, type_: str, command: str, origin: Origin) -> Event:
        name = self.kind.name
        return ev.lifecycle(name, type_, f"{name}.{command}", record.json(self.kind), origin,
                            record.scope)  # fmt: skip


def _sole_prefix(access: Access, kind: Kind) -> str:
    if len(access.write) == 1:
        return access.write[0]
    raise BadUserInput(
        f"give the {kind.name} a scope: your grants let you write to "
        f"{len(access.write)} scope prefixes",
        field="scope",
    )


def _props(props: dict[str, Any]) -> dict[str, Any]:
    kept, removed = nulls_apart(props)
    return {"props": kept, "removed": removed}
