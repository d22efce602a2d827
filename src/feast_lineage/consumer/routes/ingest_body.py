"""The HTTP edge of ingest: the checks and the reading of a request body.

Everything here happens before a byte of the body is parsed: the body must be
declared JSON (415), fit ``max_request_bytes`` (413, from ``Content-Length``
when given, else while reading), and fit the worker's budget of bodies in
memory (503 ``ingest_busy``, before it is read, so bursts wait at the
clients rather than in memory). :func:`received_body` hands the route the
body's bytes and encoding; the ingest service takes it from there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request

from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.intake.budget import BodyBudget


@dataclass(frozen=True, slots=True)
class ReceivedBody:
    raw: bytes
    encoding: str | None  # Content-Encoding, as sent


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


@asynccontextmanager
async def received_body(
    request: Request, budget: BodyBudget, limit: int
) -> AsyncIterator[ReceivedBody]:
    """The checked body, held within the worker's budget until the block ends."""
    require_json(request)
    length = declared_length(request, limit)
    size = limit if length is None else length
    if not budget.try_reserve(size):
        raise LineageError(
            f"this server is busy with {budget.reserved} bytes of request bodies; "
            "nothing was stored, retry in a moment",
            status=503,
            code="ingest_busy",
            headers={"Retry-After": "1"},
        )
    try:
        raw = await read_body(request, limit)
        yield ReceivedBody(raw, request.headers.get("content-encoding"))
    finally:
        budget.release(size)
