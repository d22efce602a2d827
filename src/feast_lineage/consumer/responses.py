"""JSON responses rendered with orjson, answering from a worker thread, and the shared errors.

(FastAPI's own ORJSONResponse is deprecated.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

import orjson
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from starlette.responses import JSONResponse

from feast_lineage.consumer.schemas import ErrorResponse, StoredEventText


def _embedded(value: object) -> orjson.Fragment | dict[str, object]:
    """Stored JSON text inside an answer, embedded as it is; a response model in a TypedDict."""
    if isinstance(value, StoredEventText):
        return orjson.Fragment(value.text)
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True)
    raise TypeError(f"cannot render a {type(value).__name__} as JSON")


class FastJSONResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, default=_embedded, option=orjson.OPT_NON_STR_KEYS)


P = ParamSpec("P")


async def answer(
    func: Callable[P, BaseModel | Mapping[str, object]], *args: P.args, **kwargs: P.kwargs
) -> FastJSONResponse:
    """Run ``func`` in a worker thread and render the response model (or TypedDict) it returns.

    Services build their answers as the response models the routes declare
    (validated as they are made), so the answer is rendered as it is,
    without FastAPI validating it a second time.
    """

    def run() -> FastJSONResponse:
        value = func(*args, **kwargs)
        return FastJSONResponse(
            value.model_dump(by_alias=True) if isinstance(value, BaseModel) else value
        )

    return await run_in_threadpool(run)


_ERROR_DESCRIPTIONS = {
    400: "A parameter is invalid",
    401: "An API key (or token) is missing or wrong",
    403: "Access refused",
    404: "Not found (or not visible to you)",
    408: "The request body stalled (it came too slowly or stopped); send it again",
    409: "What was read changed while it was read (a prune or reset); retry",
    413: "Body or batch too large",
    415: "The body is not declared as JSON",
    503: "The store (or registry) is unavailable or busy; retry",
}


def error_responses(*statuses: int, **descriptions: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of error answers, in the one error shape.

    ``descriptions`` overrides a status's description, keyed ``_404=...``.
    """
    return {
        status: {
            "model": ErrorResponse,
            "description": descriptions.get(f"_{status}", _ERROR_DESCRIPTIONS[status]),
        }
        for status in statuses
    }


# Every read endpoint may answer these.
READ_ERRORS = error_responses(400, 401, 403)
