"""Event browsing: ``GET /api/v1/lineage/openlineage/events``."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.responses import READ_ERRORS, answer
from feast_lineage.consumer.schemas import EventPage
from feast_lineage.consumer.services.events import event_page
from feast_lineage.event_time import EventTimeError, parse_us

router = APIRouter(
    tags=["events"],
    responses=READ_ERRORS,
)

EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")


def _invalid(message: str) -> LineageError:
    return LineageError(message, code="invalid_parameter")


def parse_time(name: str, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_us(value)
    except EventTimeError as err:
        raise _invalid(f"query parameter {name!r}: {err}") from None


def parse_run_id(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise _invalid(f"query parameter 'run_id': {value!r} is not a UUID") from None


@router.get("/events", response_model=EventPage, summary="Browse events, newest first")
async def get_events(
    read: ReaderDep,
    namespace: Annotated[
        str | None, Query(description="Events of this namespace (the job's, or the dataset's)")
    ] = None,
    job_name: Annotated[str | None, Query(description="Events of jobs with this name")] = None,
    run_id: Annotated[str | None, Query(description="Events of this run")] = None,
    event_type: Annotated[
        str | None, Query(description="START, RUNNING, COMPLETE, ABORT, FAIL or OTHER")
    ] = None,
    since: Annotated[
        str | None, Query(description="Event time at or after this ISO 8601 time")
    ] = None,
    until: Annotated[str | None, Query(description="Event time before this ISO 8601 time")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    kind = None
    if event_type is not None:
        kind = event_type.upper()
        if kind not in EVENT_TYPES:
            raise _invalid(
                f"query parameter 'event_type': {event_type!r} is not one of "
                + ", ".join(EVENT_TYPES)
            )
    since_us, until_us = parse_time("since", since), parse_time("until", until)
    if since_us is not None and until_us is not None and since_us >= until_us:
        raise _invalid(
            f"query parameter 'since' ({since}) is not before 'until' ({until}), so no event "
            "can match; swap them"
        )
    run = parse_run_id(run_id)
    return await answer(
        event_page,
        read,
        namespace=namespace,
        job_name=job_name,
        run_id=run,
        event_type=kind,
        since_us=since_us,
        until_us=until_us,
        limit=limit,
        offset=offset,
    )
