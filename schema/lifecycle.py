"""The lifecycle fields in GraphQL: tiers and priorities (SPEC §11)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from memexd.memory.lifecycle import TAG_PATTERN

__all__ = ["TAGS", "AccessStats", "Lifecycle", "Priority", "PromotionTag", "value"]


@strawberry.enum(description="How long a memory is meant to live; PROJECT ones are never archived.")
class Lifecycle(Enum):
    EPHEMERAL = strawberry.enum_value("EPHEMERAL", description="Scratch: archived first.")
    SESSION = strawberry.enum_value("SESSION", description="For one agent session.")
    TASK = strawberry.enum_value("TASK", description="For one unit of work.")
    PROJECT = strawberry.enum_value("PROJECT", description="Lasting knowledge (the default).")


@strawberry.enum(description="How much a memory weighs in decay ranking: P0 highest.")
class Priority(Enum):
    P0 = strawberry.enum_value("P0", description="Critical: importance 2.")
    P1 = strawberry.enum_value("P1", description="High: importance 1.5.")
    P2 = strawberry.enum_value("P2", description="Normal: importance 1 (the default).")
    P3 = strawberry.enum_value("P3", description="Low: importance 0.5.")


@strawberry.enum(
    description="The taxonomy of project knowledge: each is also a tag, in lower case."
)
class PromotionTag(Enum):
    DECISION = strawberry.enum_value("decision", description="A choice made, and why.")
    CONVENTION = strawberry.enum_value("convention", description="How things are done here.")
    PATTERN = strawberry.enum_value("pattern", description="A solution that recurs.")
    PITFALL = strawberry.enum_value("pitfall", description="A mistake to avoid.")
    INTERFACE = strawberry.enum_value("interface", description="How parts talk to each other.")
    INVARIANT = strawberry.enum_value("invariant", description="What must always hold.")
    FAQ = strawberry.enum_value("faq", description="A question that comes back.")


@strawberry.type(description="How often an item was read with access tracking, and when last.")
class AccessStats:
    count: int = strawberry.field(description="Reads with `trackAccess` and `recordAccess` calls.")
    last_accessed_at: datetime | None = strawberry.field(description="The last of them.")


#: How tags are described wherever they are given.
TAGS = f"Tags, each matching `{TAG_PATTERN}`; at most 32, kept unique and sorted."


def value(member: Enum | None) -> str | None:
    """An enum input's value for the domain (None stays None)."""
    return None if member is None else str(member.value)
