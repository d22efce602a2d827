"""Run trees: ``GET /api/v1/lineage/openlineage/runs/{run_id}/tree``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from feast_lineage.consumer.deps import ReaderDep
from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import RUN_ID_SCHEMA
from feast_lineage.consumer.routes.params import run_id as parse_run_id
from feast_lineage.consumer.schemas import RunTree
from feast_lineage.consumer.services.run_tree import tree_of_run

router = APIRouter(tags=["runs"], responses=READ_ERRORS)


@router.get(
    "/runs/{run_id}/tree",
    response_model=RunTree,
    responses=error_responses(404, _404="No such run (or not visible)"),
    summary="A run's tree: its root and every run below it, however deep",
)
async def get_run_tree(
    read: ReaderDep,
    run_id: Annotated[
        str, Path(description="Any run of the tree", json_schema_extra=RUN_ID_SCHEMA)
    ],
    facets: Annotated[
        bool, Query(description="Send each run's facets as facets_json (read from its events)")
    ] = False,
) -> Response:
    key = parse_run_id(parameter("path", "run_id"), run_id)
    return await answer(tree_of_run, read, key, facets=facets)
