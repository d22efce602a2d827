"""FastAPI dependencies, as ``Annotated`` aliases so handlers read plainly.

Dependencies that do no I/O are ``async def``: FastAPI runs a plain ``def``
dependency in a worker thread, a thread hop per request for nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Annotated, Any, get_args
from urllib.parse import unquote

from fastapi import Depends, Query, Request
from fastapi.concurrency import run_in_threadpool

from feast_lineage.consumer.access.authorizers import OpenAuthorizer, request_scope
from feast_lineage.consumer.access.keys import (
    CHALLENGE,
    WriteRefusal,
    check_admin_enabled,
    presented_key,
    refuse_wrong_key,
    wrong_api_key,
)
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import (
    Forbidden,
    LineageError,
    ServiceUnavailable,
    Unauthorized,
    parameter,
)
from feast_lineage.consumer.sent_path import sent_path
from feast_lineage.consumer.services.reader import RegistryReader, StoreReader
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.state import ConsumerState
from feast_lineage.registry.source import RegistrySource, RegistryUnavailable


async def get_state(request: Request) -> ConsumerState:
    state = getattr(request.app.state, "consumer", None)
    if state is None:
        raise ServiceUnavailable("the lineage consumer is starting; retry in a moment")
    return state  # type: ignore[no-any-return]


StateDep = Annotated[ConsumerState, Depends(get_state)]


async def require_api_key(request: Request, state: StateDep) -> None:
    """The consumer's ``api_key``, which ingest, prune and reset need.

    A wrong key is refused by the authorizer's ``write_refusal`` when it is
    one of its own read credentials (a ``403`` saying it may only read), which
    may block: it runs in a worker thread then, as a scope does. The right key
    never leaves the event loop.
    """
    wrong = wrong_api_key(request, state.settings.consumer.api_key_value())
    if wrong is None:
        return
    authorizer = state.authorizer
    refuse_write: WriteRefusal | None = getattr(authorizer, "write_refusal", None)
    if refuse_write is not None and getattr(authorizer, "blocking", True):
        await run_in_threadpool(refuse_wrong_key, wrong, refuse_write)
    else:
        refuse_wrong_key(wrong, refuse_write)


ApiKeyDep = Annotated[None, Depends(require_api_key)]


async def require_admin_key(request: Request, state: StateDep) -> None:
    """The admin key of prune and reset (see :func:`.access.keys.check_admin_enabled`)."""
    reads_open = isinstance(state.authorizer, OpenAuthorizer)
    check_admin_enabled(state.settings.consumer.api_key_value(), reads_open=reads_open)
    await require_api_key(request, state)


AdminKeyDep = Annotated[None, Depends(require_admin_key)]


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


async def get_scope_if_allowed(request: Request) -> Scope | None:
    """The caller's scope, or ``None`` when the authorizer refuses it (fails closed).

    For an answer every caller gets (the UI's settings), which shows only
    what the caller may see: a missing or invalid key, or an authorizer
    that fails, sees nothing rather than an error.
    """
    try:
        return await get_scope(request)
    except (LineageError, RegistryUnavailable):
        return None


OptionalScopeDep = Annotated[Scope | None, Depends(get_scope_if_allowed)]


async def require_whole_scope(request: Request, scope: ScopeDep) -> None:
    """Refuse a caller who may not see every namespace (store-wide figures).

    Without a key or token that is ``401`` (anonymous callers, under
    ``anonymous_projects``, see only some namespaces: a credential is what
    they lack); with one of a narrower scope it is ``403``.
    """
    if scope.is_everything:
        return
    if presented_key(request) is None:
        raise Unauthorized(
            "these figures count every namespace: send a key or token that may see every "
            "namespace (the consumer's api_key, or a read key granted '*') as X-API-Key or "
            "Authorization: Bearer <key>",
            headers=CHALLENGE,
        )
    raise Forbidden(
        "these figures count the events of every namespace; they need a key or token "
        "that may see every namespace (the consumer's api_key, or a read key granted '*')"
    )


WholeScopeDep = Annotated[None, Depends(require_whole_scope)]


async def get_reader(state: StateDep, scope: ScopeDep) -> StoreReader:
    """What a read service needs, for this caller."""
    return StoreReader(
        engine=state.read_engine,
        scope=scope,
        namespace_mapping=state.settings.consumer.namespace_mapping,
        positions=state.positions,
        freshness=state.settings.consumer.freshness,
        clock=state.clock,
        health_cache=state.health_cache,
    )


ReaderDep = Annotated[StoreReader, Depends(get_reader)]


async def get_registry_reader(
    request: Request, settings: SettingsDep, scope: ScopeDep
) -> RegistryReader:
    """The app's registry (also in a server without the consumer), for this caller."""
    source = request.app.state.registry_source
    assert isinstance(source, RegistrySource)
    return RegistryReader(
        source=source, scope=scope, producer_namespace=settings.producer_namespace
    )


RegistryReaderDep = Annotated[RegistryReader, Depends(get_registry_reader)]


async def reject_unknown_query(request: Request) -> None:
    """A 400 for a query parameter the endpoint does not take, given twice, or holding a NUL.

    Otherwise a misspelt filter (``?namespace=`` where the endpoint takes
    ``job_namespace``) would be ignored, and the answer would look right
    while listing everything; a repeated one (``?namespace=a&namespace=b``)
    would silently mean its last value; and a NUL character, which no stored
    name holds (ingest refuses it), would cut a ``search`` short on SQLite
    and match everything. A NUL in a path parameter is refused the same way
    (:func:`_reject_path_nul`), before the handler looks anything up. A whole
    number with spaces around it (``?depth=+1``: an unencoded ``+`` is a
    space) is refused too, as an instant with spaces around it is, rather than
    read as the number.
    """
    _reject_path_nul(request)
    if not request.query_params:
        return
    fields = _query_fields(request.scope.get("route"))
    known = frozenset(field.alias for field in fields)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        takes = (
            f"it takes: {', '.join(sorted(known))} (check the spelling)"
            if known
            else "this endpoint takes no query parameters; remove it"
        )
        details = [
            {"path": parameter("query", name), "message": "unknown to this endpoint"}
            for name in unknown
        ]
        raise LineageError(
            f"{parameter('query', unknown[0])} is unknown to this endpoint; {takes}",
            code="unknown_parameter",
            details=details if len(details) > 1 else None,
        )
    items = request.query_params.multi_items()
    if len(items) > len(request.query_params):
        _reject_repeated(items)
    _reject_nul(items)
    _reject_spaced_integers(items, {field.alias for field in fields if _is_integer(field)})


_NUL_MESSAGE = "contains a NUL character (%00), which nothing stored can contain; remove it"
_PATH_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")


def _reject_repeated(items: list[tuple[str, str]]) -> None:
    counts = Counter(name for name, _ in items)
    repeated = sorted(name for name, n in counts.items() if n > 1)
    problems = [
        (parameter("query", name), f"is given {_times(counts[name])}; pass it once")
        for name in repeated
    ]
    _invalid(problems)


def _reject_nul(items: list[tuple[str, str]]) -> None:
    names = sorted({name for name, value in items if "\x00" in value})
    problems = [(parameter("query", name), _NUL_MESSAGE) for name in names]
    _invalid(problems)


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
# A '+' sent unencoded in a query string arrives as a space.
_PLUS = "; a '+' left unencoded in a URL is a space: leave it out or write it %2B"


def _reject_spaced_integers(items: list[tuple[str, str]], integers: set[str]) -> None:
    """A 400 for a whole number with spaces around it, naming the parameter and the number."""
    problems = [
        (parameter("query", name), _spaced(value))
        for name, value in items
        if name in integers and value != value.strip() and _WHOLE_NUMBER.fullmatch(value.strip())
    ]
    _invalid(problems, ": ")


def _spaced(value: str) -> str:
    number = value.strip()
    plus = _PLUS if value.startswith(" ") and number[0] not in "+-" else ""
    return f"{value!r} has spaces around it; pass a whole number such as {number}{plus}"


def _reject_path_nul(request: Request) -> None:
    """A 400 naming each path parameter that holds a NUL (``/graph/job/%00/x``), echoing none."""
    params = request.path_params
    if not any("\x00" in str(value) for value in params.values()):
        return
    _invalid([(parameter("path", name), _NUL_MESSAGE) for name in _nul_segments(request)])


def _nul_segments(request: Request) -> list[str]:
    """The path parameters holding a NUL, named by the segment of the path as sent.

    A namespace or name is one percent-encoded segment (``%2F`` stays in it),
    so the route's template and the raw path's last segments line up; when
    they do not (a ``/`` left unencoded), the decoded parameters name them.
    """
    template = str(getattr(request.scope.get("route"), "path", "")).strip("/").split("/")
    sent = sent_path(request.scope) or ""
    segments = sent.strip("/").split("/")[-len(template) :]
    named = []
    if len(segments) == len(template) and all(
        "{" in t or t == g for t, g in zip(template, segments, strict=True)
    ):
        named = [
            found.group(1)
            for t, g in zip(template, segments, strict=True)
            if (found := _PATH_PARAM.search(t)) and "\x00" in unquote(g)
        ]
    return named or [name for name, value in request.path_params.items() if "\x00" in str(value)]


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def _invalid(problems: list[tuple[str, str]], between: str = " ") -> None:
    if not problems:
        return
    details = [{"path": path, "message": message} for path, message in problems]
    path, message = problems[0]
    raise LineageError(
        f"{path}{between}{message}",
        code="invalid_parameter",
        details=details if len(details) > 1 else None,
    )


def _query_fields(route: Any) -> list[Any]:
    """Every query parameter a route's handler and its dependencies declare."""

    def walk(dependant: Any) -> list[Any]:
        fields = list(dependant.query_params)
        for sub in dependant.dependencies:
            fields += walk(sub)
        return fields

    dependant = getattr(route, "dependant", None)
    return walk(dependant) if dependant is not None else []


def _is_integer(field: Any) -> bool:
    """Whether a query parameter is a whole number (``int``, or ``int | None``)."""
    annotation = field.field_info.annotation
    return annotation is int or int in get_args(annotation)


KnownQueryOnly = Depends(reject_unknown_query)

# The largest ``offset`` of every paged endpoint. Far beyond any real page,
# small enough for every database's OFFSET and for JSON numbers (2**53 - 1).
MAX_OFFSET = 1_000_000_000
Offset = Annotated[
    int, Query(ge=0, le=MAX_OFFSET, description=f"Items to skip (0 to {MAX_OFFSET:,})")
]


async def ingest_state(request: Request) -> ConsumerState:
    """What the ingest handlers check first: state, API key, no query parameters.

    The same checks as :data:`StateDep`, :data:`ApiKeyDep` and
    :data:`KnownQueryOnly`, called by the handlers themselves rather than
    declared as dependencies: a single-event client sends one request per
    event, and FastAPI's dependency solving costs about 100 microseconds of
    CPU a request for these three, a tenth of the request's cost.
    """
    state = await get_state(request)
    await require_api_key(request, state)
    await reject_unknown_query(request)
    return state
