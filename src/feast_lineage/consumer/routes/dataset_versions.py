"""Dataset versions: ``/datasets/{namespace}/{name}/versions`` (Feast 0.67's path) and ``.../{id}``.

The namespace and the name are single percent-encoded segments
(``s3%3A%2F%2Fbucket``), as for column lineage: servers decode ``%2F``
before routing, so they come from the raw path.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from feast_lineage.consumer.deps import Offset, ReaderDep
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    decode_segments,
    encoded_segments,
    time_range,
)
from feast_lineage.consumer.schemas import DatasetVersionDetail, DatasetVersionPage
from feast_lineage.consumer.services.dataset_versions import (
    dataset_version_detail,
    dataset_version_page,
)

router = APIRouter(tags=["dataset versions"], responses=READ_ERRORS)
_MARK = "/openlineage/datasets/"
_ENCODED = (
    "The namespace and the name are each one percent-encoded path segment "
    "(postgres://db:5432 as postgres%3A%2F%2Fdb%3A5432, a/b as a%2Fb)."
)
Namespace = Annotated[str, Path(description="The dataset's namespace, percent-encoded")]
Name = Annotated[str, Path(description="The dataset's name, percent-encoded")]


def _segments(request: Request, decoded: str, detail: bool) -> list[str]:
    parts = encoded_segments(request, _MARK, decoded)
    if len(parts) != (4 if detail else 3) or parts[2] != "versions" or not all(parts):
        shape = "/versions/{id}" if detail else "/versions"
        raise LineageError(
            f"expected /datasets/{{namespace}}/{{name}}{shape} with the namespace and the name "
            "percent-encoded as one path segment each (a '/' as %2F), e.g. "
            f"/datasets/s3%3A%2F%2Fbucket/path%2Fto%2Ftable{shape}",
            code="invalid_parameter",
        )
    return decode_segments(parts)


@router.get(
    "/datasets/{namespace}/{name:path}/versions",
    response_model=DatasetVersionPage,
    responses=error_responses(404, _404="No such dataset (or it is not visible)"),
    summary="A dataset's versions, newest first",
    description=_ENCODED + " A version is made by a COMPLETE run writing the dataset, or by "
    "an event changing its schema, datasetVersion or symlinks or stating a lifecycle change.",
)
async def get_dataset_versions(
    request: Request,
    read: ReaderDep,
    namespace: Namespace,
    name: Name,
    since: Annotated[
        str | None,
        Query(description="Versions made at or after this time", json_schema_extra=DATE_TIME),
    ] = None,
    until: Annotated[
        str | None,
        Query(description="Versions made before this time", json_schema_extra=DATE_TIME),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Offset = 0,
) -> Response:
    ns, dataset_name, _ = _segments(request, f"{namespace}/{name}", detail=False)
    since_us, until_us = time_range(since, until)
    return await answer(
        dataset_version_page,
        read,
        namespace=ns,
        name=dataset_name,
        since_us=since_us,
        until_us=until_us,
        limit=limit,
        offset=offset,
    )


@router.get(
    "/datasets/{namespace}/{name:path}/versions/{version_id}",
    response_model=DatasetVersionDetail,
    responses=error_responses(
        404, _404="No such dataset or version (or it is not visible, or it was pruned)"
    ),
    summary="One version of a dataset, with its schema diff against the version before it",
    description=_ENCODED,
)
async def get_dataset_version(
    request: Request,
    read: ReaderDep,
    namespace: Namespace,
    name: Name,
    version_id: Annotated[str, Path(description="The version's id")],
) -> Response:
    ns, dataset_name, _, key = _segments(request, f"{namespace}/{name}/{version_id}", detail=True)
    return await answer(
        dataset_version_detail, read, namespace=ns, name=dataset_name, version_id=key
    )
