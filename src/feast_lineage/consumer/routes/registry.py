"""Registry lineage: ``/registry``, ``/registry/all``, ``/objects/...``, ``/complete``.

The Feast-only lineage, read from the Feast registry of the server's feature
repository (see :mod:`feast_lineage.consumer.services.registry_lineage`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.deps import ScopeDep, SettingsDep
from feast_lineage.consumer.schemas import ErrorResponse, RegistryLineage, RegistryObject
from feast_lineage.consumer.services.registry_lineage import (
    RegistrySource,
    registry_lineage,
    registry_lineage_all,
    registry_object,
)

router = APIRouter(
    tags=["registry lineage"],
    responses={
        400: {"model": ErrorResponse, "description": "A parameter is invalid"},
        401: {"model": ErrorResponse, "description": "A read API key is required"},
        403: {"model": ErrorResponse, "description": "The project is not visible to you"},
        404: {"model": ErrorResponse, "description": "No such object, or no repository"},
        503: {"model": ErrorResponse, "description": "The registry could not be read"},
    },
)


def get_source(request: Request, settings: SettingsDep) -> RegistrySource:
    """The app's registry source, created on the first registry request.

    It needs only the settings, so these endpoints also work in a server
    without the consumer (``feast-lineage ui`` with the consumer off).
    """
    source = getattr(request.app.state, "registry_source", None)
    if source is None or source.settings is not settings:
        source = RegistrySource(settings)
        request.app.state.registry_source = source
    assert isinstance(source, RegistrySource)
    return source


SourceDep = Annotated[RegistrySource, Depends(get_source)]
Project = Annotated[
    str | None, Query(description="The Feast project (default: the repository's project)")
]


@router.get("/registry", response_model=RegistryLineage, summary="Registry lineage of a project")
async def get_registry(
    source: SourceDep, scope: ScopeDep, project: Project = None
) -> RegistryLineage:
    return await run_in_threadpool(lambda: registry_lineage(source, scope, project, complete=False))


@router.get(
    "/registry/all", response_model=RegistryLineage, summary="Registry lineage of every project"
)
async def get_registry_all(source: SourceDep, scope: ScopeDep) -> RegistryLineage:
    return await run_in_threadpool(lambda: registry_lineage_all(source, scope, complete=False))


@router.get(
    "/objects/{object_type}/{object_name}",
    response_model=RegistryObject,
    summary="One registry object with its definition and direct lineage",
)
async def get_object(
    source: SourceDep, scope: ScopeDep, object_type: str, object_name: str, project: Project = None
) -> RegistryObject:
    return await run_in_threadpool(
        lambda: registry_object(source, scope, project, object_type, object_name)
    )


@router.get(
    "/complete",
    response_model=RegistryLineage,
    summary="Registry lineage of a project with every object's full definition",
)
async def get_complete(
    source: SourceDep, scope: ScopeDep, project: Project = None
) -> RegistryLineage:
    return await run_in_threadpool(lambda: registry_lineage(source, scope, project, complete=True))


@router.get(
    "/complete/all",
    response_model=RegistryLineage,
    summary="Registry lineage of every project with every object's full definition",
)
async def get_complete_all(source: SourceDep, scope: ScopeDep) -> RegistryLineage:
    return await run_in_threadpool(lambda: registry_lineage_all(source, scope, complete=True))
