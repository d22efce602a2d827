"""The consumer's one exception tree and its one JSON error shape.

Every error response of every endpoint has the body::

    {"error": {"status": 400, "code": "invalid_json",
               "message": "what was wrong and how to fix it",
               "details": [{"index": 3, "path": "$[3].run.runId", "message": "..."}]},
     "detail": "what was wrong and how to fix it"}

``details`` is present when there is more than one thing to say. ``detail``
is the message again under the key Feast 0.67's lineage server (FastAPI's
``HTTPException``) puts it, so a client written for Feast shows our message. No stack
trace or internal message reaches a client: a database that cannot be
reached (or locked, or full) is a 503 ``store_unavailable`` with
``Retry-After``, other unexpected exceptions a 500 with a generic message,
and the details go to the server log.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from feast_lineage.consumer.responses import FastJSONResponse
from feast_lineage.registry.source import NoRepository, RegistryUnavailable

log = logging.getLogger(__name__)


class LineageError(Exception):
    """An error with an HTTP status, a stable code and a message for the client."""

    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        details: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        status: int | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code


class Unauthorized(LineageError):
    status = 401
    code = "unauthorized"


class Forbidden(LineageError):
    status = 403
    code = "forbidden"


class NotFound(LineageError):
    status = 404
    code = "not_found"


class Conflict(LineageError):
    """What was read changed while it was read (a concurrent prune or reset): retry."""

    status = 409
    code = "conflict"


class ServiceUnavailable(LineageError):
    status = 503
    code = "store_unavailable"


# A message longer than this is cut: one that quotes what the client sent (a
# 60 KB name) must not send it all back.
MAX_MESSAGE_CHARS = 1000


def error_body(
    status: int, code: str, message: str, details: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    error: dict[str, Any] = {"status": status, "code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error, "detail": message}


def error_response(
    status: int,
    code: str,
    message: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> FastJSONResponse:
    return FastJSONResponse(error_body(status, code, message, details), status, headers=headers)


_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def parameter(where: str, name: str) -> str:
    """How every error message names a parameter (``where``: query or path), e.g.
    ``query parameter 'limit'`` or ``path parameter 'run_id'``."""
    return f"{where} parameter {name!r}"


def _loc(loc: tuple[Any, ...]) -> str:
    where = loc[0] if loc else "request"
    rest = ".".join(str(p) for p in loc[1:])
    return parameter(str(where), rest) if rest else str(where)


# What a parameter of each type accepts, said instead of the validation library's wording.
_ACCEPTED = {
    "bool_parsing": "must be true or false (also 1 or 0, yes or no, on or off)",
    "bool_type": "must be true or false (also 1 or 0, yes or no, on or off)",
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "missing": "is required",
}
_BOUNDS = {
    "greater_than_equal": ("ge", "must be at least {}"),
    "greater_than": ("gt", "must be more than {}"),
    "less_than_equal": ("le", "must be at most {}"),
    "less_than": ("lt", "must be less than {}"),
    "string_too_short": ("min_length", "must have at least {} character{}"),
    "string_too_long": ("max_length", "must have at most {} character{}"),
}


def _accepted(error: Any) -> str:
    """A validation error's message, saying what the parameter accepts."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind in _ACCEPTED:
        return _ACCEPTED[kind]
    if kind in _BOUNDS and _BOUNDS[kind][0] in ctx:
        key, text = _BOUNDS[kind]
        return text.format(ctx[key], "" if ctx[key] == 1 else "s")
    if kind in ("literal_error", "enum") and "expected" in ctx:
        return f"must be {ctx['expected']}"
    message = str(error.get("msg", "invalid"))
    return message.replace("Input should be", "must be", 1)


def http_error_response(request: Request, exc: StarletteHTTPException) -> FastJSONResponse:
    """The JSON error of an HTTP error Starlette raises (no route, wrong method, ...)."""
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = str(exc.detail) if exc.detail else code.replace("_", " ")
    if exc.status_code == 404 and message == "Not Found":
        message = "no such endpoint; see /docs for the API"
    headers = dict(exc.headers) if exc.headers else None
    allowed = (headers or {}).get("Allow")
    if exc.status_code == 405 and allowed:
        message = f"this endpoint takes {allowed.replace(', ', ' or ')}, not {request.method}"
    return error_response(exc.status_code, code, message, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(LineageError)
    async def _lineage(_: Request, exc: LineageError) -> FastJSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)

    @app.exception_handler(RegistryUnavailable)
    async def _registry_down(_: Request, exc: RegistryUnavailable) -> FastJSONResponse:
        return error_response(503, "registry_unavailable", str(exc))

    @app.exception_handler(NoRepository)
    async def _no_repository(_: Request, exc: NoRepository) -> FastJSONResponse:
        return error_response(404, "no_registry", str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> FastJSONResponse:
        details = [
            {"path": _loc(tuple(e.get("loc", ()))), "message": _accepted(e)} for e in exc.errors()
        ]
        first = details[0] if details else {"path": "request", "message": "invalid"}
        return error_response(
            400,
            "invalid_parameter",
            f"{first['path']}: {first['message']}",
            details if len(details) > 1 else None,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> FastJSONResponse:
        return http_error_response(request, exc)

    @app.exception_handler(OperationalError)
    async def _store_down(request: Request, exc: OperationalError) -> FastJSONResponse:
        # The database is unreachable, locked or out of space: retry, not a bug.
        log.warning(
            "lineage store unavailable on %s %s: %s",
            request.method,
            request.url.path,
            type(exc.orig).__name__,
        )
        return error_response(
            503,
            "store_unavailable",
            "the lineage store is unavailable; retry later",
            headers={"Retry-After": "1"},
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> FastJSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(
            500, "internal_error", "the server failed to handle this request; see the server log"
        )
