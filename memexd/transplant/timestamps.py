"""MemEX's strict ISO-8601 timestamps (envelope ``ts``), parsed to epoch milliseconds.

The rules are MemEX's ``parseIsoTs`` (docs/memex-reference.md §4.5): one
exact shape, millisecond precision at most (a sub-millisecond fraction is
refused rather than rounded, so replay order never depends on rounding),
real calendar fields, and ``Z`` or an explicit ``±HH:MM`` offset. Where the
Python port drifts from the TypeScript original we follow the original:
digits are ASCII only, the match is full (no trailing newline), and year
0000 is a year like any other (proleptic Gregorian, a leap year).
"""

from __future__ import annotations

import re

from memexd.errors import InvalidTimestamp

__all__ = ["parse_iso_ts"]

_ISO_8601 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,3}))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))"
)
#: A valid timestamp has at most 29 characters; longer text is cut in messages.
_SHOWN = 64
_MS_PER_DAY = 86_400_000


def parse_iso_ts(text: str) -> int:
    """Milliseconds since 1970-01-01T00:00:00Z (negative before), or
    :class:`InvalidTimestamp` with MemEX's message."""
    match = _ISO_8601.fullmatch(text)
    if match is None:
        raise _invalid(text, "expected ISO 8601")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction = match[7]
    ms = int(fraction.ljust(3, "0")) if fraction else 0
    if not (
        1 <= month <= 12
        and 1 <= day <= _days_in_month(year, month)
        and hour <= 23
        and minute <= 59
        and second <= 59  # no leap second
    ):
        raise _invalid(text, "calendar fields out of range")
    epoch = _days_from_civil(year, month, day) * _MS_PER_DAY
    epoch += ((hour * 60 + minute) * 60 + second) * 1000 + ms
    if match[8]:
        off_h, off_m = int(match[9]), int(match[10])
        if off_h > 23 or off_m > 59:
            raise _invalid(text, "bad offset")
        # local time = UTC + offset, so UTC = local - offset
        sign = 1 if match[8] == "-" else -1
        epoch += sign * (off_h * 60 + off_m) * 60_000
    return epoch


def _invalid(text: str, why: str) -> InvalidTimestamp:
    shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
    return InvalidTimestamp(f'Invalid envelope timestamp: "{shown}" ({why})')


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, any year
    (Howard Hinnant's ``days_from_civil``; ``datetime`` stops at year 1)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468
