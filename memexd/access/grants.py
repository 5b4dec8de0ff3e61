"""Rights on scope prefixes, and the access a query runs with.

A grant is ``right:prefix`` (``read:project:acme/``). Rights are ordered:
``admin`` includes ``write``, which includes ``read``. A prefix matches every
scope that starts with it; the empty prefix matches every scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from memexd.errors import BadUserInput, Forbidden

__all__ = ["EVERYTHING", "NOBODY", "Access", "Grant", "Right", "parse_grant", "parse_grants"]

#: A prefix: any printable text without whitespace, up to a scope's length.
_PREFIX = re.compile(r"[^\s\x00-\x1f\x7f]{0,256}")
MAX_GRANTS = 64


class Right(Enum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    def includes(self, other: Right) -> bool:
        order = (Right.READ, Right.WRITE, Right.ADMIN)
        return order.index(self) >= order.index(other)


@dataclass(frozen=True, slots=True)
class Grant:
    right: Right
    prefix: str

    def __str__(self) -> str:
        return f"{self.right.value}:{self.prefix}"


def parse_grant(text: str) -> Grant:
    """``read:project:acme/`` → ``Grant(READ, "project:acme/")``."""
    right, sep, prefix = text.partition(":")
    if not sep or right not in {r.value for r in Right}:
        raise BadUserInput(f"{text!r} is not right:prefix with right read, write or admin")
    if not _PREFIX.fullmatch(prefix):
        raise BadUserInput(f"{text!r}: the prefix has whitespace or is over 256 characters")
    return Grant(Right(right), prefix)


def parse_grants(texts: Iterable[str]) -> tuple[Grant, ...]:
    grants = tuple(parse_grant(t) for t in texts)
    if len(grants) > MAX_GRANTS:
        raise BadUserInput(f"more than {MAX_GRANTS} grants")
    return grants


def _minimal(prefixes: Iterable[str]) -> tuple[str, ...]:
    """The prefixes no other one covers, sorted: the shortest list with the
    same meaning, so the Cypher predicate tests as few as possible."""
    kept: list[str] = []
    for prefix in sorted(set(prefixes)):
        if not any(prefix.startswith(k) for k in kept):
            kept.append(prefix)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class Access:
    """What one caller may do; every query is bound to one.

    ``read`` / ``write`` / ``admin`` are the scope prefixes of each right
    (higher rights included in lower ones). ``name`` identifies the caller in
    logs: a key's name or a token's subject, never a secret.
    """

    name: str
    read: tuple[str, ...]
    write: tuple[str, ...]
    admin: tuple[str, ...]

    @classmethod
    def of(cls, name: str, grants: Iterable[Grant]) -> Access:
        grants = tuple(grants)

        def at_least(right: Right) -> tuple[str, ...]:
            return _minimal(g.prefix for g in grants if g.right.includes(right))

        return cls(name, at_least(Right.READ), at_least(Right.WRITE), at_least(Right.ADMIN))

    @classmethod
    def everything(cls, name: str) -> Access:
        return cls(name, ("",), ("",), ("",))

    def can_read(self, scope: str) -> bool:
        return scope.startswith(self.read)  # any of the prefixes (none: False)

    def can_write(self, scope: str) -> bool:
        return scope.startswith(self.write)

    def require_write(self, *scopes: str, field: str | None = None) -> None:
        """``FORBIDDEN`` naming the first of ``scopes`` the caller may not write.
        (Only for scopes the caller can read: an unreadable one is reported
        missing, never forbidden.)"""
        for scope in scopes:
            if not self.can_write(scope):
                raise Forbidden.write(scope, field)

    @property
    def is_admin(self) -> bool:
        """Holds an admin grant (any prefix): may introspect in production."""
        return bool(self.admin)


#: Unrestricted access, for memexd's own work (CLI, migrations, tests' setup).
EVERYTHING = Access.everything("memexd")
#: No access at all: what a connection has before it authenticates.
NOBODY = Access("nobody", (), (), ())
