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
    ui,
)


def include_routes(app: FastAPI, *, consumer: bool = True, web_ui: bool = False) -> None:
    """Every route; without ``consumer`` only registry lineage (and the UI)."""
    if consumer:
        app.include_router(health.router)
        app.include_router(ingest.router, prefix="/api/v1")
        app.include_router(events.router, prefix="/api/v1/lineage/openlineage")
        app.include_router(runs.router, prefix="/api/v1/lineage/openlineage")
        app.include_router(graph.router, prefix="/api/v1/lineage/openlineage")
        app.include_router(catalog.router, prefix="/api/v1/lineage/openlineage")
        app.include_router(admin.router, prefix="/api/v1/lineage/openlineage")
    else:
        app.include_router(ui.registry_only_health)
    app.include_router(registry.router, prefix="/api/v1/lineage")
    app.include_router(facets.router, prefix="/api/v1/lineage")
    if web_ui:
        app.include_router(ui.router, prefix="/api/v1/ui")
        ui.mount_web_ui(app)
