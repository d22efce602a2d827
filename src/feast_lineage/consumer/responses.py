"""A JSON response rendered with orjson (FastAPI's own ORJSONResponse is deprecated)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from starlette.responses import JSONResponse


class FastJSONResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


async def model_in_thread(
    func: Callable[..., BaseModel | dict[str, Any]], *args: Any
) -> FastJSONResponse:
    """Run ``func`` in a worker thread and render the model (or dict) it returns.

    Our own code built it, so it is rendered as it is, without FastAPI
    validating it a second time (the route's ``response_model`` still
    documents it, and tests validate responses against it).
    """

    def run() -> FastJSONResponse:
        value = func(*args)
        return FastJSONResponse(
            value.model_dump(by_alias=True) if isinstance(value, BaseModel) else value
        )

    return await run_in_threadpool(run)
