"""Registry lineage: ``/registry``, ``/registry/all``, ``/objects/...``, ``/complete``.

The Feast-only lineage, read from the Feast registry of the server's feature
repository (see :mod:`feast_lineage.consumer.services.registry_lineage`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from feast_lineage.consumer.deps import RegistryReaderDep
from feast_lineage.consumer.responses import answer, error_responses
from feast_lineage.consumer.routes.params import enum_schema
from feast_lineage.consumer.schemas import RegistryLineage, RegistryObject
from feast_lineage.consumer.services.registry_lineage import (
    FEAST_TYPE_GROUPS,
    OBJECT_TYPES,
    registry_lineage,
    registry_lineage_all,
    registry_object,
)

router = APIRouter(
    tags=["registry lineage"],
    responses=error_responses(
        400,
        401,
        403,
        404,
        503,
        _403="The project is not visible to you",
        _404="No such object, or no repository",
        _503="The registry could not be read",
    ),
)

Project = Annotated[
    str | None, Query(description="The Feast project (default: the repository's project)")
]


@router.get("/registry", response_model=RegistryLineage, summary="Registry lineage of a project")
async def get_registry(read: RegistryReaderDep, project: Project = None) -> Response:
    return await answer(registry_lineage, read, project, complete=False)


@router.get(
    "/registry/all", response_model=RegistryLineage, summary="Registry lineage of every project"
)
async def get_registry_all(read: RegistryReaderDep) -> Response:
    return await answer(registry_lineage_all, read, complete=False)


@router.get(
    "/objects/{object_type}/{object_name}",
    response_model=RegistryObject,
    summary="One registry object with its definition and direct lineage",
)
async def get_object(
    read: RegistryReaderDep,
    object_type: Annotated[
        str,
        Path(
            description="Our object type (feature_view, ...) or Feast's (featureView, ...)",
            json_schema_extra=enum_schema([*OBJECT_TYPES, *FEAST_TYPE_GROUPS]),
        ),
    ],
    object_name: str,
    project: Project = None,
) -> Response:
    return await answer(registry_object, read, project, object_type, object_name)


@router.get(
    "/complete",
    response_model=RegistryLineage,
    summary="Registry lineage of a project with every object's full definition",
)
async def get_complete(read: RegistryReaderDep, project: Project = None) -> Response:
    return await answer(registry_lineage, read, project, complete=True)


@router.get(
    "/complete/all",
    response_model=RegistryLineage,
    summary="Registry lineage of every project with every object's full definition",
)
async def get_complete_all(read: RegistryReaderDep) -> Response:
    return await answer(registry_lineage_all, read, complete=True)
