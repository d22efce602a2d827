"""The catalog: ``/namespaces``, ``/jobs`` and ``/datasets`` under /api/v1/lineage/openlineage."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.responses import READ_ERRORS, answer
from feast_lineage.consumer.routes.params import DATE_TIME, parse_time, time_range
from feast_lineage.consumer.routes.sort_param import parse_sort, sort_schema
from feast_lineage.consumer.schemas import DatasetPage, JobPage, NamespaceList
from feast_lineage.consumer.services.catalog import (
    BY_NAMESPACE,
    dataset_page,
    job_page,
    namespace_list,
)
from feast_lineage.consumer.services.when import When, when
from feast_lineage.consumer.store.read.catalog_as_of import (
    DATASET_SORT_KEYS_AT,
    JOB_SORT_KEYS_AT,
)
from feast_lineage.consumer.store.read.sorting import DATASET_SORT_KEYS, JOB_SORT_KEYS

router = APIRouter(
    tags=["catalog"],
    responses=READ_ERRORS,
)

Namespace = Annotated[str | None, Query(description="Only this namespace")]
Search = Annotated[
    str | None,
    Query(max_length=200, description="Names containing this (any case; empty: no filter)"),
]
Limit = Annotated[int, Query(ge=1, le=1000)]


def _as_of(keys: tuple[str, ...]) -> object:
    return Query(
        description="The list as it stood at this instant (ISO 8601): the answer of a store "
        "holding only the events up to it (a future instant is now). Sorts by "
        + ", ".join(keys)
        + " as of then; producer and updated are null then, so they sort as the default. "
        "Not with since/until",
        json_schema_extra=DATE_TIME,
    )


_NO_WINDOW = "Not taken here (a 400): the catalog answers as of an instant (as_of)"
Since = Annotated[str | None, Query(description=_NO_WINDOW, json_schema_extra=DATE_TIME)]
Until = Annotated[str | None, Query(description=_NO_WINDOW, json_schema_extra=DATE_TIME)]


def _when(as_of: str | None, since: str | None, until: str | None) -> When:
    since_us, until_us = time_range(since, until)
    return when(parse_time("as_of", as_of), since_us, until_us, time.time_ns() // 1000)


@router.get("/namespaces", response_model=NamespaceList, summary="Every namespace, by name")
async def get_namespaces(read: ReaderDep) -> Response:
    return await answer(namespace_list, read)


@router.get(
    "/jobs",
    response_model=JobPage,
    summary="Jobs of every producer with their latest run, by namespace and name or sorted",
)
async def get_jobs(
    read: ReaderDep,
    namespace: Namespace = None,
    search: Search = None,
    sort: Annotated[
        str | None,
        Query(
            description="The order: a key, '-' before it for descending "
            "(default namespace, then name); ties go by namespace and name",
            json_schema_extra=sort_schema(JOB_SORT_KEYS),
        ),
    ] = None,
    limit: Limit = 100,
    offset: Offset = 0,
    as_of: Annotated[str | None, _as_of(JOB_SORT_KEYS_AT)] = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    order = parse_sort(sort, JOB_SORT_KEYS, BY_NAMESPACE)
    return await answer(
        job_page,
        read,
        namespace=namespace,
        search=search or None,
        limit=limit,
        offset=offset,
        sort=order,
        at=_when(as_of, since, until),
    )


@router.get(
    "/datasets",
    response_model=DatasetPage,
    summary="Datasets of every producer, by namespace and name or sorted",
)
async def get_datasets(
    read: ReaderDep,
    namespace: Namespace = None,
    search: Search = None,
    sort: Annotated[
        str | None,
        Query(
            description="The order: a key, '-' before it for descending "
            "(default namespace, then name); ties go by namespace and name",
            json_schema_extra=sort_schema(DATASET_SORT_KEYS),
        ),
    ] = None,
    limit: Limit = 100,
    offset: Offset = 0,
    as_of: Annotated[str | None, _as_of(DATASET_SORT_KEYS_AT)] = None,
    since: Since = None,
    until: Until = None,
) -> Response:
    order = parse_sort(sort, DATASET_SORT_KEYS, BY_NAMESPACE)
    return await answer(
        dataset_page,
        read,
        namespace=namespace,
        search=search or None,
        limit=limit,
        offset=offset,
        sort=order,
        at=_when(as_of, since, until),
    )
