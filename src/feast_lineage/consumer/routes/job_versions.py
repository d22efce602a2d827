"""Job versions: ``/jobs/{namespace}/{name}/versions`` and ``.../versions/{id}``.

The path and the page are read by :mod:`.version_pages`, as for dataset versions;
one version takes ``until`` too: as it stood then, as the list ``until`` lists it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from feast_lineage.consumer.deps import ReaderDep
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.name_path import name_path
from feast_lineage.consumer.routes.params import DATE_TIME, time_range
from feast_lineage.consumer.routes.version_pages import (
    VersionWindowDep,
    id_pattern,
    version_path,
    versions_path,
)
from feast_lineage.consumer.schemas import JobVersionDetail, JobVersionPage
from feast_lineage.consumer.services.job_versions import job_version_detail, job_version_page

router = APIRouter(tags=["versions"], responses=READ_ERRORS)

Namespace = Annotated[str, Path(description="The job's namespace, percent-encoded")]
Name = Annotated[str, Path(description="The job's name, percent-encoded")]


@router.get(
    name_path("/jobs/{namespace}/{name}/versions"),
    response_model=JobVersionPage,
    responses=error_responses(404, _404="No such job (or it is not visible)"),
    summary="A job's versions (what defined it: inputs, outputs, source facets), newest first",
)
async def get_job_versions(
    request: Request, read: ReaderDep, namespace: Namespace, name: Name, window: VersionWindowDep
) -> Response:
    where = versions_path(request, "job", f"{namespace}/{name}/versions")
    return await answer(
        job_version_page, read, namespace=where.namespace, name=where.name, window=window
    )


@router.get(
    name_path("/jobs/{namespace}/{name}/versions/{version_id}"),
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
        str,
        Path(
            description="The version's id (32 hex digits)",
            json_schema_extra={"pattern": id_pattern("job")},
        ),
    ],
    until: Annotated[
        str | None,
        Query(
            description="The version as it stood before this time, as the list with this "
            "until answers it (run_count, latest_run, the version before it); a version "
            "no run started before it ran is a 404",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
) -> Response:
    where, key = version_path(request, "job", f"{namespace}/{name}/versions/{version_id}")
    _since, until_us = time_range(None, until)
    return await answer(
        job_version_detail,
        read,
        namespace=where.namespace,
        name=where.name,
        version=key,
        until_us=until_us,
    )
