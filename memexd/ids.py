"""UUIDv7 identifiers: generation and the timestamps they carry (checks live in
:mod:`memexd.memory.validation`)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from memexd.errors import InvalidTimestamp

__all__ = [
    "ID_KEY_END",
    "MAX_TIME_MS",
    "creation_event_id",
    "id_key",
    "ms_to_datetime",
    "new_id",
    "timestamp_ms",
    "uuid7_at",
]

#: 9999-12-31T23:59:59.999Z, the last instant a timestamp can name.
MAX_TIME_MS = 253_402_300_799_999
_MIN_TIME_MS = -62_135_596_800_000  # 0001-01-01T00:00:00Z
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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
    if not 0 <= ms <= MAX_TIME_MS:
        raise InvalidTimestamp(f"timestamp {ms} outside the UUIDv7 range")
    return _format(ms, int.from_bytes(os.urandom(2), "big") & 0xFFF)


#: Flips bits of an item id's random part (rand_b, 62 bits) into its creation
#: event's id: a UUIDv7 with the item's time, version and variant.
_CREATION_MASK = 0x2D7A_93C1_5E04_B6F8 & ((1 << 62) - 1)


def creation_event_id(item_id: str) -> str:
    """The id of an item's memory.created event, derived from the item's id (and
    back: the derivation is its own inverse), so that the event need not be
    stored while the item is as created (docs/events.md, "Storage")."""
    value = int(item_id.replace("-", ""), 16) ^ _CREATION_MASK
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def timestamp_ms(uuid7: str) -> int:
    """Milliseconds since the epoch encoded in a UUIDv7 (checked by
    :func:`memexd.memory.validation.check_uuid7`)."""
    return int(uuid7[:8] + uuid7[9:13], 16)


#: Above every id key: keys are 52-bit.
ID_KEY_END = 1 << 52


def id_key(item_id: str) -> int:
    """An id's key as items keep it, indexed (``memexd/history/windows.py``
    says why): its first 13 hex digits (52 bits, exact in the doubles
    FalkorDB's indexes hold) as an integer, so keys sort as ids do. Items
    take it from their creation row; migration ``id_key`` computed the same
    in Cypher for items written before (tests/test_as_of.py checks they agree)."""
    return int(item_id.replace("-", "")[:13], 16)


def ms_to_datetime(ms: int) -> datetime:
    """A UTC datetime; times outside years 1..9999 (which a UUIDv7 can carry
    but a datetime cannot) are clamped, so a read never fails on stored data."""
    return _EPOCH + timedelta(milliseconds=min(max(ms, _MIN_TIME_MS), MAX_TIME_MS))
