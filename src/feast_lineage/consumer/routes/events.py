"""Event browsing: ``GET /api/v1/lineage/openlineage/events``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.responses import READ_ERRORS, answer
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    EVENT_TYPES,
    RUN_ID_SCHEMA,
    either_case,
    enum_schema,
    one_of,
    time_range,
)
from feast_lineage.consumer.routes.params import run_id as parse_run_id
from feast_lineage.consumer.schemas import EventPage
from feast_lineage.consumer.services.events import event_page

router = APIRouter(
    tags=["events"],
    responses=READ_ERRORS,
)


@router.get("/events", response_model=EventPage, summary="Browse events, newest first")
async def get_events(
    read: ReaderDep,
    namespace: Annotated[
        str | None, Query(description="Events of this namespace (the job's, or the dataset's)")
    ] = None,
    job_name: Annotated[str | None, Query(description="Events of jobs with this name")] = None,
    job_search: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="Events of jobs whose name contains this (any case)",
        ),
    ] = None,
    run_id: Annotated[
        str | None, Query(description="Events of this run", json_schema_extra=RUN_ID_SCHEMA)
    ] = None,
    event_type: Annotated[
        str | None,
        Query(
            description="START, RUNNING, COMPLETE, ABORT, FAIL or OTHER (or lower case)",
            json_schema_extra=enum_schema(either_case(EVENT_TYPES)),
        ),
    ] = None,
    since: Annotated[
        str | None,
        Query(
            description="Event time at or after this time (not after until)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            description="Event time before this time (not before since; equal to it: none)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="Events per page (Feast's 100)")] = 100,
    offset: Offset = 0,
) -> Response:
    kind = one_of(parameter("query", "event_type"), event_type, EVENT_TYPES)
    since_us, until_us = time_range(since, until)
    run = parse_run_id(parameter("query", "run_id"), run_id)
    return await answer(
        event_page,
        read,
        namespace=namespace,
        job_name=job_name,
        job_search=job_search,
        run_id=run,
        event_type=kind,
        since_us=since_us,
        until_us=until_us,
        limit=limit,
        offset=offset,
    )
