"""OpenLineage ingest: ``POST /api/v1/lineage`` and ``POST /api/v1/lineage/batch``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from feast_lineage.consumer.deps import ingest_state
from feast_lineage.consumer.errors import error_response
from feast_lineage.consumer.responses import FastJSONResponse
from feast_lineage.consumer.schemas import ErrorResponse, IngestAccepted, IngestSummary
from feast_lineage.consumer.services.ingest import IngestResult, ingest
from feast_lineage.consumer.warnings import warning_header

router = APIRouter(tags=["ingest"])

_BODY_DOC = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "description": "An OpenLineage 2-0-2 RunEvent, DatasetEvent or JobEvent, "
                    "or an array of them. May be sent with Content-Encoding: gzip.",
                    "oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "object"}}],
                }
            }
        },
    }
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Invalid JSON or an invalid event"},
    401: {"model": ErrorResponse, "description": "API key missing or wrong"},
    413: {"model": ErrorResponse, "description": "Body or batch too large"},
    503: {"model": ErrorResponse, "description": "The store is unavailable or busy; retry"},
}


def _failure(result: IngestResult) -> Response:
    if all(e.get("code") == "store_unavailable" for e in result.errors):
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


def _success(body: dict[str, Any], status: int, result: IngestResult) -> Response:
    """A success (or partial) answer, with its warnings in the body and a header."""
    if not result.warnings:
        return FastJSONResponse(body, status)
    body["warnings"] = result.warnings
    return FastJSONResponse(body, status, headers=warning_header(result.warnings))


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
    openapi_extra=_BODY_DOC,
)
async def post_lineage(request: Request) -> Response:
    state = await ingest_state(request)
    result = await ingest(request, state, batch=False)
    if result.successful == 0 and result.received > 0:
        return _failure(result)
    if result.failed:
        return _partial(result)
    if result.is_array:
        return _success({"status": "success", "summary": result.summary()}, 200, result)
    return _success({"status": "created", "summary": result.summary()}, 201, result)


@router.post(
    "/lineage/batch",
    status_code=204,
    summary="Receive a batch (JSON array) of OpenLineage events",
    responses={
        204: {"description": "Every event was stored"},
        207: {"model": IngestSummary, "description": "Part of the batch was stored"},
        **_ERRORS,
    },
    openapi_extra=_BODY_DOC,
)
async def post_batch(request: Request) -> Response:
    state = await ingest_state(request)
    result = await ingest(request, state, batch=True)
    if result.successful == 0 and result.received > 0:
        return _failure(result)
    if result.failed:
        return _partial(result)
    return Response(status_code=204, headers=warning_header(result.warnings))
