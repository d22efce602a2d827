"""Runs: ``GET /api/v1/lineage/openlineage/runs/{run_id}``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.deps import StateDep
from feast_lineage.consumer.schemas import ErrorResponse, RunDetail
from feast_lineage.consumer.services.runs import run_detail

router = APIRouter(
    tags=["runs"], responses={400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}
)


@router.get(
    "/runs/{run_id}", response_model=RunDetail, summary="One run with its inputs and outputs"
)
async def get_run(state: StateDep, run_id: str) -> RunDetail:
    return await run_in_threadpool(run_detail, state.engine, run_id)
