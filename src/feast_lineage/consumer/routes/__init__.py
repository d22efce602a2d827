"""HTTP routes, one module per group, included from :func:`include_routes`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI

from feast_lineage.consumer.deps import KnownQueryOnly
from feast_lineage.consumer.routes import (
    admin,
    api_docs,
    catalog,
    columns,
    dataset_versions,
    events,
    facets,
    graph,
    health,
    ingest,
    job_versions,
    lineage_diff,
    metrics,
    problems,
    registry,
    run_tree,
    runs,
    ui,
)

# A read route's handler -> its full path template, as OpenAPI writes it, e.g.
# "/api/v1/lineage/openlineage/graph" or ".../datasets/{namespace}/{name}/versions".
ReadRoutes = dict[Callable[..., Any], str]


def include_routes(app: FastAPI, *, consumer: bool = True, web_ui: bool = False) -> ReadRoutes:
    """Every route; without ``consumer`` only registry lineage (and the UI).

    Returns the read routes of the API by handler, for the query-time metric.
    """
    # API routes answer a query parameter they do not take with a 400.
    strict = [KnownQueryOnly]
    reads: ReadRoutes = {}

    def include_reads(router: APIRouter, prefix: str) -> None:
        app.include_router(router, prefix=prefix, dependencies=strict)
        for route in router.routes:
            # The template without convertors ({name}, not {name:anything}): OpenAPI's path.
            path = getattr(route, "path_format", None)
            endpoint = getattr(route, "endpoint", None)
            if path is not None and endpoint is not None and "GET" in getattr(route, "methods", ()):
                reads[endpoint] = prefix + path

    if consumer:
        app.include_router(health.router)
        app.include_router(ingest.router, prefix="/api/v1")  # checks its query itself
        app.include_router(metrics.router, dependencies=strict)
        for router in (
            events.router,
            runs.router,
            run_tree.router,
            graph.router,
            problems.router,
            lineage_diff.router,
            catalog.router,
            columns.router,
            dataset_versions.router,
            job_versions.router,
            admin.router,
        ):
            include_reads(router, "/api/v1/lineage/openlineage")
    else:
        app.include_router(ui.registry_only_health)
    api_docs.install_api_docs(app)
    include_reads(registry.router, "/api/v1/lineage")
    include_reads(facets.router, "/api/v1/lineage")
    if web_ui:
        include_reads(ui.router, "/api/v1/ui")
        ui.mount_web_ui(app)
    return reads
