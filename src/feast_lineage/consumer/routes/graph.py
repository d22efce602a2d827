"""The lineage graph: ``GET /api/v1/lineage/openlineage/graph`` and subgraphs.

A subgraph is addressed as ``/graph/{node_type}/{namespace}/{name}`` with
the namespace and name percent-encoded as single path segments
(``postgres%3A%2F%2Fdb%3A5432``), or as
``/graph/node?type=&namespace=&name=``. Servers decode ``%2F`` before
routing, so the path form takes its segments from the raw request path.
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import LineageError, parameter
from feast_lineage.consumer.lineage_model import Direction
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.name_path import name_path
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    NODE_TYPES,
    DirectionParam,
    decode_segments,
    encoded_segments,
    enum_schema,
    parse_time,
    time_range,
)
from feast_lineage.consumer.routes.params import node_type as node_type_param
from feast_lineage.consumer.schemas import GraphPage, Subgraph
from feast_lineage.consumer.services.bounds import MAX_DEPTH, MAX_GRAPH_PAGE
from feast_lineage.consumer.services.graph import graph_page, subgraph
from feast_lineage.consumer.services.graph_history import (
    History,
    graph_page_at,
    history,
    subgraph_at,
)
from feast_lineage.consumer.services.reader import StoreReader

router = APIRouter(
    tags=["graph"],
    responses=READ_ERRORS,
)
_NOT_FOUND = error_responses(404, _404="No such node (or it is not visible)")
_MARK = "/openlineage/graph/"

Depth = Annotated[
    int,
    Query(
        ge=0,
        le=50,
        description=f"Steps from the node; 1: direct neighbours. Up to 50, as Feast takes; "
        f"past {MAX_DEPTH} the walk stops at {MAX_DEPTH} and the answer says so under clamped",
    ),
]
AsOf = Annotated[
    str | None,
    Query(
        description="The lineage as it stood at this instant (ISO 8601): the answer of a store "
        "holding only the events up to it; a future instant is now. Not with since/until",
        json_schema_extra=DATE_TIME,
    ),
]
Since = Annotated[
    str | None,
    Query(
        description="With or without until: the lineage the runs overlapping [since, until) "
        "observed, each input, output and parent edge with its run count and first and last "
        "seen; nodes as stored",
        json_schema_extra=DATE_TIME,
    ),
]
Until = Annotated[
    str | None, Query(description="The end of the window (see since)", json_schema_extra=DATE_TIME)
]


def _history(as_of: str | None, since: str | None, until: str | None) -> History | None:
    since_us, until_us = time_range(since, until)
    now_us = time.time_ns() // 1000
    return history(parse_time("as_of", as_of), since_us, until_us, now_us)


SubgraphLimit = Annotated[
    int, Query(ge=1, le=10_000, description="At most this many nodes, the nearest first")
]


@router.get(
    "/graph",
    response_model=GraphPage,
    summary="A page of the lineage graph: nodes, the edges among them, and symlinks",
)
async def get_graph(
    read: ReaderDep,
    namespace: Annotated[str | None, Query(description="Only this namespace")] = None,
    limit: Annotated[
        int,
        Query(
            ge=0,
            le=10_000,
            description=f"Nodes per page, 1 to {MAX_GRAPH_PAGE}. 0 (Feast's 'no limit') and "
            f"values up to 10,000 (Feast's most) are served as {MAX_GRAPH_PAGE}, and the answer "
            "says so under clamped",
        ),
    ] = 500,
    offset: Offset = 0,
    as_of: AsOf = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    at = _history(as_of, since, until)
    if at is not None:
        return await answer(
            graph_page_at, read, namespace=namespace, limit=limit, offset=offset, at=at
        )
    return await answer(graph_page, read, namespace=namespace, limit=limit, offset=offset)


async def _subgraph(
    read: StoreReader,
    node_kind: Literal["job", "dataset"],
    namespace: str,
    name: str,
    depth: int,
    direction: Direction,
    limit: int,
    at: History | None,
) -> Response:
    if not namespace or not name:
        raise LineageError("the namespace and the name must not be empty", code="invalid_parameter")
    if at is not None:
        return await answer(
            subgraph_at,
            read,
            kind=node_kind,
            namespace=namespace,
            name=name,
            depth=depth,
            direction=direction,
            limit=limit,
            at=at,
        )
    return await answer(
        subgraph,
        read,
        kind=node_kind,
        namespace=namespace,
        name=name,
        depth=depth,
        direction=direction,
        limit=limit,
    )


@router.get(
    "/graph/node",
    response_model=Subgraph,
    responses=_NOT_FOUND,
    summary="The subgraph around one node, named by query parameters",
)
async def get_subgraph_by_query(
    read: ReaderDep,
    type: Annotated[
        str, Query(description="job or dataset", json_schema_extra=enum_schema([*NODE_TYPES]))
    ],
    namespace: Annotated[str, Query(min_length=1, description="The node's OpenLineage namespace")],
    name: Annotated[str, Query(min_length=1, description="The node's name")],
    depth: Depth = 3,
    direction: DirectionParam = "both",
    limit: SubgraphLimit = 2000,
    as_of: AsOf = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    kind = node_type_param(parameter("query", "type"), type)
    at = _history(as_of, since, until)
    return await _subgraph(read, kind, namespace, name, depth, direction, limit, at)


def _segments(request: Request, decoded: str) -> tuple[str, str, str]:
    parts = encoded_segments(request, _MARK, decoded)
    if len(parts) != 3:
        raise LineageError(
            "expected /graph/{node_type}/{namespace}/{name} with the namespace and the name "
            "percent-encoded as one path segment each (a '/' as %2F), e.g. "
            "/graph/dataset/s3%3A%2F%2Fbucket/path%2Fto%2Ftable; or use "
            "/graph/node?type=dataset&namespace=...&name=...",
            code="invalid_parameter",
        )
    kind, namespace, name = decode_segments(parts)
    return kind, namespace, name


@router.get(
    name_path("/graph/{node_type}/{namespace}/{name}"),
    response_model=Subgraph,
    responses=_NOT_FOUND,
    summary="The subgraph around one node",
    description="The namespace and the name are each one percent-encoded path segment "
    "(postgres://db:5432 as postgres%3A%2F%2Fdb%3A5432, a/b as a%2Fb).",
)
async def get_subgraph(
    request: Request,
    read: ReaderDep,
    node_type: Annotated[
        str, Path(description="job or dataset", json_schema_extra=enum_schema([*NODE_TYPES]))
    ],
    namespace: Annotated[str, Path(description="The namespace, percent-encoded")],
    name: Annotated[str, Path(description="The name, percent-encoded")],
    depth: Depth = 3,
    direction: DirectionParam = "both",
    limit: SubgraphLimit = 2000,
    as_of: AsOf = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    at = _history(as_of, since, until)
    # The decoded path parameters split at every "/", encoded or not: the
    # segments come from the raw path.
    kind, ns, node_name = _segments(request, f"{node_type}/{namespace}/{name}")
    node_kind = node_type_param(
        parameter("path", "node_type"), kind, "; use /graph/job/... or /graph/dataset/..."
    )
    return await _subgraph(read, node_kind, ns, node_name, depth, direction, limit, at)
