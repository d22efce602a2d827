"""Prometheus metrics: ``GET /metrics``.

A read like the others, protected by the same authorizer, with one more
rule: the figures are store-wide (events of every namespace, every prune),
so only a caller who may see every namespace gets them. Under the ``open``
authorizer that is everyone; under ``api_keys``, the admin ``api_key`` or a
read key granted ``*``; under ``feast``, the admin ``api_key`` (a Feast
token's projects are always a finite list). A caller with a narrower scope
gets ``403``, never a partial view; one without a key or token (an
anonymous caller of ``anonymous_projects`` included) gets ``401``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.deps import WholeScopeDep
from feast_lineage.consumer.metrics import Metrics
from feast_lineage.consumer.responses import error_responses

router = APIRouter(tags=["metrics"])


@router.get(
    "/metrics",
    response_class=Response,
    summary="Prometheus metrics of every worker process (text exposition format)",
    responses={
        200: {"content": {"text/plain": {}}, "description": "The metrics"},
        **error_responses(400, 401, 503),
        **error_responses(403, _403="The caller may not see every namespace"),
    },
)
async def get_metrics(request: Request, _whole: WholeScopeDep) -> Response:
    metrics: Metrics = request.app.state.metrics
    body, content_type = await run_in_threadpool(metrics.render)  # reads the workers' files
    return Response(body, media_type=content_type)
