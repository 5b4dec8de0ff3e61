"""Bookmarks of one request: read your own writes across replicas.

A client that writes through one memexd replica and reads through another
sends back the bookmarks it was given (``Memexd-Bookmarks``); every
transaction of its next request starts only once the database it runs on has
caught up with them. What a request's transactions leave is given to the
client in the response's header of the same name.

On Neo4j they are Neo4j's own. On FalkorDB they are needed only when reads go
to the engine's replicas (``MEMEXD_READ_FROM=replicas``): a write leaves the
primary's replication position (``falkordb:<offset>``), and a read that
brings it back runs on a replica only once that replica has reached it.
"""

from __future__ import annotations

import re
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

import neo4j

from memexd.errors import BadUserInput

__all__ = [
    "HEADER",
    "Carried",
    "bind",
    "bind_given",
    "current",
    "given",
    "hand_on",
    "parse",
    "position",
    "reached",
    "seen",
    "unbind",
]

#: The request and response header.
HEADER = "Memexd-Bookmarks"
#: A FalkorDB position's prefix.
_FALKOR = "falkordb:"
#: Neo4j's bookmarks are short base64-like tokens; a client sends back what it got.
_TOKEN = re.compile(r"^[A-Za-z0-9:+/=_.-]{1,512}$")
_MAX_TOKENS = 16


@dataclass
class Carried:
    """The bookmarks a request came with, and the latest its transactions left."""

    given: tuple[str, ...] = ()
    latest: tuple[str, ...] = field(default=())


_current: ContextVar[Carried | None] = ContextVar("memexd_bookmarks", default=None)


def parse(header: str | None) -> tuple[str, ...]:
    """The header's space-separated tokens; malformed ones are ``BAD_USER_INPUT``."""
    if not header:
        return ()
    tokens = tuple(header.split())
    if len(tokens) > _MAX_TOKENS or not all(_TOKEN.match(t) for t in tokens):
        raise BadUserInput(f"{HEADER}: send back at most {_MAX_TOKENS} bookmarks as received")
    return tokens


def bind(header: str | None) -> tuple[Carried, Token[Carried | None]]:
    """Bind a request's bookmarks (the header as sent) for the transactions
    it runs; :func:`unbind` with the token when it is answered."""
    state = Carried(given=parse(header))
    return state, _current.set(state)


def unbind(token: Token[Carried | None]) -> None:
    _current.reset(token)


def current() -> Carried | None:
    """The bookmarks of the request being served (``None``: no request)."""
    return _current.get()


def bind_given(given: tuple[str, ...]) -> Carried:
    """Bind ``given`` in the current context (a task that reads for several
    requests which sent the same bookmarks: :mod:`memexd.graph.batching`)."""
    state = Carried(given=given)
    _current.set(state)
    return state


def hand_on(source: Carried, to: list[Carried]) -> None:
    """Give each request in ``to`` what the transaction of ``source`` left."""
    if source.latest:
        for state in to:
            state.latest = source.latest


def given() -> neo4j.Bookmarks | None:
    state = _current.get()
    if state is None or not state.given:
        return None
    return neo4j.Bookmarks.from_raw_values(state.given)


def seen(bookmarks: neo4j.Bookmarks) -> None:
    """Record what a finished transaction left, for the response."""
    state = _current.get()
    if state is not None and bookmarks.raw_values:
        state.latest = tuple(sorted(bookmarks.raw_values))


def position() -> int:
    """The furthest FalkorDB replication position the request brought back (0: none)."""
    state = _current.get()
    if state is None:
        return 0
    offsets = (t.removeprefix(_FALKOR) for t in state.given if t.startswith(_FALKOR))
    return max((int(o) for o in offsets if o.isdigit()), default=0)


def reached(offset: int) -> None:
    """Record where a FalkorDB write left the primary, for the response."""
    state = _current.get()
    if state is not None:
        state.latest = (f"{_FALKOR}{offset}",)
