"""Decoding an ingest request body into per-event results.

A body is one event object or an array of them, optionally gzip-encoded.
Each event is validated and derived on its own, so one bad event yields one
problem report and never stops the others.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import orjson

from feast_lineage.consumer.ingest.derive import Derived, derive
from feast_lineage.consumer.ingest.errors import EventProblem, InvalidEvent
from feast_lineage.consumer.ingest.validation import validate_event


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
    results: list[Derived | InvalidEvent]


def decompress(data: bytes, encoding: str | None, limit: int) -> bytes:
    """Undo ``Content-Encoding: gzip`` (or deflate), refusing to inflate past ``limit``."""
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
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error:
        raise BodyError(
            400, "invalid_encoding", f"the body is not valid {enc} data; check Content-Encoding"
        ) from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise BodyError(
            413,
            "body_too_large",
            f"the decompressed body exceeds {limit} bytes; send smaller batches",
        )
    return out


def parse_json(data: bytes) -> Any:
    if not data.strip():
        raise BodyError(400, "empty_body", "the body is empty; send an OpenLineage event as JSON")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise BodyError(
            400, "invalid_json", f"the body is not valid JSON: {err}; send UTF-8 encoded JSON"
        ) from None


def _one(event: Any, received_us: int, scrub: bool) -> Derived | InvalidEvent:
    try:
        kind, time_us = validate_event(event)
        return derive(event, kind, time_us, received_us, scrub_credentials=scrub)
    except InvalidEvent as err:
        return err


def parse_events(
    data: bytes, received_us: int, *, max_events: int, require_array: bool = False
) -> ParsedBody:
    """Parse, validate and derive every event of a (decompressed) body."""
    value = parse_json(data)
    scrub = b"@" in data or b"%40" in data or b"?" in data
    if isinstance(value, list):
        if len(value) > max_events:
            raise BodyError(
                413,
                "too_many_events",
                f"the batch has {len(value)} events, more than the limit of {max_events}; "
                "split it into smaller batches",
            )
        return ParsedBody(True, [_one(e, received_us, scrub) for e in value])
    if require_array:
        raise BodyError(
            400, "expected_array", "the batch endpoint expects a JSON array of OpenLineage events"
        )
    if isinstance(value, dict):
        return ParsedBody(False, [_one(value, received_us, scrub)])
    raise BodyError(
        400,
        "unexpected_body",
        "expected an OpenLineage event (a JSON object) or an array of events, "
        f"got a JSON {type(value).__name__}",
    )


def problem_dicts(index: int | None, err: InvalidEvent) -> list[dict[str, Any]]:
    out = []
    for p in err.problems:
        path = p.path if index is None else "$[" + str(index) + "]" + p.path[1:]
        item: dict[str, Any] = {"path": path, "message": p.message, "code": "invalid_event"}
        if index is not None:
            item["index"] = index
        out.append(item)
    return out


__all__ = ["BodyError", "EventProblem", "ParsedBody", "decompress", "parse_events"]
