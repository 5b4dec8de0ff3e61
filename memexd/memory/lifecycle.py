"""An item's lifecycle fields: tier, priority, tags and session (SPEC §11).

They are part of the item's value, so they live in its ``meta``, the one
place MemEX keeps what it does not know: ``meta.memexd`` holds ``lifecycle``,
``priority`` and ``tags`` when they differ from the defaults, and the session
is MemEX's own segmentation key ``meta.session_id``. Events, exports, imports
and replays carry them with no field of their own, and memex-python keeps
them through a round trip. The node also stores them as typed properties,
always set (``lifecycle``, ``priority``, ``tags``; migration 0013 backfills
the defaults), which the filters' indexes serve.

The stored form is canonical, so equal values give equal JSON: defaults are
left out (an item with none has no ``meta.memexd``), tags are unique and
sorted. A caller may send ``meta.memexd`` itself (an import does); it is
checked like the typed fields, and a typed field given beside it wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from memexd.errors import BadUserInput
from memexd.types import JSONObject

__all__ = [
    "DEFAULT_LIFECYCLE",
    "DEFAULT_PRIORITY",
    "LIFECYCLES",
    "MAX_TAGS",
    "NAMESPACE",
    "PRIORITIES",
    "TAG_PATTERN",
    "Tiering",
    "check_lifecycle",
    "check_priority",
    "check_tags",
    "folded",
    "node_props",
    "tiering",
]

LIFECYCLES = ("EPHEMERAL", "SESSION", "TASK", "PROJECT")
PRIORITIES = ("P0", "P1", "P2", "P3")
DEFAULT_LIFECYCLE = "PROJECT"
DEFAULT_PRIORITY = "P2"
#: A tag: lower case letters and digits, then also ``. _ : / -``; ≤ 64 characters.
TAG_PATTERN = r"[a-z0-9][a-z0-9._:/-]{0,63}"
MAX_TAGS = 32
#: The key under ``meta`` that holds the lifecycle fields.
NAMESPACE = "memexd"
SESSION_KEY = "session_id"

_TAG = re.compile(TAG_PATTERN)
_FIELDS = frozenset({"lifecycle", "priority", "tags"})


@dataclass(frozen=True, slots=True)
class Tiering:
    """An item's lifecycle fields, defaults filled in."""

    lifecycle: str = DEFAULT_LIFECYCLE
    priority: str = DEFAULT_PRIORITY
    tags: tuple[str, ...] = ()
    session_id: str | None = None


def check_lifecycle(value: Any, field: str = "lifecycle") -> str:
    value = _plain(value)
    if value not in LIFECYCLES:
        raise BadUserInput(f"{value!r} is not one of {', '.join(LIFECYCLES)}", field=field)
    return str(value)


def check_priority(value: Any, field: str = "priority") -> str:
    value = _plain(value)
    if value not in PRIORITIES:
        raise BadUserInput(f"{value!r} is not one of {', '.join(PRIORITIES)}", field=field)
    return str(value)


def _plain(value: Any) -> Any:
    """An enum member's value (GraphQL inputs read without a copy carry them)."""
    return value.value if isinstance(value, Enum) else value


def check_tags(values: Any, field: str = "tags") -> tuple[str, ...]:
    """Unique and sorted; each matches :data:`TAG_PATTERN`; at most :data:`MAX_TAGS`."""
    if not isinstance(values, list | tuple):
        raise BadUserInput("must be a list of tags", field=field)
    if len(values) > MAX_TAGS:
        raise BadUserInput(f"more than {MAX_TAGS} tags", field=field)
    for tag in values:
        if not isinstance(tag, str) or not _TAG.fullmatch(tag):
            raise BadUserInput(f"{tag!r} is not a tag (pattern {TAG_PATTERN})", field=field)
    return tuple(sorted(set(values)))


def tiering(meta: JSONObject | None) -> Tiering:
    """The fields of a stored (already canonical) ``meta``."""
    if not meta:
        return Tiering()
    held = meta.get(NAMESPACE) or {}
    session = meta.get(SESSION_KEY)
    return Tiering(
        held.get("lifecycle", DEFAULT_LIFECYCLE),
        held.get("priority", DEFAULT_PRIORITY),
        tuple(held.get("tags", ())),
        session if isinstance(session, str) else None,
    )


def folded(
    meta: JSONObject | None,
    lifecycle: Any = None,
    priority: Any = None,
    tags: Any = None,
    session_id: Any = None,
    *,
    field: str = "",
) -> JSONObject | None:
    """``meta`` with the given fields folded in, checked and canonical.
    ``field``: where the input sits (``patch.``) for error paths."""
    given = {
        "lifecycle": None if lifecycle is None else check_lifecycle(lifecycle, f"{field}lifecycle"),
        "priority": None if priority is None else check_priority(priority, f"{field}priority"),
        "tags": None if tags is None else check_tags(tags, f"{field}tags"),
    }
    if meta is None and session_id is None and all(v is None for v in given.values()):
        return None
    out = dict(meta or {})
    if session_id is not None:
        out[SESSION_KEY] = _session(session_id, f"{field}sessionId")
    held = _held(out.get(NAMESPACE), f"{field}meta.{NAMESPACE}")
    held.update({k: v for k, v in given.items() if v is not None})
    canonical = _canonical(held)
    if canonical:
        out[NAMESPACE] = canonical
    else:
        out.pop(NAMESPACE, None)
    return out


def _session(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 512:
        raise BadUserInput("must be a non-empty string of at most 512 characters", field=field)
    return value


def _held(value: Any, field: str) -> dict[str, Any]:
    """A caller's own ``meta.memexd``, checked."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadUserInput("must be an object", field=field)
    unknown = set(value) - _FIELDS
    if unknown:
        raise BadUserInput(f"unknown keys {sorted(unknown)}; known: {sorted(_FIELDS)}", field=field)
    out: dict[str, Any] = {}
    if "lifecycle" in value:
        out["lifecycle"] = check_lifecycle(value["lifecycle"], f"{field}.lifecycle")
    if "priority" in value:
        out["priority"] = check_priority(value["priority"], f"{field}.priority")
    if "tags" in value:
        out["tags"] = check_tags(value["tags"], f"{field}.tags")
    return out


def _canonical(held: dict[str, Any]) -> JSONObject:
    out: JSONObject = {}
    if held.get("lifecycle", DEFAULT_LIFECYCLE) != DEFAULT_LIFECYCLE:
        out["lifecycle"] = held["lifecycle"]
    if held.get("priority", DEFAULT_PRIORITY) != DEFAULT_PRIORITY:
        out["priority"] = held["priority"]
    if held.get("tags"):
        out["tags"] = list(held["tags"])
    return out


def node_props(meta: JSONObject | None) -> dict[str, Any]:
    """The typed node properties, always set (the filters' indexes read them)."""
    t = tiering(meta)
    return {"lifecycle": t.lifecycle, "priority": t.priority, "tags": list(t.tags)}
