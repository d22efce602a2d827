"""HTTP routes, one module per group, included from :func:`include_routes`."""

from __future__ import annotations

from fastapi import FastAPI

from feast_lineage.consumer.deps import KnownQueryOnly
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
    # API routes answer a query parameter they do not take with a 400.
    strict = [KnownQueryOnly]
    if consumer:
        app.include_router(health.router)
        app.include_router(ingest.router, prefix="/api/v1")  # checks its query itself
        for router in (events.router, runs.router, graph.router, catalog.router, admin.router):
            app.include_router(router, prefix="/api/v1/lineage/openlineage", dependencies=strict)
    else:
        app.include_router(ui.registry_only_health)
    app.include_router(registry.router, prefix="/api/v1/lineage", dependencies=strict)
    app.include_router(facets.router, prefix="/api/v1/lineage", dependencies=strict)
    if web_ui:
        app.include_router(ui.router, prefix="/api/v1/ui", dependencies=strict)
        ui.mount_web_ui(app)
