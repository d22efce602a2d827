"""Runs: ``GET /api/v1/lineage/openlineage/runs`` and ``/runs/{run_id}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.schemas import RunDetail, RunPage
from feast_lineage.consumer.services.runs import run_detail, run_page

router = APIRouter(
    tags=["runs"],
    responses=READ_ERRORS,
)

RUN_STATES = ("RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER")


@router.get("/runs", response_model=RunPage, summary="Runs, newest first")
async def get_runs(
    read: ReaderDep,
    job_namespace: Annotated[
        str | None, Query(description="Runs of jobs of this namespace")
    ] = None,
    job_name: Annotated[str | None, Query(description="Runs of jobs with this name")] = None,
    run_state: Annotated[
        str | None,
        Query(alias="state", description="RUNNING, COMPLETE, FAIL, ABORT or OTHER"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    wanted = None
    if run_state is not None:
        wanted = run_state.upper()
        if wanted not in RUN_STATES:
            raise LineageError(
                f"query parameter 'state': {run_state!r} is not one of " + ", ".join(RUN_STATES),
                code="invalid_parameter",
            )
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
async def get_run(read: ReaderDep, run_id: str) -> Response:
    return await answer(run_detail, read, run_id)
