"""Ingest service: read a request body, validate and derive its events, commit them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from starlette.requests import ClientDisconnect, Request

from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.ingest.body import (
    BodyError,
    ParsedBody,
    decompress,
    parse_events,
    problem_dicts,
)
from feast_lineage.consumer.ingest.derive import Derived, FacetMemo
from feast_lineage.consumer.ingest.errors import InvalidEvent
from feast_lineage.consumer.ingest.pipeline import Outcome, StoreUnavailable
from feast_lineage.consumer.ingest.threads import run_in_thread
from feast_lineage.consumer.ingest.validation import NaiveEventTime
from feast_lineage.consumer.state import ConsumerState
from feast_lineage.event_time import now_us

# Bodies up to this size are parsed on the event loop (tens of microseconds);
# larger ones off it (by the writer thread, or a worker thread), so the loop
# never stalls.
_INLINE_BYTES = 32 * 1024


@dataclass
class IngestResult:
    is_array: bool
    received: int
    successful: int
    errors: list[dict[str, Any]] = field(default_factory=list)
    unavailable: bool = False
    warnings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.received - self.successful

    def summary(self) -> dict[str, int]:
        return {"received": self.received, "successful": self.successful, "failed": self.failed}


def declared_length(request: Request, limit: int) -> int | None:
    """The body's ``Content-Length``, refused (413) past ``limit``; None when not given."""
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        return None
    if int(length) > limit:
        raise LineageError(
            f"the body is {length} bytes, more than the limit of {limit}; send smaller batches",
            status=413,
            code="body_too_large",
        )
    return int(length)


async def read_body(request: Request, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise LineageError(
                    f"the body exceeds the limit of {limit} bytes; send smaller batches",
                    status=413,
                    code="body_too_large",
                )
            chunks.append(chunk)
    except ClientDisconnect:
        raise LineageError("the client disconnected before sending the body") from None
    return b"".join(chunks)


@dataclass
class _Checked:
    """A parsed body: the events to store, and the problems of the others."""

    parsed: ParsedBody
    valid: list[Derived] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # index of each valid event
    errors: list[dict[str, Any]] = field(default_factory=list)


def _check(
    raw: bytes,
    encoding: str | None,
    limit: int,
    max_events: int,
    batch: bool,
    memo: FacetMemo,
    naive_event_time: NaiveEventTime = "utc",
) -> tuple[_Checked, list[Derived]]:
    data = decompress(raw, encoding, limit)
    parsed = parse_events(
        data,
        now_us(),
        max_events=max_events,
        require_array=batch,
        memo=memo,
        naive_event_time=naive_event_time,
    )
    checked = _Checked(parsed)
    for index, item in enumerate(parsed.results):
        if isinstance(item, InvalidEvent):
            checked.errors.extend(problem_dicts(index if parsed.is_array else None, item))
        else:
            checked.valid.append(item)
            checked.positions.append(index)
    return checked, checked.valid


async def _check_and_store(
    state: ConsumerState, raw: bytes, encoding: str | None, batch: bool
) -> tuple[_Checked, list[Outcome]]:
    settings = state.settings.consumer
    check = partial(
        _check,
        raw,
        encoding,
        settings.max_request_bytes,
        settings.max_batch_events,
        batch,
        state.facet_memo,
        settings.naive_event_time,
    )
    pipeline = state.pipeline
    if len(raw) <= _INLINE_BYTES and not encoding:
        checked, valid = check()
    elif pipeline.prepares_while_waiting:
        # The writer thread parses it, while another process writes (see pipeline.py).
        return await asyncio.wrap_future(pipeline.submit_deferred(check))
    else:  # PostgreSQL: parsing overlaps the writer's waits for the database
        checked, valid = await run_in_thread(check)
    outcomes = await asyncio.wrap_future(pipeline.submit(valid)) if valid else []
    return checked, outcomes


def require_json(request: Request) -> None:
    """A JSON ``Content-Type`` (``application/json`` or ``application/*+json``), else 415.

    A browser cannot send one to another site without a CORS preflight,
    which this server never grants: no web page can post events to it.
    """
    given = request.headers.get("content-type")
    media = (given or "").split(";", 1)[0].strip().lower()
    if media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    ):
        return
    shown = f"got {given[:100]!r}" if given else "none was sent"
    raise LineageError(
        f"send the events with the header Content-Type: application/json ({shown})",
        status=415,
        code="unsupported_media_type",
    )


async def ingest(request: Request, state: ConsumerState, *, batch: bool) -> IngestResult:
    require_json(request)
    limit = state.settings.consumer.max_request_bytes
    length = declared_length(request, limit)
    size = limit if length is None else length
    if not state.bodies.try_reserve(size):
        raise LineageError(
            f"this server is busy with {state.bodies.reserved} bytes of request bodies; "
            "nothing was stored, retry in a moment",
            status=503,
            code="ingest_busy",
            headers={"Retry-After": "1"},
        )
    try:
        return await _ingest(request, state, batch, limit)
    finally:
        state.bodies.release(size)


async def _ingest(request: Request, state: ConsumerState, batch: bool, limit: int) -> IngestResult:
    raw = await read_body(request, limit)
    encoding = request.headers.get("content-encoding")
    try:
        checked, outcomes = await _check_and_store(state, raw, encoding, batch)
    except BodyError as err:
        raise LineageError(err.message, status=err.status, code=err.code) from None
    parsed, errors = checked.parsed, checked.errors
    successful = 0
    unavailable = False
    for index, outcome in zip(checked.positions, outcomes, strict=True):
        if outcome is None:
            successful += 1
            continue
        down = isinstance(outcome, StoreUnavailable)
        unavailable = unavailable or down
        item_error: dict[str, Any] = {"path": "$", "message": str(outcome)}
        if parsed.is_array:
            item_error = {"index": index, "path": f"$[{index}]", "message": str(outcome)}
        item_error["code"] = "store_unavailable" if down else "rejected"
        errors.append(item_error)
    errors.sort(key=lambda e: e.get("index", 0))
    return IngestResult(
        is_array=parsed.is_array,
        received=len(parsed.results),
        successful=successful,
        errors=errors,
        unavailable=unavailable,
        warnings=parsed.warnings,
    )
