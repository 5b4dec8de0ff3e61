"""Shared type aliases and protocols: the vocabulary every layer speaks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeAlias

__all__ = [
    "JSON",
    "GraphStore",
    "JSONObject",
    "Params",
    "Row",
]

#: Any value that survives a JSON round trip.
JSON: TypeAlias = Any
#: A JSON object (``content``, ``meta``, payloads).
JSONObject: TypeAlias = dict[str, Any]
#: One result row: column name to value (scalars, lists, maps).
Row: TypeAlias = dict[str, Any]
#: Query parameters; values are scalars, lists and maps only.
Params: TypeAlias = Mapping[str, Any]


class GraphStore(Protocol):
    """The one seam between memexd and a graph engine.

    Implementations run a single Cypher statement per call (atomic on every
    engine we support) and raise only :mod:`memexd.errors` storage errors.
    """

    #: Name of the Cypher dialect, used to pick per-backend query overrides.
    backend: str

    async def read(self, text: str, params: Params) -> list[Row]:
        """Run a read-only statement."""
        ...

    async def write(self, text: str, params: Params) -> list[Row]:
        """Run a statement that may write."""
        ...

    async def execute_ddl(self, text: str) -> None:
        """Run a schema statement (index, constraint); engine-specific text."""
        ...

    async def ping(self) -> None:
        """Raise :class:`memexd.errors.StorageUnavailable` unless the engine answers."""
        ...

    async def close(self) -> None:
        """Release connections (and stop an embedded engine)."""
        ...
