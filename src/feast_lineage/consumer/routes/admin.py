"""Administration: retention (``/retention``, ``/retention/prune``) and ``/reset``.

Prune and reset need the consumer's API key (open when none is configured,
as the spec says, unless the authorizer restricts reads; the server warns at
startup). Retention statistics are a read: they count only what the caller
may see.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool

from feast_lineage.config.consumer import MAX_RETENTION_DAYS
from feast_lineage.consumer.deps import AdminKeyDep, ReaderDep, StateDep
from feast_lineage.consumer.responses import READ_ERRORS, answer, error_responses
from feast_lineage.consumer.schemas import PruneResult, ResetResult, RetentionInfo
from feast_lineage.consumer.services.admin import reset, retention_info

router = APIRouter(tags=["admin"], responses=error_responses(400))
_KEYED = error_responses(
    401,
    403,
    503,
    _403="A read key or a Feast access token, which may not write; or the authorizer restricts "
    "reads and no api_key is set",
)


@router.get(
    "/retention",
    response_model=RetentionInfo,
    responses=READ_ERRORS,
    summary="Retention settings and storage statistics",
)
async def get_retention(
    read: ReaderDep,
    state: StateDep,
    limit: Annotated[
        str | None,
        Query(
            description="Accepted, and ignored, as Feast's server does: the answer has no list "
            "to limit"
        ),
    ] = None,
) -> Response:
    del limit  # Feast clients send it; nothing here is a list.
    return await answer(retention_info, read, state.settings.consumer, state.retention)


@router.post(
    "/retention/prune",
    response_model=PruneResult,
    responses=_KEYED,
    summary="Prune events and runs older than retention_days now",
)
async def post_prune(
    state: StateDep,
    _auth: AdminKeyDep,
    days: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_RETENTION_DAYS,
            description=f"Use this many days (1 to {MAX_RETENTION_DAYS}) "
            "instead of consumer.retention_days",
        ),
    ] = None,
) -> PruneResult:
    retention_days = days if days is not None else state.settings.consumer.retention_days
    return await run_in_threadpool(state.retention.prune, state.engine, retention_days)


@router.delete(
    "/reset",
    response_model=ResetResult,
    responses={**_KEYED, **error_responses(404, _404="Nothing is stored in that namespace")},
    summary="Delete all lineage data, or one namespace and all that belongs only to it",
)
async def delete_reset(
    state: StateDep,
    _auth: AdminKeyDep,
    namespace: Annotated[str | None, Query(min_length=1, description="Only this namespace")] = None,
) -> ResetResult:
    return await run_in_threadpool(reset, state.engine, namespace)
