"""HTTP routes, one module per group, included from :func:`include_routes`."""

from __future__ import annotations

from fastapi import FastAPI

from feast_lineage.consumer.routes import events, health, ingest, runs


def include_routes(app: FastAPI) -> None:
    app.include_router(health.router)
    app.include_router(ingest.router, prefix="/api/v1")
    app.include_router(events.router, prefix="/api/v1/lineage/openlineage")
    app.include_router(runs.router, prefix="/api/v1/lineage/openlineage")
