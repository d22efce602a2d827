"""The catalog: ``/namespaces``, ``/jobs`` and ``/datasets`` under /api/v1/lineage/openlineage."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ScopeDep, StateDep
from feast_lineage.consumer.responses import model_in_thread
from feast_lineage.consumer.schemas import DatasetPage, ErrorResponse, JobPage, NamespaceList
from feast_lineage.consumer.services.catalog import dataset_page, job_page, namespace_list

router = APIRouter(
    tags=["catalog"],
    responses={
        400: {"model": ErrorResponse, "description": "A parameter is invalid"},
        401: {"model": ErrorResponse, "description": "A read API key is required"},
        403: {"model": ErrorResponse, "description": "Access refused"},
    },
)

Namespace = Annotated[str | None, Query(description="Only this namespace")]
Search = Annotated[
    str | None,
    Query(min_length=1, max_length=200, description="Names containing this (any case)"),
]
Limit = Annotated[int, Query(ge=1, le=1000)]


@router.get("/namespaces", response_model=NamespaceList, summary="Every namespace, by name")
async def get_namespaces(state: StateDep, scope: ScopeDep) -> Response:
    return await model_in_thread(namespace_list, state.engine, scope)


@router.get(
    "/jobs", response_model=JobPage, summary="Jobs of every producer, by namespace and name"
)
async def get_jobs(
    state: StateDep,
    scope: ScopeDep,
    namespace: Namespace = None,
    search: Search = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Response:
    return await model_in_thread(
        lambda: job_page(
            state.engine, scope, namespace=namespace, search=search, limit=limit, offset=offset
        )
    )


@router.get(
    "/datasets",
    response_model=DatasetPage,
    summary="Datasets of every producer, by namespace and name",
)
async def get_datasets(
    state: StateDep,
    scope: ScopeDep,
    namespace: Namespace = None,
    search: Search = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Response:
    return await model_in_thread(
        lambda: dataset_page(
            state.engine,
            scope,
            state.settings.consumer.namespace_mapping,
            namespace=namespace,
            search=search,
            limit=limit,
            offset=offset,
        )
    )
