"""Reading intents and tasks: by id, by filter (in Cypher), by link."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memexd.errors import BadUserInput
from memexd.graph import Graph
from memexd.intents.records import Record, check_status, record_from_row
from memexd.intents.spec import TASK, Kind
from memexd.memory import validation as check
from memexd.memory.validation import Limits
from memexd.types import Row

__all__ = ["PlanReads"]

#: Filter fields (MemEX's snake_case) and the query parameter each fills.
_FILTERS: Mapping[str, Mapping[str, str]] = {
    "intent": {"owner": "owner", "status": "status", "statuses": "statuses",
               "min_priority": "min_priority", "has_memory_id": "memory_id",
               "parent_id": "parent_id", "is_root": "is_root"},
    "task": {"intent_id": "intent_id", "action": "action", "status": "status",
             "statuses": "statuses", "agent_id": "agent_id", "min_priority": "min_priority",
             "has_input_memory_id": "input_id", "has_output_memory_id": "output_id",
             "parent_id": "parent_id", "is_root": "is_root"},
}  # fmt: skip
_IDS = frozenset({"parent_id", "intent_id", "has_memory_id", "has_input_memory_id",
                  "has_output_memory_id"})  # fmt: skip


class PlanReads:
    def __init__(self, graph: Graph, limits: Limits, kind: Kind) -> None:
        self.graph = graph
        self.limits = limits
        self.kind = kind

    async def get(self, record_id: str) -> Record | None:
        record_id = check.check_uuid(record_id)
        return (await self.fetch([record_id])).get(record_id)

    async def fetch(self, ids: Sequence[str]) -> dict[str, Record]:
        """Records by id, for ids memexd holds (loaders): any number."""
        if not ids:
            return {}
        unique = {"ids": list(dict.fromkeys(ids))}
        rows = await self.graph.read("plan_get", unique, label=self.kind.label)
        found = (record_from_row(self.kind, row["record"]) for row in rows)
        return {r.id: r for r in found}

    async def find(self, flt: Mapping[str, Any] | None, limit: int | None) -> list[Record]:
        params: dict[str, Any] = {p: None for p in _FILTERS[self.kind.name].values()}
        for name, value in (flt or {}).items():
            if value is not None:
                params[_FILTERS[self.kind.name][name]] = _check(self.kind, name, value, self.limits)
        params["limit"] = self.limits.page(limit)
        rows = await self.graph.read(f"{self.kind.name}_find", params)
        return [record_from_row(self.kind, row["record"]) for row in rows]

    async def children_of(self, ids: Sequence[str]) -> dict[str, list[Record]]:
        """Sub-intents (subtasks) of each readable intent (task) id."""
        if not ids:
            return {}
        rows = await self.graph.read("plan_children", {"ids": list(ids)}, label=self.kind.label)
        return _grouped(self.kind, rows)

    async def tasks_of(self, intent_ids: Sequence[str]) -> dict[str, list[Record]]:
        """The tasks of each readable intent (task reads only)."""
        if not intent_ids:
            return {}
        rows = await self.graph.read("task_of_intents", {"ids": list(intent_ids)})
        return _grouped(TASK, rows)


def _grouped(kind: Kind, rows: list[Row]) -> dict[str, list[Record]]:
    """One list of records per id, from rows of ``id, records``."""
    return {row["id"]: [record_from_row(kind, r) for r in row["records"]] for row in rows}


def _check(kind: Kind, name: str, value: Any, limits: Limits) -> Any:
    field = f"filter.{name}"
    if name in _IDS:
        return check.check_uuid(value, field)
    if name == "min_priority":
        return check.check_finite(value, field)
    if name == "is_root":
        if not isinstance(value, bool):
            raise BadUserInput("must be true or false", field=field)
        return value
    if name == "statuses":
        return [check_status(kind, s, field) for s in check.check_names(value, field, limits) or []]
    if name == "status":
        return check_status(kind, value, field)
    return check.check_text(value, field)
