"""HTTP routes, one module per group, included from :func:`include_routes`."""

from __future__ import annotations

from fastapi import FastAPI

from feast_lineage.consumer.routes import (
    admin,
    catalog,
    events,
    facets,
    graph,
    health,
    ingest,
    registry,
    runs,
)


def include_routes(app: FastAPI) -> None:
    app.include_router(health.router)
    app.include_router(ingest.router, prefix="/api/v1")
    app.include_router(events.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(runs.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(graph.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(catalog.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(admin.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(registry.router, prefix="/api/v1/lineage")
    app.include_router(facets.router, prefix="/api/v1/lineage")
