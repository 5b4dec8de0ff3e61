"""UUIDv7 identifiers: generation, validation and timestamp extraction."""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, datetime

from memexd.errors import BadUserInput, InvalidTimestamp

__all__ = ["check_uuid", "check_uuid7", "ms_to_datetime", "new_id", "timestamp_ms", "uuid7_at"]

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
_MAX_MS = (1 << 48) - 1


class _Clock:
    """Monotonic UUIDv7 source (RFC 9562 method 1: a 12-bit counter in rand_a).

    Ids minted by one process sort in minting order, so ``RECENCY`` ties are
    rare and deterministic.
    """

    def __init__(self) -> None:
        self.last_ms = 0
        self.counter = 0

    def next(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms <= self.last_ms:
            ms = self.last_ms
            self.counter += 1
            if self.counter > 0xFFF:
                ms += 1
                self.counter = 0
        else:
            self.counter = int.from_bytes(os.urandom(2), "big") & 0x3FF
        self.last_ms = ms
        return _format(ms, self.counter)


def _format(ms: int, rand_a: int) -> str:
    rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_clock = _Clock()


def new_id() -> str:
    """A fresh UUIDv7, strictly increasing within this process."""
    return _clock.next()


def uuid7_at(ms: int) -> str:
    """A random UUIDv7 carrying the given millisecond timestamp."""
    if not 0 <= ms <= _MAX_MS:
        raise InvalidTimestamp(f"timestamp {ms} outside the UUIDv7 range")
    return _format(ms, int.from_bytes(os.urandom(2), "big") & 0xFFF)


def check_uuid(value: str, field: str = "id") -> str:
    """Return the canonical (lower-case) form of a UUID string or raise."""
    lowered = value.lower()
    if not _UUID.match(lowered):
        raise BadUserInput(f"{value!r} is not a UUID", field=field)
    return lowered


def check_uuid7(value: str, field: str = "id") -> str:
    """Like :func:`check_uuid` but the UUID must be version 7: an item's
    creation time is read from its id, so any other version is an
    ``INVALID_TIMESTAMP``, as MemEX's ``extractTimestamp`` has it."""
    lowered = check_uuid(value, field)
    if not _UUID7.match(lowered):
        raise InvalidTimestamp(f"{field}: {value!r} is not a UUIDv7, so it carries no time")
    return lowered


def timestamp_ms(uuid7: str) -> int:
    """Milliseconds since the epoch encoded in a UUIDv7."""
    if not _UUID7.match(uuid7.lower()):
        raise InvalidTimestamp(f"{uuid7!r} is not a UUIDv7")
    return int(uuid7[:8] + uuid7[9:13], 16)


def ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
