"""Parsing OpenLineage event times into integer microseconds since the epoch.

Times are stored as integers: they sort, compare and index the same way on
every database. ISO 8601 with any number of fractional digits is accepted
(nanoseconds are truncated to microseconds); a time without an offset is
taken as UTC, which is what the OpenLineage Python client means by it.
Times before 1900 or after 9999 (in UTC) are refused: no real event has
them, and they could not be shown back as ISO dates.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_FRACTION = re.compile(r"(\.\d{6})\d+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MIN_US = -2_208_988_800_000_000  # 1900-01-01T00:00:00Z
MAX_US = 253_402_300_799_999_999  # 9999-12-31T23:59:59.999999Z
# Added to a time to make it a non-negative sort key (see consumer/intake/derive.py).
SORT_OFFSET = -MIN_US


class EventTimeError(ValueError):
    pass


def parse_us(text: str, *, bounded: bool = True) -> int:
    """Microseconds since 1970-01-01T00:00:00Z of an ISO 8601 time.

    ``bounded``: refuse times outside the years 1900 to 9999 (event times);
    a filter's bounds (``since``, ``until``) may be any year.
    """
    if not isinstance(text, str) or len(text) < 10 or len(text) > 64:
        raise EventTimeError("expected an ISO 8601 date-time such as 2024-05-01T12:00:00Z")
    value = text.strip()
    if value.endswith(("z", "Z")):
        value = value[:-1] + "+00:00"
    value = _FRACTION.sub(r"\1", value, count=1)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise EventTimeError(
            f"{text!r} is not an ISO 8601 date-time such as 2024-05-01T12:00:00Z"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    delta = parsed - _EPOCH
    us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if bounded and not MIN_US <= us <= MAX_US:
        raise EventTimeError(f"{text!r} is outside the years 1900 to 9999 (UTC)")
    return us


def to_iso(us: int | None) -> str | None:
    """The UTC ISO 8601 form of a stored time (millisecond-free when whole)."""
    if us is None:
        return None
    seconds, micros = divmod(us, 1_000_000)
    moment = _EPOCH + timedelta(seconds=seconds)
    # The year always four digits: strftime's %Y leaves years before 1000 short.
    base = f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}"
    return f"{base}.{micros:06d}Z" if micros else f"{base}Z"


def now_us() -> int:
    delta = datetime.now(tz=UTC) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
