"""MemEX's strict ISO-8601 envelope timestamps (docs/memex-reference.md §4.5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memex.errors import InvalidTimestampError
from memex.replay import parse_iso_ts as memex_parse

from memexd.errors import InvalidTimestamp
from memexd.transplant.timestamps import parse_iso_ts

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ISO = "expected ISO 8601"
CALENDAR = "calendar fields out of range"
OFFSET = "bad offset"

# The whole table of §4.5: input -> epoch ms, or the reason in the message.
TABLE: list[tuple[str, int | str]] = [
    ("2024-01-01T00:00:00Z", 1704067200000),
    ("2024-01-01T00:00:00.1Z", 1704067200100),
    ("2024-01-01T00:00:00.12Z", 1704067200120),
    ("2024-01-01T00:00:00.123Z", 1704067200123),
    ("2024-01-01T00:00:00.1234Z", ISO),
    ("2024-01-01T00:00:00.Z", ISO),
    ("2024-02-29T00:00:00Z", 1709164800000),
    ("2023-02-29T00:00:00Z", CALENDAR),
    ("2024-02-31T00:00:00Z", CALENDAR),
    ("2024-13-01T00:00:00Z", CALENDAR),
    ("2024-00-10T00:00:00Z", CALENDAR),
    ("2024-01-01T24:00:00Z", CALENDAR),
    ("2024-01-01T23:59:60Z", CALENDAR),
    ("2024-01-01T00:00:00+02:00", 1704060000000),
    ("2024-01-01T00:00:00-05:30", 1704087000000),
    ("2024-01-01T00:00:00.000+00:00", 1704067200000),
    ("2024-01-01T00:00:00+24:00", OFFSET),
    ("2024-01-01T00:00:00+23:60", OFFSET),
    ("2024-01-01T00:00:00+0200", ISO),
    ("2024-01-01T00:00:00", ISO),
    ("2024-01-01 00:00:00Z", ISO),
    ("2024-01-01T00:00Z", ISO),
    ("2024-01-01", ISO),
    ("2024-01-01t00:00:00z", ISO),
    ("+002024-01-01T00:00:00Z", ISO),
    ("0050-06-01T00:00:00Z", -60576249600000),
    # memexd follows the seed where the Python port does not:
    ("0000-01-01T00:00:00Z", -62167219200000),  # year 0 accepted (the port refuses it)
    ("１９７０-01-01T00:00:00Z", ISO),  # full-width digits  # noqa: RUF001
    ("1970-01-01T00:00:00Z\n", ISO),  # a trailing newline
    # more edges
    ("1900-02-29T00:00:00Z", CALENDAR),  # /100, not /400
    ("2000-02-29T00:00:00Z", 951782400000),  # /400
    ("1969-12-31T23:59:59.999Z", -1),
    ("9999-12-31T23:59:59.999Z", 253402300799999),
    ("2024-02-31T00:00:00+24:00", CALENDAR),  # the calendar is checked first, as in MemEX
    ("", ISO),
]


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_the_reference_table(text: str, expected: int | str) -> None:
    if isinstance(expected, int):
        assert parse_iso_ts(text) == expected
    else:
        with pytest.raises(InvalidTimestamp) as caught:
            parse_iso_ts(text)
        assert caught.value.message == f'Invalid envelope timestamp: "{text}" ({expected})'
        assert caught.value.code == "INVALID_TIMESTAMP"


def test_year_zero_is_a_leap_year_that_runs_into_year_one() -> None:
    assert parse_iso_ts("0000-02-29T12:00:00Z") == parse_iso_ts("0000-03-01T00:00:00Z") - 43_200_000
    last = parse_iso_ts("0000-12-31T23:59:59.999Z")
    assert last + 1 == parse_iso_ts("0001-01-01T00:00:00Z") == -62135596800000


def test_a_long_text_is_cut_in_the_message() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        parse_iso_ts("9" * 10_000)
    assert len(caught.value.message) < 120


def _render(moment: datetime, digits: int, zone: timedelta | None) -> str:
    """``moment`` (naive, local time) as MemEX writes it, with 0 to 3 fraction digits."""
    text = f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S")  # %Y: no zero padding
    if digits:
        text += "." + f"{moment.microsecond // 1000:03d}"[:digits]
    if zone is None:
        return text + "Z"
    minutes = int(zone.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{text}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@given(
    moment=st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31)),
    digits=st.integers(0, 3),
    zone=st.none() | st.integers(-(23 * 60 + 59), 23 * 60 + 59).map(lambda m: timedelta(minutes=m)),
)
def test_round_trip_of_valid_datetimes(
    moment: datetime, digits: int, zone: timedelta | None
) -> None:
    # the instant the text names: its fraction cut to the digits written
    kept = (moment.microsecond // 1000) // 10 ** (3 - digits) * 10 ** (3 - digits) if digits else 0
    local = moment.replace(microsecond=kept * 1000)
    aware = local.replace(tzinfo=UTC if zone is None else timezone(zone))
    expected = (aware - EPOCH) // timedelta(milliseconds=1)
    assert parse_iso_ts(_render(moment, digits, zone)) == expected


def _two(n: int) -> str:
    return f"{n:02d}"


# Near-valid texts: every field may be out of range, the fraction too long,
# the zone malformed; sometimes followed by junk.
near_valid = st.builds(
    lambda y, mo, d, h, mi, s, frac, zone, tail: (
        f"{y:04d}-{_two(mo)}-{_two(d)}T{_two(h)}:{_two(mi)}:{_two(s)}{frac}{zone}{tail}"
    ),
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 25),
    st.integers(0, 61),
    st.integers(0, 61),
    st.sampled_from(["", "."]) | st.from_regex(r"\.[0-9]{1,4}", fullmatch=True),
    st.sampled_from(["Z", "z", "", "+0200"])
    | st.builds(
        lambda sign, h, m: f"{sign}{_two(h)}:{_two(m)}",
        st.sampled_from("+-"),
        st.integers(0, 25),
        st.integers(0, 61),
    ),
    st.sampled_from(["", "", "", "\n", " ", "x"]),
)


def _memex_or_message(text: str) -> int | str:
    try:
        return memex_parse(text)
    except InvalidTimestampError as exc:
        return str(exc)


@given(st.one_of(near_valid, st.text(max_size=40)))
@example("0000-01-01T00:00:00Z")
@example("0000-01-01T00:00:00+24:00")  # year 0 and a bad offset: refused for the offset
@example("１９７０-01-01T00:00:00Z")  # noqa: RUF001
@example("1970-01-01T00:00:00Z\n")
def test_agrees_with_memex_python(text: str) -> None:
    """Same result and same message as the Python port, except where the
    seed says otherwise: year 0 is accepted; non-ASCII digits and a trailing
    newline are refused."""
    try:
        theirs: int | str = memex_parse(text)
    except InvalidTimestampError as exc:
        theirs = str(exc)
    year_zero = isinstance(theirs, str) and "(year 0 is out of range)" in theirs
    # where the port's \d and $ let through what the TypeScript regex refuses
    python_artefact = not text.isascii() or text.endswith("\n")
    try:
        ours: int | str = parse_iso_ts(text)
    except InvalidTimestamp as exc:
        ours = exc.message
    if python_artefact:
        assert ours == f'Invalid envelope timestamp: "{text}" ({ISO})'
    elif year_zero:  # the port stops at the year; what follows must still be checked
        year_one = _memex_or_message("0001" + text[4:])
        if isinstance(year_one, str):
            assert ours == year_one.replace("0001" + text[4:], text)
        else:
            assert isinstance(ours, int)
            assert ours < parse_iso_ts("0001-01-01T00:00:00Z")
    else:
        assert ours == theirs
