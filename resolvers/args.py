"""Argument types the resolvers share, with their descriptions."""

from __future__ import annotations

from typing import Annotated, TypeAlias

import strawberry
from strawberry.scalars import JSON

__all__ = ["Author", "ItemId", "Limit", "Meta", "Reason"]

ItemId: TypeAlias = Annotated[strawberry.ID, strawberry.argument(description="The item's id.")]
Author: TypeAlias = Annotated[
    str, strawberry.argument(description="Who makes the change (`user:…`, `agent:…`).")
]
Reason: TypeAlias = Annotated[
    str | None, strawberry.argument(description="Why, recorded in the events (≤ 4096 characters).")
]
Limit: TypeAlias = Annotated[
    int | None,
    strawberry.argument(description="At most this many (default and maximum: MEMEXD_MAX_PAGE)."),
]
Meta: TypeAlias = Annotated[
    JSON | None, strawberry.argument(description="Free-form JSON object stored on the edge.")
]
