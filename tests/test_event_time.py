"""Event times: ISO 8601 text to integer microseconds and back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage.event_time import EventTimeError, now_us, parse_us, to_iso

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
        (" 2024-05-01T12:00:00Z ", NOON),
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
    with pytest.raises(EventTimeError, match="ISO 8601"):
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
