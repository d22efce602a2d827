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

from feast_lineage.consumer.deps import ReaderDep, WholeScopeDep
from feast_lineage.consumer.metrics import GaugeFamily, Metrics
from feast_lineage.consumer.responses import error_responses
from feast_lineage.consumer.services.health import HealthFigures, health_figures

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
async def get_metrics(request: Request, _whole: WholeScopeDep, read: ReaderDep) -> Response:
    metrics: Metrics = request.app.state.metrics
    figures = await run_in_threadpool(health_figures, read)  # from the store, at this scrape
    # reads the workers' files
    body, content_type = await run_in_threadpool(metrics.render, _gauges(figures))
    return Response(body, media_type=content_type)


def _gauges(f: HealthFigures) -> list[GaugeFamily]:
    """The health gauges (docs/api.md, Metrics): computed at the scrape, once per answer."""
    view, ns = ("namespace", "name"), ("namespace",)
    return [
        GaugeFamily(
            "feature_view_materialization_lag_seconds",
            "Now minus the end of the feature view's latest materialized interval",
            view,
            f.materialization_lag,
        ),
        GaugeFamily(
            "feature_view_source_lag_seconds",
            "Now minus the latest write of the feature view's data source's dataset",
            view,
            f.source_lag,
        ),
        GaugeFamily(
            "feature_service_at_risk",
            "1 when the feature service is downstream of a failed job or a stale dataset",
            view,
            f.service_at_risk,
        ),
        GaugeFamily("failed_jobs", "Jobs whose latest run failed, by namespace", ns, f.failed_jobs),
        GaugeFamily(
            "stale_datasets",
            "Datasets written less often than expected, by namespace",
            ns,
            f.stale_datasets,
        ),
    ]
