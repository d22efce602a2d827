"""Liveness and readiness: ``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import text

from feast_lineage import __version__
from feast_lineage.consumer.deps import StateDep
from feast_lineage.consumer.errors import ServiceUnavailable
from feast_lineage.consumer.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Server and database health")
async def healthz(state: StateDep) -> Health:
    def ping() -> str:
        with state.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return state.engine.dialect.name

    try:
        name = await run_in_threadpool(ping)
    except Exception:
        raise ServiceUnavailable("the lineage store does not answer") from None
    return Health(status="ok", version=__version__, database=name)
