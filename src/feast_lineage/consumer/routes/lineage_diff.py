"""What changed between two instants: ``GET /api/v1/lineage/openlineage/lineage/diff``.

Query parameters only: a path form would collide with dataset names that
hold a ``/``. The answer is :func:`..services.lineage_diff.lineage_diff`.
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import ReaderDep
from feast_lineage.consumer.errors import LineageError, parameter
from feast_lineage.consumer.lineage_model import Direction
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    NODE_TYPES,
    RUN_ID_SCHEMA,
    enum_schema,
    parse_time,
)
from feast_lineage.consumer.routes.params import node_type as node_type_param
from feast_lineage.consumer.routes.params import run_id as parse_run_id
from feast_lineage.consumer.schemas import LineageDiff
from feast_lineage.consumer.services.bounds import MAX_DEPTH
from feast_lineage.consumer.services.lineage_diff import Centre, lineage_diff, moment

router = APIRouter(tags=["graph"], responses=READ_ERRORS)

_RUN = "As of this run's end (a run still running: now); instead of {}"
_TIME = "An ISO 8601 instant (a future one is now); or {} instead"


def _centre(
    node_type: str | None,
    namespace: str | None,
    name: str | None,
    depth: int | None,
    direction: Direction | None,
) -> Centre | None:
    given = {"node_type": node_type, "namespace": namespace, "name": name}
    if all(v is None for v in given.values()):
        if depth is not None or direction is not None:
            raise LineageError(
                "depth and direction walk from a centre: pass node_type, namespace and name "
                "too, or neither for the whole graph",
                code="invalid_parameter",
            )
        return None
    if not (node_type and namespace and name):
        missing = [k for k, v in given.items() if not v]
        raise LineageError(
            f"a centred diff needs node_type, namespace and name: {', '.join(missing)} "
            "missing or empty (or pass none of the three for the whole graph)",
            code="invalid_parameter",
        )
    kind = node_type_param(parameter("query", "node_type"), node_type)
    return Centre(kind, namespace, name, 3 if depth is None else depth, direction or "both")


@router.get(
    "/lineage/diff",
    response_model=LineageDiff,
    responses=error_responses(404, _404="No such run, or the centre existed at neither instant"),
    summary="What changed between two instants: the difference of the two as_of answers",
)
async def get_lineage_diff(
    read: ReaderDep,
    from_: Annotated[
        str | None,
        Query(alias="from", description=_TIME.format("from_run"), json_schema_extra=DATE_TIME),
    ] = None,
    to: Annotated[
        str | None, Query(description=_TIME.format("to_run"), json_schema_extra=DATE_TIME)
    ] = None,
    from_run: Annotated[
        str | None, Query(description=_RUN.format("from"), json_schema_extra=RUN_ID_SCHEMA)
    ] = None,
    to_run: Annotated[
        str | None, Query(description=_RUN.format("to"), json_schema_extra=RUN_ID_SCHEMA)
    ] = None,
    node_type: Annotated[
        str | None,
        Query(
            description="Centre on this node (with namespace and name); none: the whole graph",
            json_schema_extra=enum_schema([*NODE_TYPES]),
        ),
    ] = None,
    namespace: Annotated[str | None, Query(description="The centre's namespace")] = None,
    name: Annotated[str | None, Query(description="The centre's name")] = None,
    depth: Annotated[
        int | None,
        Query(ge=0, le=MAX_DEPTH, description="Steps from the centre at each instant; default 3"),
    ] = None,
    direction: Annotated[
        Direction | None, Query(description="upstream, downstream or both (the default)")
    ] = None,
    within: Annotated[
        str | None,
        Query(
            description="The whole graph's diff in this namespace only (both ends of an edge "
            "in it), as GET /graph?namespace= narrows the graph (empty, as there: a namespace "
            "no node has, an empty diff); not with a centre",
        ),
    ] = None,
) -> Response:
    start = moment(
        ("from", "from_run"),
        parse_time("from", from_),
        parse_run_id(parameter("query", "from_run"), from_run),
    )
    end = moment(
        ("to", "to_run"), parse_time("to", to), parse_run_id(parameter("query", "to_run"), to_run)
    )
    centre = _centre(node_type, namespace, name, depth, direction)
    if within is not None and centre is not None:
        raise LineageError(
            "within narrows the whole graph's diff, a centre walks from one node: pass "
            "within, or node_type, namespace and name, not both",
            code="invalid_parameter",
        )
    now_us = time.time_ns() // 1000
    return await answer(
        lineage_diff, read, start=start, end=end, centre=centre, now_us=now_us, within=within
    )
