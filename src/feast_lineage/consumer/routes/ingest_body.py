"""The HTTP edge of ingest: the checks and the reading of a request body.

Everything here happens before a byte of the body is parsed: the body must be
declared JSON (415), fit ``max_request_bytes`` (413, from ``Content-Length``
when given, else while reading), fit the worker's budget of bodies in
memory as its bytes arrive (503 ``ingest_busy``, so bursts wait at the
clients rather than in memory; :mod:`~feast_lineage.consumer.intake.budget`)
and arrive in time (408 ``body_timeout``;
:mod:`~feast_lineage.consumer.intake.body_pace`). An error met while the
body is still arriving closes the connection. :func:`received_body` hands
the route the body's bytes, encoding and budget hold; the ingest service
takes it from there.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.requests import Request

from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.intake.body_pace import BodyPace
from feast_lineage.consumer.intake.budget import BodyBudget, BodyHold
from feast_lineage.consumer.intake.memory import RETURN_AFTER_BYTES
from feast_lineage.consumer.intake.threads import run_in_thread


@dataclass(frozen=True, slots=True)
class ReceivedBody:
    raw: bytes
    encoding: str | None  # Content-Encoding, as sent
    hold: BodyHold  # its bytes in the worker's budget (inflating it adds more)


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


def _refusal(message: str, *, status: int, code: str, retry: bool = False) -> LineageError:
    """An error met while the body is still arriving: the connection closes after it.

    Its unread bytes would otherwise keep coming, only to be thrown away.
    """
    headers = {"Connection": "close"}
    if retry:
        headers["Retry-After"] = "1"
    return LineageError(message, status=status, code=code, headers=headers)


def _busy(budget: BodyBudget) -> LineageError:
    return _refusal(
        f"this server is busy with {budget.reserved} bytes of request bodies; "
        "nothing was stored, retry in a moment",
        status=503,
        code="ingest_busy",
        retry=True,
    )


async def read_body(request: Request, limit: int, hold: BodyHold, pace: BodyPace) -> bytes:
    """The whole body, its bytes held in the budget as they arrive, within ``pace``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        wait = pace.next_wait()
        if wait <= 0:
            raise _refusal(pace.too_slow(), status=408, code="body_timeout")
        try:
            message = await asyncio.wait_for(request.receive(), wait)
        except TimeoutError:
            raise _refusal(pace.too_slow(), status=408, code="body_timeout") from None
        if message["type"] == "http.disconnect":
            raise LineageError("the client disconnected before sending the body")
        chunk: bytes = message.get("body", b"")
        if chunk:
            size += len(chunk)
            if size > limit:
                raise _refusal(
                    f"the body exceeds the limit of {limit} bytes; send smaller batches",
                    status=413,
                    code="body_too_large",
                )
            if not hold.grow(len(chunk)):
                raise _busy(hold.budget)
            pace.arrived(len(chunk))
            chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


@asynccontextmanager
async def received_body(
    request: Request,
    budget: BodyBudget,
    limit: int,
    pace: BodyPace,
    return_memory: Callable[[], object],
) -> AsyncIterator[ReceivedBody]:
    """The checked body, held within the worker's budget until the block ends.

    When a large body ends and no other is held, ``return_memory`` runs (in a
    thread) before the answer leaves.
    """
    require_json(request)
    declared_length(request, limit)
    hold = budget.hold()
    try:
        raw = await read_body(request, limit, hold, pace)
        yield ReceivedBody(raw, request.headers.get("content-encoding"), hold)
    finally:
        hold.release()
        if budget.reserved == 0 and budget.peak >= RETURN_AFTER_BYTES:
            # A spike of bodies is over: the memory of their parse goes back.
            budget.reset_peak()
            await run_in_thread(return_memory)
