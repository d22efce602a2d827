"""FastAPI dependencies, as ``Annotated`` aliases so handlers read plainly."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from feast_lineage.consumer.auth import check_api_key
from feast_lineage.consumer.authz import Scope, request_scope
from feast_lineage.consumer.errors import ServiceUnavailable
from feast_lineage.consumer.state import ConsumerState


def get_state(request: Request) -> ConsumerState:
    state = getattr(request.app.state, "consumer", None)
    if state is None:
        raise ServiceUnavailable("the lineage consumer is starting; retry in a moment")
    return state  # type: ignore[no-any-return]


StateDep = Annotated[ConsumerState, Depends(get_state)]


def require_api_key(request: Request, state: StateDep) -> None:
    check_api_key(request, state.settings.consumer.api_key_value())


ApiKeyDep = Annotated[None, Depends(require_api_key)]


def get_scope(request: Request, state: StateDep) -> Scope:
    """The namespaces the caller may see, from the app's authorizer."""
    return request_scope(state.authorizer, request)


ScopeDep = Annotated[Scope, Depends(get_scope)]
