"""Lineage health: ``GET .../openlineage/health`` (the open problems) and ``.../impact``.

(``/healthz`` and ``/readyz``, the process's own health, are in :mod:`.health`.)
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import NODE_TYPES, either_case, enum_schema, one_of
from feast_lineage.consumer.routes.params import node_type as node_type_param
from feast_lineage.consumer.schemas import HealthPage, Impact
from feast_lineage.consumer.services.bounds import MAX_DEPTH
from feast_lineage.consumer.services.health import MAX_PROBLEMS_PAGE, health_page, impact

router = APIRouter(tags=["health"], responses=READ_ERRORS)
_PROBLEM_KINDS = ("failed", "stale")


@router.get(
    "/health",
    response_model=HealthPage,
    summary="The open problems (failed jobs, stale datasets), each with what it reaches",
)
async def get_health(
    read: ReaderDep,
    namespace: Annotated[str | None, Query(description="Only problems in this namespace")] = None,
    kind: Annotated[
        str | None,
        Query(
            description="failed or stale (in upper or lower case); both when left out",
            json_schema_extra=enum_schema(either_case(_PROBLEM_KINDS)),
        ),
    ] = None,
    limit: Annotated[
        int,
        Query(
            ge=1, le=MAX_PROBLEMS_PAGE, description=f"Problems per page, 1 to {MAX_PROBLEMS_PAGE}"
        ),
    ] = 50,
    offset: Offset = 0,
) -> Response:
    wanted = one_of(parameter("query", "kind"), kind, _PROBLEM_KINDS)
    problem_kind: Literal["failed", "stale"] | None = (
        None if wanted is None else "failed" if wanted == "failed" else "stale"
    )
    return await answer(
        health_page, read, namespace=namespace, kind=problem_kind, limit=limit, offset=offset
    )


@router.get(
    "/impact",
    response_model=Impact,
    responses=error_responses(
        404,
        409,
        _404="No such node (or it is not visible)",
        _409="The node was removed while it was read; retry",
    ),
    summary="If this node breaks, what is affected: every node downstream along the data, by kind",
)
async def get_impact(
    read: ReaderDep,
    node_type: Annotated[
        str, Query(description="job or dataset", json_schema_extra=enum_schema([*NODE_TYPES]))
    ],
    namespace: Annotated[str, Query(min_length=1, description="The node's OpenLineage namespace")],
    name: Annotated[str, Query(min_length=1, description="The node's name")],
    depth: Annotated[
        int,
        Query(
            ge=1,
            le=50,
            description=f"Steps downstream; past {MAX_DEPTH} the walk stops at {MAX_DEPTH} and "
            "the answer says so under clamped",
        ),
    ] = 10,
) -> Response:
    kind = node_type_param(parameter("query", "node_type"), node_type)
    return await answer(impact, read, kind=kind, namespace=namespace, name=name, depth=depth)
