"""Event browsing: ``GET /api/v1/lineage/openlineage/events``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.deps import StateDep
from feast_lineage.consumer.schemas import ErrorResponse, EventPage
from feast_lineage.consumer.services.events import event_page

router = APIRouter(tags=["events"], responses={400: {"model": ErrorResponse}})


@router.get("/events", response_model=EventPage, summary="Browse events, newest first")
async def get_events(
    state: StateDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> EventPage:
    return await run_in_threadpool(event_page, state.engine, limit=limit, offset=offset)
