"""Liveness and readiness: ``GET /healthz`` and ``GET /readyz``.

Once the app runs, both answer 200 while the database answers and 503
``store_unavailable`` when it does not. Before, while the store's schema is
upgraded, the server answers them itself (:mod:`feast_lineage.consumer.upgrading`):
``/healthz`` 200 (alive), ``/readyz`` 503 (not ready for traffic).
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import text

from feast_lineage import __version__
from feast_lineage.consumer.deps import StateDep
from feast_lineage.consumer.errors import ServiceUnavailable
from feast_lineage.consumer.schemas import Health
from feast_lineage.consumer.state import ConsumerState

router = APIRouter(tags=["health"])


async def _store_answers(state: ConsumerState) -> Health:
    def ping() -> str:
        with state.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return state.engine.dialect.name

    try:
        name = await run_in_threadpool(ping)
    except Exception:
        raise ServiceUnavailable("the lineage store does not answer") from None
    return Health(status="ok", version=__version__, database=name)


@router.get("/healthz", response_model=Health, summary="Server and database health")
async def healthz(state: StateDep) -> Health:
    return await _store_answers(state)


@router.get(
    "/readyz", response_model=Health, summary="Whether the server takes traffic (for probes)"
)
async def readyz(state: StateDep) -> Health:
    return await _store_answers(state)
