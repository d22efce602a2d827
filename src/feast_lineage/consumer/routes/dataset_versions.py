"""Dataset versions: ``/datasets/{namespace}/{name}/versions`` (Feast 0.67's path) and ``.../{id}``.

The path and the page are read by :mod:`.version_pages`, as for job versions.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from feast_lineage.consumer.deps import ReaderDep
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.routes.name_path import name_path
from feast_lineage.consumer.routes.version_pages import (
    VersionWindowDep,
    id_pattern,
    version_path,
    versions_path,
)
from feast_lineage.consumer.schemas import DatasetVersionDetail, DatasetVersionPage
from feast_lineage.consumer.services.dataset_versions import (
    dataset_version_detail,
    dataset_version_page,
)

router = APIRouter(tags=["dataset versions"], responses=READ_ERRORS)
_ENCODED = (
    "The namespace and the name are each one percent-encoded path segment "
    "(postgres://db:5432 as postgres%3A%2F%2Fdb%3A5432, a/b as a%2Fb)."
)
Namespace = Annotated[str, Path(description="The dataset's namespace, percent-encoded")]
Name = Annotated[str, Path(description="The dataset's name, percent-encoded")]


@router.get(
    name_path("/datasets/{namespace}/{name}/versions"),
    response_model=DatasetVersionPage,
    responses=error_responses(404, _404="No such dataset (or it is not visible)"),
    summary="A dataset's versions, newest first",
    description=_ENCODED + " A version is made by a COMPLETE run writing the dataset, or by "
    "an event changing its schema, datasetVersion or symlinks or stating a lifecycle change.",
)
async def get_dataset_versions(
    request: Request, read: ReaderDep, namespace: Namespace, name: Name, window: VersionWindowDep
) -> Response:
    where = versions_path(request, "dataset", f"{namespace}/{name}/versions")
    return await answer(
        dataset_version_page, read, namespace=where.namespace, name=where.name, window=window
    )


@router.get(
    name_path("/datasets/{namespace}/{name}/versions/{version_id}"),
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
    version_id: Annotated[
        str,
        Path(
            description="The version's id (16 hex digits)",
            json_schema_extra={"pattern": id_pattern("dataset")},
        ),
    ],
) -> Response:
    where, key = version_path(request, "dataset", f"{namespace}/{name}/versions/{version_id}")
    return await answer(
        dataset_version_detail, read, namespace=where.namespace, name=where.name, version_id=key
    )
