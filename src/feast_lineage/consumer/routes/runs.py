"""Runs: ``GET /api/v1/lineage/openlineage/runs`` and ``/runs/{run_id}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import (
    RUN_ID_SCHEMA,
    RUN_STATES,
    either_case,
    enum_schema,
    one_of,
)
from feast_lineage.consumer.routes.params import run_id as parse_run_id
from feast_lineage.consumer.schemas import RunDetail, RunPage
from feast_lineage.consumer.services.runs import run_detail, run_page

router = APIRouter(
    tags=["runs"],
    responses=READ_ERRORS,
)


@router.get("/runs", response_model=RunPage, summary="Runs, newest first")
async def get_runs(
    read: ReaderDep,
    job_namespace: Annotated[
        str | None, Query(description="Runs of jobs of this namespace")
    ] = None,
    job_name: Annotated[str | None, Query(description="Runs of jobs with this name")] = None,
    run_state: Annotated[
        str | None,
        Query(
            alias="state",
            description="RUNNING, COMPLETE, FAIL, ABORT or OTHER (or lower case)",
            json_schema_extra=enum_schema(either_case(RUN_STATES)),
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    wanted = one_of("query parameter 'state'", run_state, RUN_STATES)
    return await answer(
        run_page,
        read,
        job_namespace=job_namespace,
        job_name=job_name,
        state=wanted,
        limit=limit,
        offset=offset,
    )


@router.get(
    "/runs/{run_id}",
    response_model=RunDetail,
    responses=error_responses(404, _404="No such run (or not visible)"),
    summary="One run with its inputs, outputs, parent and child runs",
)
async def get_run(
    read: ReaderDep,
    run_id: Annotated[str, Path(description="The run's id", json_schema_extra=RUN_ID_SCHEMA)],
) -> Response:
    key = parse_run_id("run_id", run_id)
    assert key is not None
    return await answer(run_detail, read, key)
