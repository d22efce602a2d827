"""FastAPI dependencies, as ``Annotated`` aliases so handlers read plainly.

Dependencies that do no I/O are ``async def``: FastAPI runs a plain ``def``
dependency in a worker thread, a thread hop per request for nothing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.auth import check_api_key
from feast_lineage.consumer.authz import Scope, request_scope
from feast_lineage.consumer.errors import ServiceUnavailable
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.state import ConsumerState


async def get_state(request: Request) -> ConsumerState:
    state = getattr(request.app.state, "consumer", None)
    if state is None:
        raise ServiceUnavailable("the lineage consumer is starting; retry in a moment")
    return state  # type: ignore[no-any-return]


StateDep = Annotated[ConsumerState, Depends(get_state)]


async def require_api_key(request: Request, state: StateDep) -> None:
    check_api_key(request, state.settings.consumer.api_key_value())


ApiKeyDep = Annotated[None, Depends(require_api_key)]


async def get_settings(request: Request) -> AppSettings:
    """The app's settings (set by create_app, with or without the consumer)."""
    return request.app.state.settings  # type: ignore[no-any-return]


SettingsDep = Annotated[AppSettings, Depends(get_settings)]


async def get_scope(request: Request) -> Scope:
    """The namespaces the caller may see, from the app's authorizer.

    The consumer's state holds it; a server without the consumer (the UI
    showing only registry lineage) keeps it in ``app.state.authorizer``.
    An authorizer that may block runs in a worker thread; one that says it
    never blocks (``blocking = False``) runs right here.
    """
    state = getattr(request.app.state, "consumer", None)
    authorizer = (
        state.authorizer if state is not None else getattr(request.app.state, "authorizer", None)
    )
    if authorizer is None:
        raise ServiceUnavailable("the lineage server is starting; retry in a moment")
    if getattr(authorizer, "blocking", True):
        return await run_in_threadpool(request_scope, authorizer, request)
    return request_scope(authorizer, request)


ScopeDep = Annotated[Scope, Depends(get_scope)]
