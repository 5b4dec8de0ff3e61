"""What an intent and a task are: fields, statuses, links, lifecycle tables (seed 004)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["INTENT", "TASK", "Kind", "Link", "Move"]


@dataclass(frozen=True, slots=True)
class Move:
    """A lifecycle command: the statuses it is valid from, the status it
    leads to, and the event it emits."""

    valid_from: frozenset[str]
    target: str
    event: str


@dataclass(frozen=True, slots=True)
class Link:
    """A field naming other records, mirrored as relationships of ``type``
    from the record to the ``target`` nodes that exist (docs/graph-model.md)."""

    type: str
    target: str  # "Intent", "Task" or "Item"


@dataclass(frozen=True, slots=True)
class Kind:
    name: str  # "intent": event namespace, MemEX key, error wording
    label: str  # the node label
    initial: str
    moves: Mapping[str, Move]
    #: fields a new record must have, and the optional ones, by type
    required: tuple[str, ...]
    texts: tuple[str, ...]
    ids: tuple[str, ...]
    id_lists: tuple[str, ...]
    objects: tuple[str, ...]
    #: what the GraphQL patch may change (the contract's ``…Patch``)
    patchable: tuple[str, ...]
    #: every field, in MemEX's JSON order
    order: tuple[str, ...]
    #: the fields that name other records, and their relationships
    links: Mapping[str, Link]

    @property
    def statuses(self) -> frozenset[str]:
        return frozenset({self.initial, *(m.target for m in self.moves.values())})

    @property
    def updatable(self) -> frozenset[str]:
        """What a MemEX update may change: everything but id and status."""
        return frozenset(self.order) - {"id", "status"}

    @property
    def kept(self) -> frozenset[str]:
        """Fields every record has, so an update cannot clear them."""
        return frozenset({*self.required, "priority"})


def _moves(table: dict[str, tuple[tuple[str, ...], str, str]]) -> Mapping[str, Move]:
    return {cmd: Move(frozenset(f), to, ev) for cmd, (f, to, ev) in table.items()}


# fmt: off
INTENT = Kind(
    name="intent",
    label="Intent",
    initial="active",
    moves=_moves({
        "pause": (("active",), "paused", "intent.paused"),
        "resume": (("paused",), "active", "intent.resumed"),
        "complete": (("active", "paused"), "completed", "intent.completed"),
        "cancel": (("active", "paused"), "cancelled", "intent.cancelled"),
    }),
    required=("label", "owner"),
    texts=("label", "description", "owner"),
    ids=("parent_id",),
    id_lists=("root_memory_ids",),
    objects=("context", "meta"),
    patchable=("label", "description", "priority", "context", "root_memory_ids", "meta"),
    order=("id", "parent_id", "label", "description", "priority", "owner", "status", "context",
           "root_memory_ids", "meta"),
    links={"parent_id": Link("SUBINTENT_OF", "Intent"),
           "root_memory_ids": Link("ROOT", "Item")},
)

TASK = Kind(
    name="task",
    label="Task",
    initial="pending",
    moves=_moves({
        "start": (("pending", "failed"), "running", "task.started"),
        "complete": (("running",), "completed", "task.completed"),
        "fail": (("running",), "failed", "task.failed"),
        "cancel": (("pending", "running", "failed"), "cancelled", "task.cancelled"),
    }),
    required=("intent_id", "action"),
    texts=("action", "label", "error", "agent_id"),
    ids=("intent_id", "parent_id"),
    id_lists=("input_memory_ids", "output_memory_ids"),
    objects=("context", "result", "meta"),
    patchable=("label", "priority", "context", "input_memory_ids", "output_memory_ids", "meta"),
    order=("id", "intent_id", "parent_id", "action", "label", "status", "priority", "context",
           "result", "error", "input_memory_ids", "output_memory_ids", "agent_id", "attempt",
           "meta"),
    links={"intent_id": Link("FOR_INTENT", "Intent"),
           "parent_id": Link("SUBTASK_OF", "Task"),
           "input_memory_ids": Link("READS", "Item"),
           "output_memory_ids": Link("WROTE", "Item")},
)
# fmt: on
