"""Parsing OpenLineage event times into integer microseconds since the epoch.

Times are stored as integers: they sort, compare and index the same way on
every database. The accepted form is RFC 3339's date-time, as the
OpenLineage spec asks, with what real producers send besides:

* ``YYYY-MM-DD``, then ``T`` (or ``t``, or a space), then ``hh:mm:ss``;
  the seconds may be left out (``hh:mm``, as Java's ``LocalDateTime``
  prints a whole minute);
* a fraction of a second with any number of digits, after ``.`` or ``,``
  (nanoseconds are truncated to microseconds);
* ``Z`` (or ``z``) or an offset ``+hh:mm`` (also ``+hhmm`` and ``+hh``);
  a time without one is taken as UTC, which is what the OpenLineage Python
  client means by it, and reported as such (:func:`parse_event_time`);
* a leap second, ``23:59:60`` UTC, is taken as the last microsecond of
  that minute (the store counts no leap seconds).

A date alone, a week date (``2026-W01-1``), an ordinal date and ISO 8601's
basic form (``20260101T120000Z``) are refused, and so is a time with
whitespace around it (``" 2026-01-01T12:00:00Z"``: RFC 3339 has none, and a
producer that pads its times has a bug worth hearing of). So are times before 1900
and after 9999 (in UTC): no real event has them, and they could not be
shown back as ISO dates.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
MIN_US = -2_208_988_800_000_000  # 1900-01-01T00:00:00Z
MAX_US = 253_402_300_799_999_999  # 9999-12-31T23:59:59.999999Z
# The first instant an ISO date can show, 0001-01-01T00:00:00Z (a filter's bound may reach it).
FIRST_US = -62_135_596_800_000_000
# Added to a time to make it a non-negative sort key (see consumer/intake/derive.py).
SORT_OFFSET = -MIN_US

EXAMPLE = "2024-05-01T12:00:00Z"
EXPECTED_FORM = (
    f"an RFC 3339 date-time such as {EXAMPLE} "
    "(YYYY-MM-DDThh:mm:ss, an optional fraction, then Z or an offset like +02:00; "
    "without either, the time is UTC)"
)

_DATE_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?"
    r"(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)?",
    re.ASCII,
)
_DATE_ONLY = re.compile(r"\d{4}-?\d\d-?\d\d|\d{4}-?\d{3}", re.ASCII)
_WEEK_DATE = re.compile(r"\d{4}-?W\d\d", re.ASCII | re.IGNORECASE)


class EventTimeError(ValueError):
    pass


def _refuse(text: str) -> EventTimeError:
    shown = repr(text[:64])
    if _WEEK_DATE.match(text):
        return EventTimeError(f"{shown} is an ISO week date; send {EXPECTED_FORM}")
    if _DATE_ONLY.fullmatch(text):
        return EventTimeError(f"{shown} is a date without a time; send {EXPECTED_FORM}")
    return EventTimeError(f"{shown} is not a date-time of the accepted form; send {EXPECTED_FORM}")


def parse_event_time(text: str, *, bounded: bool = True) -> tuple[int, bool]:
    """Microseconds since 1970-01-01T00:00:00Z, and whether ``text`` had a UTC offset.

    A time without an offset is taken as UTC. ``bounded``: refuse times
    outside the years 1900 to 9999 (event times); a filter's bounds
    (``since``, ``until``) may be any year.
    """
    if not isinstance(text, str):
        raise EventTimeError(f"must be a string: send {EXPECTED_FORM}")
    if text != text.strip():
        raise EventTimeError(
            f"{text[:64]!r} has whitespace before or after the date-time; send {EXPECTED_FORM}"
        )
    found = _DATE_TIME.fullmatch(text)
    if found is None:
        raise _refuse(text)
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = found.groups()
    seconds = int(second) if second is not None else 0
    micros = int(fraction[:6].ljust(6, "0")) if fraction else 0
    leap = seconds == 60
    if leap:  # 23:59:60 becomes 23:59:59.999999
        seconds, micros = 59, 999_999
    try:
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute), seconds, micros)
    except ValueError as err:  # month 13, February 30th, hour 24...
        raise EventTimeError(
            f"{text[:64]!r} is not a valid date-time ({err}); send {EXPECTED_FORM}"
        ) from None
    offset_minutes = 0
    if sign is not None:
        hours, minutes = int(off_h), int(off_m or 0)
        if hours > 23 or minutes > 59:
            raise EventTimeError(f"{text[:64]!r} has an offset out of range; send {EXPECTED_FORM}")
        offset_minutes = (hours * 60 + minutes) * (-1 if sign == "-" else 1)
    delta = moment - _NAIVE_EPOCH
    us = (
        delta.days * 86_400 + delta.seconds - offset_minutes * 60
    ) * 1_000_000 + delta.microseconds
    if leap and (us // 60_000_000) % 1440 != 1439:
        raise EventTimeError(
            f"{text[:64]!r} has second 60, a leap second, which only 23:59:60 UTC can have; "
            f"send {EXPECTED_FORM}"
        )
    if bounded and not MIN_US <= us <= MAX_US:
        raise EventTimeError(f"{text[:64]!r} is outside the years 1900 to 9999 (UTC)")
    # Unbounded (a filter's bound): an offset may carry year 1 or 9999 past what an ISO date
    # shows back (0001-01-01T00:00:00+01:00): it is taken as the first or last such instant
    # (no event time lies beyond them: event times are bounded to 1900 to 9999).
    return min(max(us, FIRST_US), MAX_US), zulu is not None or sign is not None


def parse_us(text: str, *, bounded: bool = True) -> int:
    """Microseconds since 1970-01-01T00:00:00Z of a date-time (UTC when it has no offset)."""
    return parse_event_time(text, bounded=bounded)[0]


def to_iso(us: int | None) -> str | None:
    """The UTC ISO 8601 form of a stored time (millisecond-free when whole)."""
    if us is None:
        return None
    seconds, micros = divmod(us, 1_000_000)
    m = _EPOCH + timedelta(seconds=seconds)
    # Fields formatted one by one (strftime costs twice as much, and its %Y
    # leaves years before 1000 short): a 200-run tree formats 600 times.
    base = f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
    return f"{base}.{micros:06d}Z" if micros else f"{base}Z"


def now_us() -> int:
    delta = datetime.now(tz=UTC) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
