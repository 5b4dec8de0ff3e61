"""Neo4j bookmarks of one request: read your own writes across replicas.

A client that writes through one memexd replica and reads through another
sends back the bookmarks it was given (``Memexd-Bookmarks``); every
transaction of its next request starts only once the database it runs on has
caught up with them. What a request's transactions leave is given to the
client in the response's header of the same name. FalkorDB has no bookmarks:
there the header is neither needed nor sent.
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
    "seen",
    "unbind",
]

#: The request and response header.
HEADER = "Memexd-Bookmarks"
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
