"""An intent's or a task's links as relationship parameters.

The id fields stay the source of truth: MemEX ids may name records that do
not exist yet, in any order. The statements that write a record mirror them
as relationships to the nodes that exist (``cypher/plan_create.cypher``,
``plan_write.cypher``; the names are in ``spec`` and docs/graph-model.md).
Links to intents and tasks that do not exist yet are made when those are
created (found through the indexed id properties); links to items that do
not exist yet wait on a ``PendingItem`` node, since no engine indexes the
members of a list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memexd.intents.spec import Kind

__all__ = ["link_params", "relink_params"]


def link_params(kind: Kind, data: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The relationships a record's data calls for, by target label:
    ``to_intents`` ``{type, id}``, ``to_tasks`` ids (``SUBTASK_OF``),
    ``to_items`` ``{type, id, ord}`` (``ord``: the position in the list)."""
    to_intents: list[dict[str, Any]] = []
    to_tasks: list[str] = []
    to_items: list[dict[str, Any]] = []
    for name, link in kind.links.items():
        value = data.get(name)
        if value is None:
            continue
        if link.target == "Item":
            to_items.extend({"type": link.type, "id": v, "ord": i} for i, v in enumerate(value))
        elif link.target == "Intent":
            to_intents.append({"type": link.type, "id": value})
        else:
            to_tasks.append(value)
    return {"to_intents": to_intents, "to_tasks": to_tasks, "to_items": to_items}


def relink_params(
    kind: Kind, before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any]:
    """``plan_write``'s link parameters: the new links, if they changed
    (``relink``); none otherwise, so a lifecycle move touches no relationship."""
    old, new = link_params(kind, before), link_params(kind, after)
    if old == new:
        return {"relink": False, "to_intents": [], "to_tasks": [], "to_items": []}
    return {"relink": True, **new}
