"""Column lineage: ``/datasets/{namespace}/{name}/columns`` (Feast 0.67's path) and ``/columns``.

The path form takes the namespace and the name as single percent-encoded
segments (``postgres%3A%2F%2Fdb%3A5432``), as the subgraph route does:
servers decode ``%2F`` before routing, so they come from the raw path.
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from feast_lineage.consumer.deps import ReaderDep
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.lineage_model import Direction
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.name_path import name_path
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    DirectionParam,
    decode_segments,
    encoded_segments,
    parse_time,
    time_range,
)
from feast_lineage.consumer.schemas import ColumnLineage
from feast_lineage.consumer.services.columns import column_lineage
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import when

router = APIRouter(tags=["columns"], responses=READ_ERRORS)
_NOT_FOUND = error_responses(
    404, _404="No such dataset (or it is not visible), or no such field in its known schema"
)
_MARK = "/openlineage/datasets/"

Field = Annotated[
    str | None,
    Query(min_length=1, description="One field (column) of the dataset; every field when absent"),
]
Depth = Annotated[int, Query(ge=0, le=20, description="Steps from the field; 1: direct edges")]
Indirect = Annotated[
    bool, Query(description="Follow INDIRECT edges (filters, joins, grouping) too")
]
Limit = Annotated[
    int, Query(ge=1, le=10_000, description="At most this many field nodes, the nearest first")
]
AsOf = Annotated[
    str | None,
    Query(
        description="The column lineage as it stood at this instant (ISO 8601): the latest "
        "column lineage payload of each output dataset and job by then, schemas of the dataset "
        "versions current then, the symlinks current then. A future instant is now. Not with "
        "since/until",
        json_schema_extra=DATE_TIME,
    ),
]
Since = Annotated[
    str | None,
    Query(
        description="With or without until: the column lineage stated by the runs overlapping "
        "[since, until) for their outputs (and by DatasetEvents in it); the symlinks current "
        "just before until",
        json_schema_extra=DATE_TIME,
    ),
]
Until = Annotated[
    str | None, Query(description="The end of the window (see since)", json_schema_extra=DATE_TIME)
]


async def _columns(
    read: StoreReader,
    namespace: str,
    name: str,
    field: str | None,
    direction: Direction,
    depth: int,
    indirect: bool,
    limit: int,
    times: tuple[str | None, str | None, str | None],
) -> Response:
    as_of, since, until = times
    since_us, until_us = time_range(since, until)
    at = when(parse_time("as_of", as_of), since_us, until_us, time.time_ns() // 1000)
    if not namespace or not name:
        raise LineageError("the namespace and the name must not be empty", code="invalid_parameter")
    return await answer(
        column_lineage,
        read,
        namespace=namespace,
        name=name,
        field_name=field,
        direction=direction,
        depth=depth,
        indirect=indirect,
        limit=limit,
        at=at,
    )


@router.get(
    "/columns",
    response_model=ColumnLineage,
    responses=_NOT_FOUND,
    summary="Column lineage of a dataset (or one of its fields), named by query parameters",
)
async def get_columns_by_query(
    read: ReaderDep,
    namespace: Annotated[str, Query(min_length=1, description="The dataset's namespace")],
    name: Annotated[str, Query(min_length=1, description="The dataset's name")],
    field: Field = None,
    direction: DirectionParam = "both",
    depth: Depth = 3,
    indirect: Indirect = True,
    limit: Limit = 2000,
    as_of: AsOf = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    times = (as_of, since, until)
    return await _columns(read, namespace, name, field, direction, depth, indirect, limit, times)


def _segments(request: Request, decoded: str) -> tuple[str, str]:
    parts = encoded_segments(request, _MARK, decoded)
    if len(parts) != 3 or parts[2] != "columns":
        raise LineageError(
            "expected /datasets/{namespace}/{name}/columns with the namespace and the name "
            "percent-encoded as one path segment each (a '/' as %2F), e.g. "
            "/datasets/s3%3A%2F%2Fbucket/path%2Fto%2Ftable/columns; or use "
            "/columns?namespace=...&name=...",
            code="invalid_parameter",
        )
    namespace, name = decode_segments(parts[:2])
    return namespace, name


@router.get(
    name_path("/datasets/{namespace}/{name}/columns"),
    response_model=ColumnLineage,
    responses=_NOT_FOUND,
    summary="Column lineage of a dataset (or one of its fields)",
    description="The namespace and the name are each one percent-encoded path segment "
    "(postgres://db:5432 as postgres%3A%2F%2Fdb%3A5432, a/b as a%2Fb). The answer holds "
    "Feast 0.67's column_lineage rows beside the field graph.",
)
async def get_columns(
    request: Request,
    read: ReaderDep,
    namespace: Annotated[str, Path(description="The namespace, percent-encoded")],
    name: Annotated[str, Path(description="The name, percent-encoded")],
    field: Field = None,
    direction: DirectionParam = "both",
    depth: Depth = 3,
    indirect: Indirect = True,
    limit: Limit = 2000,
    as_of: AsOf = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    ns, dataset_name = _segments(request, f"{namespace}/{name}/columns")
    times = (as_of, since, until)
    return await _columns(read, ns, dataset_name, field, direction, depth, indirect, limit, times)
