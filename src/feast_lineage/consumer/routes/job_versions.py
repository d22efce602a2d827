"""Job versions: ``/jobs/{namespace}/{name}/versions`` and ``.../versions/{id}``.

The namespace and the name are each one percent-encoded path segment
(``airflow%3A%2F%2Fprod``, ``dag%2Ftask``), as for the dataset paths:
servers decode ``%2F`` before routing, so they come from the raw path.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    decode_segments,
    encoded_segments,
    invalid,
    time_range,
)
from feast_lineage.consumer.schemas import JobVersionDetail, JobVersionPage
from feast_lineage.consumer.services.job_versions import job_version_detail, job_version_page

router = APIRouter(tags=["versions"], responses=READ_ERRORS)
_MARK = "/openlineage/jobs/"
_VERSION_ID = re.compile(r"[0-9a-f]{32}")
_PATHS = (
    "/jobs/{namespace}/{name}/versions[/{id}] with the namespace and the name percent-encoded "
    "as one path segment each (a '/' as %2F), e.g. /jobs/airflow%3A%2F%2Fprod/dag%2Ftask/versions"
)

Namespace = Annotated[str, Path(description="The job's namespace, percent-encoded")]
Name = Annotated[str, Path(description="The job's name, percent-encoded")]


def _job(request: Request, decoded: str, *, with_id: bool) -> list[str]:
    parts = encoded_segments(request, _MARK, decoded)
    size = 4 if with_id else 3
    if len(parts) != size or parts[2] != "versions":
        raise LineageError(f"expected {_PATHS}", code="invalid_parameter")
    values = decode_segments(parts[:2]) + parts[3:]
    if not values[0] or not values[1]:
        raise invalid("the namespace and the name must not be empty")
    return values


@router.get(
    "/jobs/{namespace}/{name:path}/versions",
    response_model=JobVersionPage,
    responses=error_responses(404, _404="No such job (or it is not visible)"),
    summary="A job's versions (what defined it: inputs, outputs, source facets), newest first",
)
async def get_job_versions(
    request: Request,
    read: ReaderDep,
    namespace: Namespace,
    name: Name,
    since: Annotated[
        str | None,
        Query(
            description="Versions first run at or after this time (not after until)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            description="Versions first run before this time (not before since)",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    ns, job_name = _job(request, f"{namespace}/{name}/versions", with_id=False)
    since_us, until_us = time_range(since, until)
    return await answer(
        job_version_page,
        read,
        namespace=ns,
        name=job_name,
        since_us=since_us,
        until_us=until_us,
        limit=limit,
        offset=offset,
    )


@router.get(
    "/jobs/{namespace}/{name:path}/versions/{version_id}",
    response_model=JobVersionDetail,
    responses=error_responses(
        404,
        _404="No such job or version (or not visible); a version retention pruned "
        "is named with the retention horizon",
    ),
    summary="One version of a job, with what changed from the version before it",
)
async def get_job_version(
    request: Request,
    read: ReaderDep,
    namespace: Namespace,
    name: Name,
    version_id: Annotated[
        str, Path(description="The version's id (32 hex digits)", pattern="^[0-9a-f]{32}$")
    ],
) -> Response:
    ns, job_name, vid = _job(request, f"{namespace}/{name}/versions/{version_id}", with_id=True)
    if not _VERSION_ID.fullmatch(vid):
        raise invalid(f"path parameter 'version_id': {vid!r} is not a version id (32 hex digits)")
    return await answer(job_version_detail, read, namespace=ns, name=job_name, version=vid)
