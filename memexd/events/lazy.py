"""Events a command returns, made on first look.

A batch of thousands of items, or a cascade over thousands, is rarely asked
for its events: the command logs them from what it already has (ids drawn,
the rest from the rows), and the records a caller may read back are built
only if it looks at them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from memexd.events.vocabulary import Event

__all__ = ["LazyEvents"]


class LazyEvents(Sequence[Event]):
    """A sequence of events built by :meth:`_make` on first access; a
    subclass gives ``_make`` and ``__len__`` (known without building)."""

    _made: list[Event] | None = None

    def _make(self) -> list[Event]:
        raise NotImplementedError

    def _all(self) -> list[Event]:
        if self._made is None:
            self._made = self._make()
        return self._made

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return self._all()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())
