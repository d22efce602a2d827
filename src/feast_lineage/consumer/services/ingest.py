"""Ingest service: read a request body, validate and derive its events, commit them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from anyio import to_thread
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
from feast_lineage.consumer.ingest.pipeline import StoreUnavailable
from feast_lineage.consumer.state import ConsumerState
from feast_lineage.event_time import now_us

# Bodies up to this size are parsed on the event loop (tens of microseconds);
# larger ones in a worker thread so the loop never stalls.
_INLINE_BYTES = 32 * 1024


@dataclass
class IngestResult:
    is_array: bool
    received: int
    successful: int
    errors: list[dict[str, Any]] = field(default_factory=list)
    unavailable: bool = False

    @property
    def failed(self) -> int:
        return self.received - self.successful

    def summary(self) -> dict[str, int]:
        return {"received": self.received, "successful": self.successful, "failed": self.failed}


async def read_body(request: Request, limit: int) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise LineageError(
            f"the body is {length} bytes, more than the limit of {limit}; send smaller batches",
            status=413,
            code="body_too_large",
        )
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


def _prepare(
    raw: bytes,
    encoding: str | None,
    limit: int,
    max_events: int,
    batch: bool,
    memo: FacetMemo,
) -> ParsedBody:
    data = decompress(raw, encoding, limit)
    return parse_events(data, now_us(), max_events=max_events, require_array=batch, memo=memo)


async def ingest(request: Request, state: ConsumerState, *, batch: bool) -> IngestResult:
    settings = state.settings.consumer
    raw = await read_body(request, settings.max_request_bytes)
    encoding = request.headers.get("content-encoding")
    args = (
        raw,
        encoding,
        settings.max_request_bytes,
        settings.max_batch_events,
        batch,
        state.facet_memo,
    )
    try:
        if len(raw) <= _INLINE_BYTES and not encoding:
            parsed = _prepare(*args)
        else:
            parsed = await to_thread.run_sync(_prepare, *args)
    except BodyError as err:
        raise LineageError(err.message, status=err.status, code=err.code) from None

    valid: list[Derived] = []
    positions: list[int] = []
    errors: list[dict[str, Any]] = []
    for index, item in enumerate(parsed.results):
        if isinstance(item, InvalidEvent):
            errors.extend(problem_dicts(index if parsed.is_array else None, item))
        else:
            valid.append(item)
            positions.append(index)

    outcomes = await asyncio.wrap_future(state.pipeline.submit(valid)) if valid else []
    successful = 0
    unavailable = False
    for index, outcome in zip(positions, outcomes, strict=True):
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
    )
