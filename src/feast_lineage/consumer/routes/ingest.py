"""OpenLineage ingest: ``POST /api/v1/lineage`` and ``POST /api/v1/lineage/batch``.

Each request is measured (:mod:`feast_lineage.consumer.metrics`): its time,
its events stored and refused by reason, or, when it is refused before its
events are read, the error code.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request, Response

from feast_lineage.consumer.deps import ingest_state
from feast_lineage.consumer.errors import LineageError, error_response
from feast_lineage.consumer.intake.body import BodyError
from feast_lineage.consumer.intake.event_schema import body_schema
from feast_lineage.consumer.metrics import Metrics
from feast_lineage.consumer.responses import FastJSONResponse, error_responses
from feast_lineage.consumer.routes.ingest_body import received_body
from feast_lineage.consumer.routes.ingest_warnings import warning_header
from feast_lineage.consumer.schemas import IngestAccepted, IngestSummary
from feast_lineage.consumer.services.ingest import IngestResult, ingest

router = APIRouter(tags=["ingest"])


def _body_doc(*, array_only: bool) -> dict[str, Any]:
    what = (
        "An array of OpenLineage 2-0-2 events"
        if array_only
        else ("An OpenLineage 2-0-2 RunEvent, DatasetEvent or JobEvent, or an array of them")
    )
    schema = body_schema(array_only=array_only)
    schema["description"] = what + ". May be sent with Content-Encoding: gzip or deflate."
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


_ERRORS = error_responses(
    400,
    401,
    403,
    408,
    413,
    415,
    503,
    _400="Invalid JSON or an invalid event",
    _403="A read key or a Feast access token, which may not write",
)


async def _ingest(request: Request, *, batch: bool) -> Response:
    """Read the body, store its events, and answer with the status their fate calls for."""
    metrics: Metrics = request.app.state.metrics
    started = time.perf_counter()
    try:
        return await _store(request, metrics, batch=batch)
    except LineageError as err:
        metrics.request_refused(err.code)
        raise
    finally:
        metrics.ingest_time("batch" if batch else "lineage", time.perf_counter() - started)


async def _store(request: Request, metrics: Metrics, *, batch: bool) -> Response:
    state = await ingest_state(request)
    intake = state.intake
    async with received_body(
        request, state.bodies, intake.max_request_bytes, state.pace(), state.return_memory
    ) as body:
        try:
            result = await ingest(intake, body.raw, body.encoding, batch=batch, hold=body.hold)
        except BodyError as err:
            metrics.request_refused(err.code)
            headers = {"Retry-After": "1"} if err.code == "ingest_busy" else None
            return error_response(err.status, err.code, err.message, headers=headers)
    metrics.ingested(result.successful, result.refused())
    if result.successful == 0 and result.received > 0:
        return _failure(result)
    if result.failed:
        return _partial(result)
    if batch:
        return Response(status_code=204, headers=warning_header(result.warnings))
    if result.is_array:
        return _success({"status": "success", "summary": result.summary()}, 200, result)
    created = {"event_id": result.event_ids[0], "status": "created", "summary": result.summary()}
    return _success(created, 201, result)


def _success(body: dict[str, Any], status: int, result: IngestResult) -> Response:
    """A success (or partial) answer, with its warnings in the body and a header."""
    if not result.warnings:
        return FastJSONResponse(body, status)
    body["warnings"] = result.warnings
    return FastJSONResponse(body, status, headers=warning_header(result.warnings))


def _failure(result: IngestResult) -> Response:
    if result.unavailable:
        return error_response(
            503,
            "store_unavailable",
            "the lineage store is unavailable; nothing was stored, retry later",
            headers={"Retry-After": "1"},
        )
    first = result.errors[0]
    message = f"{first['path']}: {first['message']}"
    if result.is_array:
        message = f"no event of the batch was stored; first problem: {message}"
    else:
        message = f"the event was not stored: {message}"
    return error_response(400, "invalid_event", message, result.errors)


def _partial(result: IngestResult) -> Response:
    body = {"status": "partial", "summary": result.summary(), "errors": result.errors}
    return _success(body, 207, result)


@router.post(
    "/lineage",
    status_code=201,
    summary="Receive one OpenLineage event, or an array of events",
    response_model=IngestAccepted,
    responses={
        200: {"model": IngestSummary, "description": "An array was stored completely"},
        207: {"model": IngestSummary, "description": "Part of an array was stored"},
        **_ERRORS,
    },
    openapi_extra=_body_doc(array_only=False),
)
async def post_lineage(request: Request) -> Response:
    return await _ingest(request, batch=False)


@router.post(
    "/lineage/batch",
    status_code=204,
    summary="Receive a batch (JSON array) of OpenLineage events",
    responses={
        204: {"description": "Every event was stored"},
        207: {"model": IngestSummary, "description": "Part of the batch was stored"},
        **_ERRORS,
    },
    openapi_extra=_body_doc(array_only=True),
)
async def post_batch(request: Request) -> Response:
    return await _ingest(request, batch=True)
