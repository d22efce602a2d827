"""Event times: ISO 8601 text to integer microseconds and back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage.event_time import (
    EventTimeError,
    now_us,
    parse_event_time,
    parse_us,
    to_iso,
)

NOON = 1_714_564_800_000_000  # 2024-05-01T12:00:00Z


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T12:00:00Z", NOON),
        ("2024-05-01T12:00:00z", NOON),
        ("2024-05-01T12:00:00+00:00", NOON),
        ("2024-05-01T14:00:00+02:00", NOON),
        ("2024-05-01T05:00:00-07:00", NOON),
        # No offset: UTC, which is what the OpenLineage Python client means.
        ("2024-05-01T12:00:00", NOON),
        ("2024-05-01T12:00:00.5Z", NOON + 500_000),
        ("2024-05-01T12:00:00.123456Z", NOON + 123_456),
        # Nanoseconds (Java producers) are truncated, never rounded.
        ("2024-05-01T12:00:00.123456789Z", NOON + 123_456),
        ("2024-05-01T12:00:00.999999999Z", NOON + 999_999),
        ("2024-05-01T14:00:00.1234567+02:00", NOON + 123_456),
        ("2024-05-01T12:00:00.123456789", NOON + 123_456),
        ("2024-05-01T12:00:00,25Z", NOON + 250_000),
        ("2024-05-01 12:00:00Z", NOON),
        ("2024-05-01t12:00:00Z", NOON),
        # Seconds left out (Java's LocalDateTime prints a whole minute so).
        ("2024-05-01T12:00Z", NOON),
        ("2024-05-01T14:00+02:00", NOON),
        # Offsets without a colon, or hours alone.
        ("2024-05-01T14:00:00.000+0200", NOON),
        ("2024-05-01T14:00:00+02", NOON),
        ("2024-05-01T11:30:00-00:30", NOON),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999999Z", -1),
    ],
)
def test_parse_us(text: str, expected: int) -> None:
    assert parse_us(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "2024-13-01T00:00:00Z",
        "2024-05-01T25:00:00Z",
        "2024-05-01T12:00:00+25:00",
        "2024-05-01T12:00:60Z",
        "2024-05-01T12:00:00Z" + "0" * 60,
        "not a time but long enough",
    ],
)
def test_invalid_times_raise_a_clear_error(text: str) -> None:
    with pytest.raises(EventTimeError, match="send an RFC 3339 date-time such as"):
        parse_us(text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("2026-01-01", "is a date without a time"),
        ("20260101", "is a date without a time"),
        ("2026-001", "is a date without a time"),  # an ordinal date
        ("2026-W01-1T00:00:00Z", "is an ISO week date"),
        ("2026-W01-1", "is an ISO week date"),
        ("2026W011T000000Z", "is an ISO week date"),
        ("2026-W01", "is an ISO week date"),
        # ISO 8601's basic form and an hour alone are not RFC 3339 either.
        ("20260101T120000Z", "is not a date-time of the accepted form"),
        ("2026-01-01T12Z", "is not a date-time of the accepted form"),
        ("2026-01-01X12:00:00Z", "is not a date-time of the accepted form"),
        ("2026-01-01T12:00:00+05:30:15", "is not a date-time of the accepted form"),
        ("2024-02-30T00:00:00Z", "day is out of range for month"),
        ("2024-05-01T12:00:00+24:00", "has an offset out of range"),
        (" 2026-01-01T12:00:00Z", "has whitespace before or after the date-time"),
        ("2026-01-01T12:00:00Z\n", "has whitespace before or after the date-time"),
        ("\t2026-01-01T12:00:00Z ", "has whitespace before or after the date-time"),
    ],
)
def test_what_is_not_a_date_time_is_named(text: str, problem: str) -> None:
    with pytest.raises(EventTimeError) as raised:
        parse_us(text)
    message = str(raised.value)
    assert problem in message
    assert message.startswith(repr(text))
    assert message.endswith(
        "send an RFC 3339 date-time such as 2024-05-01T12:00:00Z "
        "(YYYY-MM-DDThh:mm:ss, an optional fraction, then Z or an offset like +02:00; "
        "without either, the time is UTC)"
    )


LAST_US_OF_2016 = 1_483_228_799_999_999  # 2016-12-31T23:59:59.999999Z


@pytest.mark.parametrize(
    "text",
    [
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5Z",
        "2016-12-31T23:59:60.999999999Z",
        "2017-01-01T00:59:60+01:00",  # the same leap second, in Paris
        "2016-12-31T18:59:60-05:00",
        "2016-12-31T23:59:60",  # no offset: UTC
    ],
)
def test_a_leap_second_is_the_last_microsecond_of_its_minute(text: str) -> None:
    assert parse_us(text) == LAST_US_OF_2016
    assert to_iso(parse_us(text)) == "2016-12-31T23:59:59.999999Z"


@pytest.mark.parametrize("text", ["2016-12-31T12:59:60Z", "2017-01-01T00:59:60Z"])
def test_second_60_is_refused_where_no_leap_second_can_be(text: str) -> None:
    with pytest.raises(EventTimeError, match="only 23:59:60 UTC can have"):
        parse_us(text)


@pytest.mark.parametrize(
    ("text", "has_offset"),
    [
        ("2024-05-01T12:00:00Z", True),
        ("2024-05-01T12:00:00z", True),
        ("2024-05-01T12:00:00+00:00", True),
        ("2024-05-01T14:00:00+0200", True),
        ("2024-05-01T12:00:00", False),
        ("2024-05-01T12:00:00.123456789", False),
        ("2024-05-01 12:00", False),
    ],
)
def test_a_time_without_an_offset_is_taken_as_utc_and_said_so(text: str, has_offset: bool) -> None:
    us, offset = parse_event_time(text)
    assert us == parse_us(text)
    assert abs(us - NOON) < 1_000_000
    assert offset is has_offset


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("1900-01-01T00:00:00Z", True),
        ("1899-12-31T23:59:59.999999Z", False),
        ("1900-01-01T00:30:00+01:00", False),  # 1899 in UTC
        ("9999-12-31T23:59:59.999999Z", True),
        ("9999-12-31T23:59:59.999999-00:01", False),  # 10000 in UTC
        ("0001-01-01T00:00:00Z", False),
    ],
)
def test_the_years_1900_to_9999_in_utc(text: str, accepted: bool) -> None:
    if accepted:
        assert to_iso(parse_us(text)) is not None
    else:
        with pytest.raises(EventTimeError, match="outside the years 1900 to 9999"):
            parse_us(text)


@pytest.mark.parametrize("value", [None, 1714564800, 17.5, ["2024-05-01T12:00:00Z"]])
def test_non_strings_raise(value: object) -> None:
    with pytest.raises(EventTimeError):
        parse_us(value)  # type: ignore[arg-type]


def test_event_time_error_is_a_value_error() -> None:
    assert issubclass(EventTimeError, ValueError)


@pytest.mark.parametrize(
    ("us", "text"),
    [
        (None, None),
        (NOON, "2024-05-01T12:00:00Z"),
        (NOON + 500_000, "2024-05-01T12:00:00.500000Z"),
        (NOON + 1, "2024-05-01T12:00:00.000001Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
    ],
)
def test_to_iso(us: int | None, text: str | None) -> None:
    assert to_iso(us) == text


@settings(max_examples=200, derandomize=True, database=None)
@given(
    st.datetimes(
        min_value=datetime(1900, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.just(UTC),
    ),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_round_trip_through_any_offset(moment: datetime, offset_minutes: int) -> None:
    local = moment.astimezone(timezone(timedelta(minutes=offset_minutes)))
    us = parse_us(local.isoformat())
    expected = round((moment - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))
    assert us == expected
    text = to_iso(us)
    assert text is not None
    assert text.endswith("Z")
    assert parse_us(text) == us


def test_now_us_is_the_wall_clock() -> None:
    before = datetime.now(tz=UTC)
    value = now_us()
    after = datetime.now(tz=UTC)
    assert parse_us(before.isoformat()) <= value <= parse_us(after.isoformat())
