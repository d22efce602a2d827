"""Decoding an ingest request body into per-event results.

A body is one event object or an array of them, optionally gzip-encoded.
Each event is validated and derived on its own, so one bad event yields one
problem report and never stops the others.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from feast_lineage.consumer.intake.budget import BodyHold
from feast_lineage.consumer.intake.derive import derive
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.problems import EventProblem, InvalidEvent, detached
from feast_lineage.consumer.intake.validation import (
    NaiveEventTime,
    check_event,
    json_path,
)
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.consumer.store.write.rows import RowBatch


class BodyError(Exception):
    """The request body as a whole is unusable (HTTP 400 or 413)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status = status
        self.code = code
        self.message = message
        super().__init__(message)


@dataclass
class ParsedBody:
    is_array: bool
    results: list[RowBatch | InvalidEvent]
    # What was stored but deserves a word (an eventTime taken as UTC).
    warnings: list[dict[str, Any]] = field(default_factory=list)


# Inflated in pieces of this size, each held in the worker's budget as it comes.
_INFLATE_PIECE = 1024 * 1024


def decompress(
    data: bytes, encoding: str | None, limit: int, hold: BodyHold | None = None
) -> bytes:
    """Undo ``Content-Encoding: gzip`` (or deflate), refusing to inflate past ``limit``.

    With ``hold``, every inflated piece is added to it first; a piece the
    worker's budget cannot take refuses the body (503 ``ingest_busy``).
    """
    if not encoding or encoding.strip().lower() in {"identity", ""}:
        return data
    enc = encoding.strip().lower()
    if enc in {"gzip", "x-gzip"}:
        wbits = 16 + zlib.MAX_WBITS
    elif enc == "deflate":
        wbits = zlib.MAX_WBITS
    else:
        raise BodyError(
            415, "unsupported_encoding", f"Content-Encoding {encoding!r} is not supported; use gzip"
        )
    parts: list[bytes] = []
    size = 0
    rest = data
    # A gzip body may hold several members (RFC 1952); each is inflated in turn.
    while True:
        inflater = zlib.decompressobj(wbits)
        pending = rest
        while not inflater.eof:
            try:
                out = inflater.decompress(pending, min(_INFLATE_PIECE, limit + 1 - size))
            except zlib.error:
                raise BodyError(
                    400,
                    "invalid_encoding",
                    f"the body is not valid {enc} data; check Content-Encoding",
                ) from None
            size += len(out)
            if size > limit:
                raise BodyError(
                    413,
                    "body_too_large",
                    f"the decompressed body exceeds {limit} bytes; send smaller batches",
                )
            if out and hold is not None and not hold.grow(len(out)):
                raise BodyError(
                    503,
                    "ingest_busy",
                    f"this server is busy with {hold.budget.reserved} bytes of request bodies; "
                    "nothing was stored, retry in a moment",
                )
            parts.append(out)
            pending = inflater.unconsumed_tail
            if not out and not pending:
                break
        if not inflater.eof:
            raise BodyError(
                400, "invalid_encoding", f"the {enc} body is truncated; send the whole body"
            )
        rest = inflater.unused_data
        if not rest:
            return b"".join(parts)
        if wbits != 16 + zlib.MAX_WBITS:
            raise BodyError(
                400, "invalid_encoding", f"the {enc} body has trailing data; check Content-Encoding"
            )


# The deepest nesting orjson parses (objects and arrays); an event may hold MAX_DEPTH.
PARSER_DEPTH = 1024


def parse_json(data: bytes) -> Any:
    """The body's JSON value, or a :class:`BodyError` that says what to fix.

    The body must be UTF-8, as JSON is (RFC 8259); a ``charset`` in
    ``Content-Type`` is not used to decode it.
    """
    if not data.strip():
        raise BodyError(400, "empty_body", "the body is empty; send an OpenLineage event as JSON")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        # Raised outside this block: the decoder's error keeps the whole body
        # (as text, in ``doc``), and would otherwise be the new one's context.
        problem = str(err)
    raise BodyError(400, "invalid_json", _json_problem(data, problem))


def _json_problem(data: bytes, problem: str) -> str:
    """What is wrong with a body orjson refused, in words that say what to fix."""
    if problem.startswith("depth limit exceeded"):
        return (
            f"the body is nested too deeply: JSON here may have at most {PARSER_DEPTH} levels "
            f"of objects and arrays (an event at most {MAX_DEPTH}); flatten it"
        )
    if "not valid UTF-8" in problem:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as err:
            return (
                f"the body must be UTF-8, and byte 0x{data[err.start]:02x} at offset "
                f"{err.start} is not (a charset in Content-Type is not used); encode the "
                "JSON as UTF-8"
            )
    return f"the body is not valid JSON: {problem}"


def _one(
    event: Any,
    received_us: int,
    scrub: bool,
    memo: FacetMemo | None,
    nul: bool = False,
    exact: Any = None,
    naive_event_time: NaiveEventTime = "utc",
    codec: PayloadCodec | None = None,
) -> RowBatch | InvalidEvent:
    try:
        kind, time_us, naive_time = check_event(event, naive_event_time)
        if nul:
            _reject_nul(event)
        if exact is not None:
            # Past MAX_DEPTH the event is refused as nested too deeply whatever else it
            # holds: checked first, as the exact parse gets that deep on Python 3.12 and
            # newer (their json module's recursion limit is higher than 3.11's).
            deep = _too_deep(event)
            if deep is not None:
                return _nested_too_deeply(deep)
            _reject_lost_values(exact)
        derived = derive(
            event, kind, time_us, received_us, scrub_credentials=scrub, memo=memo, codec=codec
        )
        if naive_time:
            derived.naive_times = 1
        return derived
    except InvalidEvent as err:
        # A result, not raised again: kept without its frames (see detached).
        return detached(err)
    except (orjson.JSONEncodeError, RecursionError):
        # orjson parses up to 1024 levels but serializes at most MAX_DEPTH.
        return _nested_too_deeply(_too_deep(event) or "$")


MAX_DEPTH = 254


def _nested_too_deeply(path: str) -> InvalidEvent:
    # Made here, never raised: it has no traceback to keep.
    return InvalidEvent(
        [
            EventProblem(
                path,
                f"is nested too deeply: an event may have at most {MAX_DEPTH} levels "
                "of JSON objects and arrays; flatten this facet",
            )
        ]
    )


def _too_deep(event: Any) -> str | None:
    """The JSON path of the first container past :data:`MAX_DEPTH` levels, if any."""
    stack: list[tuple[Any, str, int]] = [(event, "$", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path
        if isinstance(value, dict):
            items: Any = ((json_path((k,)).removeprefix("$"), v) for k, v in value.items())
        elif isinstance(value, list):
            items = ((f"[{i}]", v) for i, v in enumerate(value))
        else:
            continue
        for suffix, child in items:
            if isinstance(child, dict | list):
                stack.append((child, path + suffix, depth + 1))
    return None


def _paths(event: Any) -> Iterator[tuple[str, Any]]:
    """Every scalar of ``event``, every object and every object key, with its JSON path.

    A key comes with the path of the value it names.
    """
    stack: list[tuple[Any, str]] = [(event, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            yield path, value
            for key, child in value.items():
                child_path = path + json_path((key,))[1:]
                yield child_path, key
                stack.append((child, child_path))
        elif isinstance(value, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(value))
        else:
            yield path, value


def _refuse(paths: list[str], message: str) -> None:
    if paths:
        raise InvalidEvent([EventProblem(path, message) for path in sorted(paths)[:20]])


def _reject_nul(event: Any) -> None:
    """Refuse NUL characters, which PostgreSQL text (and so the store) cannot hold."""
    _refuse(
        [path for path, value in _paths(event) if isinstance(value, str) and "\x00" in value],
        "contains a NUL character (\\u0000), which the store cannot hold; remove it",
    )


# orjson reads integers beyond 64 bits as floats, silently losing digits, and
# a number too small for a double (1e-400) as 0. Such an integer has at
# least 19 digits in a row, and such a number either a run of zeros as long
# or an exponent of at least three digits below zero. A number beyond 64
# bits written with an exponent (1e20, -1.66e147) keeps its value as a float,
# but it is beyond what the API document allows every JSON number (JSON
# Schema counts 1e20 an integer), so it is refused as well: it has an
# exponent of at least two digits above zero. A body with such a run or
# exponent anywhere (in a number, or in a string) is parsed again exactly,
# and the numbers the store cannot keep are refused. Finding them: every
# digit becomes "0", then a few searches (about 4 µs for a 4 KB event; a
# regular expression takes 40 to 65).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 19
_TINY = (b"e-000", b"E-000")
_LARGE = (b"e00", b"E00", b"e+00", b"E+00")
_AFTER_NUMBER = frozenset(b",}] \t\r\n")
_INT_RANGE = (-(2**63), 2**64 - 1)


def _exponent(zeros: bytes, markers: tuple[bytes, ...]) -> bool:
    """Whether ``zeros`` (digits as "0") has a number with an exponent one of ``markers`` opens.

    A digit before the "e", a delimiter after the exponent: a UUID's
    "...ce-1234-..." is not one.
    """
    for marker in markers:
        at = zeros.find(marker)
        while at != -1:
            end = at + len(marker)
            while end < len(zeros) and zeros[end] == 0x30:
                end += 1
            if at and zeros[at - 1] == 0x30 and (end == len(zeros) or zeros[end] in _AFTER_NUMBER):
                return True
            at = zeros.find(marker, end)
    return False


def _keys_may_repeat(data: bytes, value: Any) -> bool:
    """Whether orjson, which keeps the last value of a repeated key, may have dropped one.

    Every key of the text comes with a colon, and a dropped one takes its
    colon (and its value's) along: the text then has more colons than the
    value serialized again, whatever its spacing. An escaped colon
    (``\\u003a``) is a plain one once serialized, so it counts on both
    sides. Two counts and a serialization: about 1% of the parse's time.
    """
    try:
        again = orjson.dumps(value)
    except orjson.JSONEncodeError:  # too deep to serialize: let the exact parse tell
        return True
    colons = data.count(b":")
    if b"\\u003" in data:
        colons += data.count(b"\\u003a") + data.count(b"\\u003A")
    return colons != again.count(b":")


class _Repeated(dict[str, Any]):
    """A JSON object of the exact parse that had some keys more than once."""

    repeated: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    found = _Repeated(obj)
    seen: set[str] = set()
    found.repeated = []
    for key, _ in pairs:
        if key in seen and key not in found.repeated:
            found.repeated.append(key)
        seen.add(key)
    return found


def _exact_values(data: bytes, value: Any) -> list[Any] | None:
    """The body's events parsed exactly, when orjson may have lost something.

    Exactly: integers whole, other numbers as Decimal, and repeated keys
    found (orjson keeps the last value without a word).
    """
    zeros = data.translate(_DIGITS_AS_ZERO)
    if (
        _LONG_RUN not in zeros
        and not _exponent(zeros, _TINY)
        and not _exponent(zeros, _LARGE)
        and not _keys_may_repeat(data, value)
    ):
        return None
    try:
        exact = json.loads(data, parse_float=Decimal, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        # orjson took it, so the standard parser should too, except past its
        # depth: such an event is refused as nested too deeply anyway.
        return None
    events = exact if isinstance(exact, list) else [exact]
    return events if len(events) == (len(value) if isinstance(value, list) else 1) else None


def _reject_lost_values(event: Any) -> None:
    """Refuse what orjson would lose: repeated keys, and numbers the store cannot keep.

    ``event`` comes from the exact parse: numbers beyond 64 bits (integers,
    and others such as ``1e20``), numbers a double would hold as 0, and keys
    given twice in one object.
    """
    low, high = _INT_RANGE
    repeated: list[str] = []
    huge: list[str] = []
    tiny: list[str] = []
    for path, v in _paths(event):
        if type(v) in (int, Decimal) and not low <= v <= high:
            huge.append(path)
        elif type(v) is Decimal and v and float(v) == 0.0:
            tiny.append(path)
        elif type(v) is _Repeated:
            repeated.extend(path + json_path((key,))[1:] for key in v.repeated)
    problems = [
        *(EventProblem(path, _REPEATED) for path in sorted(repeated)[:20]),
        *(EventProblem(path, _HUGE) for path in sorted(huge)[:20]),
        *(EventProblem(path, _TINY_MESSAGE) for path in sorted(tiny)[:20]),
    ]
    if problems:
        raise InvalidEvent(problems[:20])


_REPEATED = (
    "is a key given more than once in its object (JSON parsers disagree on which "
    "value counts); send each key once"
)


_HUGE = (
    "is a number beyond 64 bits (-2^63 to 2^64-1), which the store cannot keep exactly; "
    "send it as a string"
)
_TINY_MESSAGE = (
    "is a number too small for a double (the least is about 5e-324), which the store "
    "would keep as 0; send 0, or the value as a string"
)


class OpenBody:
    """A parsed array of events, derived piece by piece (:meth:`derive`).

    A piece's events are let go as they are derived, and its rows can be
    stored and let go before the next piece is derived: a large batch never
    has all its rows in memory at once (the rows of an event take several
    times its JSON text).
    """

    def __init__(
        self,
        events: list[Any],
        exact: list[Any] | None,
        nul: bool,
        received_us: int,
        memo: FacetMemo | None,
        naive_event_time: NaiveEventTime,
        codec: PayloadCodec | None = None,
    ) -> None:
        self._events = events
        self._codec = codec
        self._exact = exact
        self._nul = nul
        self._received_us = received_us
        self._memo = memo
        self._naive_event_time = naive_event_time
        self._naive = 0  # events whose eventTime was taken as UTC, so far
        self._first_naive: tuple[int, str] | None = None

    def __len__(self) -> int:
        return len(self._events)

    def derive(self, start: int, stop: int) -> list[RowBatch | InvalidEvent]:
        """The results of events ``start`` to ``stop``; each event is let go once derived."""
        events, exact = self._events, self._exact
        results: list[RowBatch | InvalidEvent] = []
        for i in range(start, stop):
            event, events[i] = events[i], None
            one = _one(
                event,
                self._received_us,
                True,  # derive() checks each event's canonical bytes for credentials
                self._memo,
                self._nul,
                exact[i] if exact else None,
                self._naive_event_time,
                self._codec,
            )
            if type(one) is RowBatch and one.naive_times:
                self._naive += 1
                if self._first_naive is None:
                    self._first_naive = (i, event["eventTime"])
            results.append(one)
            del event
        return results

    def whole(self) -> ParsedBody:
        """Every event derived at once: the body as :func:`parse_events` answers it."""
        return ParsedBody(True, self.derive(0, len(self)), self.warnings())

    def warnings(self) -> list[dict[str, Any]]:
        """What was stored but deserves a word, over every piece derived so far."""
        if self._first_naive is None:
            return []
        index, text = self._first_naive
        return _naive_time_warnings(self._naive, f"$[{index}].eventTime", text)


def open_events(
    data: bytes,
    received_us: int,
    *,
    max_events: int,
    require_array: bool = False,
    memo: FacetMemo | None = None,
    naive_event_time: NaiveEventTime = "utc",
    codec: PayloadCodec | None = None,
) -> OpenBody | ParsedBody:
    """Parse a (decompressed) body: an array to derive piece by piece, or one event derived."""
    value = parse_json(data)
    nul = b"\\u0000" in data  # the only way JSON text can carry a NUL character
    if isinstance(value, list):
        if len(value) > max_events:
            raise BodyError(
                413,
                "too_many_events",
                f"the batch has {len(value)} events, more than the limit of {max_events}; "
                "split it into smaller batches",
            )
        exact = _exact_values(data, value)
        return OpenBody(value, exact, nul, received_us, memo, naive_event_time, codec)
    if require_array:
        raise BodyError(
            400, "expected_array", "the batch endpoint expects a JSON array of OpenLineage events"
        )
    if isinstance(value, dict):
        exact = _exact_values(data, value)
        one = _one(
            value,
            received_us,
            True,
            memo,
            nul,
            exact[0] if exact else None,
            naive_event_time,
            codec,
        )
        warnings = []
        if type(one) is RowBatch and one.naive_times:
            warnings = _naive_time_warnings(1, "$.eventTime", value["eventTime"])
        return ParsedBody(False, [one], warnings)
    raise BodyError(
        400,
        "unexpected_body",
        "expected an OpenLineage event (a JSON object) or an array of events, "
        f"got a JSON {_JSON_TYPES.get(type(value), type(value).__name__)}",
    )


def parse_events(
    data: bytes,
    received_us: int,
    *,
    max_events: int,
    require_array: bool = False,
    memo: FacetMemo | None = None,
    naive_event_time: NaiveEventTime = "utc",
    codec: PayloadCodec | None = None,
) -> ParsedBody:
    """Parse, validate and derive every event of a (decompressed) body.

    ``naive_event_time``: an eventTime without a UTC offset is taken as UTC
    (and reported among the warnings), or refused (``"refuse"``). ``codec``:
    how the store compresses payloads now (none: each alone).
    """
    opened = open_events(
        data,
        received_us,
        max_events=max_events,
        require_array=require_array,
        memo=memo,
        naive_event_time=naive_event_time,
        codec=codec,
    )
    return opened if isinstance(opened, ParsedBody) else opened.whole()


def _naive_time_warnings(count: int, path: str, text: str) -> list[dict[str, Any]]:
    """The warning for ``count`` eventTimes taken as UTC, the first ``text`` at ``path``."""
    fix = "send Z or an offset such as +02:00"
    if count == 1:
        message = f"{text[:64]!r} has no UTC offset and was taken as UTC; {fix}"
    else:
        message = (
            f"{count} events have an eventTime without a UTC offset (the first: "
            f"{text[:64]!r} at {path}); they were taken as UTC; {fix}"
        )
    return [{"code": "naive_event_time", "path": path, "count": count, "message": message}]


_JSON_TYPES = {int: "number", float: "number", str: "string", bool: "boolean"}
_JSON_TYPES[type(None)] = "null"


def problem_dicts(index: int | None, err: InvalidEvent) -> list[dict[str, Any]]:
    out = []
    for p in err.problems:
        path = p.path if index is None else "$[" + str(index) + "]" + p.path[1:]
        item: dict[str, Any] = {"path": path, "message": p.message, "code": "invalid_event"}
        if index is not None:
            item["index"] = index
        out.append(item)
    return out


__all__ = [
    "BodyError",
    "EventProblem",
    "OpenBody",
    "ParsedBody",
    "decompress",
    "open_events",
    "parse_events",
]
