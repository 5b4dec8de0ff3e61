"""Arguments several tools take, with the descriptions agents read."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__all__ = ["Author", "Id", "Limit", "ScopePrefix"]

Id = Annotated[str, Field(description="An item id (a UUID).")]
ScopePrefix = Annotated[
    str | None, Field(description="Only items whose scope starts with this (e.g. 'proj/x/').")
]
Author = Annotated[
    str | None,
    Field(description="Who is acting (kept on the events); default: your key's name."),
]
Limit = Annotated[int, Field(ge=1, le=100, description="At most this many.")]
