"""Domain records: plain immutable data, no persistence behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexd.types import JSONObject

__all__ = [
    "Direction",
    "Edge",
    "EdgeFilter",
    "EdgePatch",
    "Item",
    "ItemPatch",
    "NewEdge",
    "NewItem",
    "SortKey",
]


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    scope: str
    kind: str
    content: JSONObject
    author: str
    source_kind: str
    authority: float
    created_at: int
    #: ``None``: the item was created without a ``parents`` list (MemEX keeps
    #: "absent" and "empty" apart, and so do its exports and events).
    parents: tuple[str, ...] | None = None
    conviction: float | None = None
    importance: float | None = None
    intent_id: str | None = None
    task_id: str | None = None
    meta: JSONObject | None = None
    retracted: bool = False
    #: Insertion order (the log position of its ``memory.created``), as
    #: stored; not part of the item's value.
    seq: int = field(default=0, compare=False)
    #: How often it was read with access tracking, and when last (epoch ms):
    #: statistics, not part of its value (SPEC §11).
    access_count: int = field(default=0, compare=False)
    last_accessed_at: int | None = field(default=None, compare=False)
    #: Archived: left out of every read unless asked for (SPEC §11).
    archived: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class Edge:
    edge_id: str
    from_id: str
    to_id: str
    kind: str
    author: str
    source_kind: str
    authority: float
    weight: float | None = None
    active: bool = True
    meta: JSONObject | None = None
    #: Insertion order (the log position of its ``edge.created``): MemEX
    #: reports the edges of a retracted item in this order.
    seq: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class SortKey:
    field: str  # authority | conviction | importance | recency
    descending: bool = True


@dataclass(frozen=True, slots=True)
class Direction:
    outgoing: bool = True
    incoming: bool = True


# ---------------------------------------------------------------- drafts
# What callers ask for, before validation (memexd.memory.validation turns
# drafts into records). ``Any`` where a client may send any JSON.


@dataclass(frozen=True, slots=True)
class NewItem:
    scope: Any
    kind: Any
    content: Any
    author: Any
    source_kind: Any
    authority: Any
    id: Any = None
    parents: Any = None
    conviction: Any = None
    importance: Any = None
    intent_id: Any = None
    task_id: Any = None
    meta: Any = None
    #: The lifecycle fields (memexd.memory.lifecycle): folded into ``meta``.
    lifecycle: Any = None
    priority: Any = None
    tags: Any = None
    session_id: Any = None


@dataclass(frozen=True, slots=True)
class ItemPatch:
    """Fields to change; ``None`` means "leave as is"."""

    scope: Any = None
    kind: Any = None
    content: Any = None
    author: Any = None
    source_kind: Any = None
    parents: Any = None
    authority: Any = None
    conviction: Any = None
    importance: Any = None
    intent_id: Any = None
    task_id: Any = None
    meta: Any = None
    #: The lifecycle fields: folded into ``meta`` when the patch is applied.
    lifecycle: Any = None
    priority: Any = None
    tags: Any = None
    session_id: Any = None

    def given(self) -> dict[str, Any]:
        """The fields set, by name (tuples of parents as lists)."""
        out = {f: getattr(self, f) for f in self.__slots__ if getattr(self, f) is not None}
        if "parents" in out:
            out["parents"] = list(out["parents"])
        return out


@dataclass(frozen=True, slots=True)
class NewEdge:
    from_id: Any
    to_id: Any
    kind: Any
    author: Any
    source_kind: Any
    authority: Any
    edge_id: Any = None
    weight: Any = None
    active: Any = True
    meta: Any = None


@dataclass(frozen=True, slots=True)
class EdgePatch:
    kind: Any = None
    weight: Any = None
    authority: Any = None
    active: Any = None
    meta: Any = None

    def given(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__slots__ if getattr(self, f) is not None}


@dataclass(frozen=True, slots=True)
class EdgeFilter:
    from_id: Any = None
    to_id: Any = None
    kind: Any = None
    min_weight: Any = None
    active_only: Any = True
