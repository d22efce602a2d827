"""Runs: ``GET /api/v1/lineage/openlineage/runs``, ``/runs/{run_id}`` and its ``/lineage``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    RUN_ID_SCHEMA,
    RUN_STATES,
    DirectionParam,
    either_case,
    enum_schema,
    one_of,
    time_range,
)
from feast_lineage.consumer.routes.params import run_id as parse_run_id
from feast_lineage.consumer.routes.sort_param import parse_sort, sort_schema
from feast_lineage.consumer.schemas import RunDetail, RunLineage, RunPage
from feast_lineage.consumer.services.bounds import MAX_DEPTH
from feast_lineage.consumer.services.run_lineage import run_lineage
from feast_lineage.consumer.services.runs import NEWEST_FIRST, run_detail, run_page
from feast_lineage.consumer.store.read.sorting import RUN_SORT_KEYS

router = APIRouter(
    tags=["runs"],
    responses=READ_ERRORS,
)


@router.get("/runs", response_model=RunPage, summary="Runs, newest first or sorted")
async def get_runs(
    read: ReaderDep,
    job_namespace: Annotated[
        str | None, Query(description="Runs of jobs of this namespace")
    ] = None,
    job_name: Annotated[str | None, Query(description="Runs of jobs with this name")] = None,
    job_search: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="Runs of jobs whose name contains this (any case)",
        ),
    ] = None,
    run_state: Annotated[
        str | None,
        Query(
            alias="state",
            description="RUNNING, COMPLETE, FAIL, ABORT or OTHER (or lower case)",
            json_schema_extra=enum_schema(either_case(RUN_STATES)),
        ),
    ] = None,
    since: Annotated[
        str | None,
        Query(
            description="Runs started at or after this time (not after until)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            description="Runs started before this time (not before since; equal to it: none)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    sort: Annotated[
        str | None,
        Query(
            description="The order: a key, '-' before it for descending "
            "(default -started: newest first); ties go by run id",
            json_schema_extra=sort_schema(RUN_SORT_KEYS),
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    wanted = one_of(parameter("query", "state"), run_state, RUN_STATES)
    since_us, until_us = time_range(since, until)
    order = parse_sort(sort, RUN_SORT_KEYS, NEWEST_FIRST)
    return await answer(
        run_page,
        read,
        job_namespace=job_namespace,
        job_name=job_name,
        job_search=job_search,
        state=wanted,
        since_us=since_us,
        until_us=until_us,
        sort=order,
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
    key = parse_run_id(parameter("path", "run_id"), run_id)
    return await answer(run_detail, read, key)


@router.get(
    "/runs/{run_id}/lineage",
    response_model=RunLineage,
    responses=error_responses(404, _404="No such run (or not visible)"),
    summary="The lineage of what one run read and wrote, as it stood when the run ended",
    description="The run's job is the center; upstream from what the run read and downstream "
    "from what it wrote, as of the run's end (now for a running run).",
)
async def get_run_lineage(
    read: ReaderDep,
    run_id: Annotated[str, Path(description="The run's id", json_schema_extra=RUN_ID_SCHEMA)],
    depth: Annotated[
        int,
        Query(
            ge=0,
            le=50,
            description="Steps from the run's job; 1: what the run read and wrote, and their "
            f"aliases. Past {MAX_DEPTH} the walk stops at {MAX_DEPTH} and the answer says so "
            "under clamped",
        ),
    ] = 3,
    direction: DirectionParam = "both",
    limit: Annotated[
        int, Query(ge=1, le=10_000, description="At most this many nodes, the nearest first")
    ] = 2000,
) -> Response:
    key = parse_run_id(parameter("path", "run_id"), run_id)
    return await answer(run_lineage, read, key, depth=depth, direction=direction, limit=limit)
