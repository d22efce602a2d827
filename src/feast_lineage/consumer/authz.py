"""Read access: which namespaces a caller may see.

The contract
------------
An :class:`Authorizer` has one method, ``scope(request) -> Scope``, called
once per query request before anything is read. The :class:`Scope` it
returns is either *every namespace* (``Scope.everything()``) or a finite set
of OpenLineage namespaces (``Scope.of(...)``, possibly empty). Every query
endpoint shows only rows of those namespaces; an edge only when both of its
ends are visible.

To refuse a request, raise :class:`~feast_lineage.consumer.errors.Unauthorized`
(401) or :class:`~feast_lineage.consumer.errors.Forbidden` (403) with a
message for the caller. Any other exception is an authorizer failure: the
request gets a 500 with no data (see :func:`request_scope`), never
"everything". An authorizer must be thread-safe. It runs in a worker thread
and may block (a future Feast-permissions authorizer asks the registry),
unless it has the class attribute ``blocking = False``: then it promises to
only compute, and runs on the event loop, saving a thread hop per request.

Implementations, picked by ``openlineage.consumer.authorizer.type``:

* ``open`` (default): every caller sees everything, the spec's behaviour
  when Feast RBAC is off.
* ``api_keys``: read API keys each grant Feast projects. A project's
  namespaces are those of :func:`project_namespaces`: its own OpenLineage
  namespace (the project name, or ``{producer namespace}/{project}``) and the
  ``namespace_mapping`` keys whose value is the project. The consumer's admin
  ``api_key`` sees everything.

Adding one: write a class with ``scope``, a settings model in
:mod:`feast_lineage.config.authorizer`, and a branch in :func:`build_authorizer`.
The Feast-permissions authorizer (projects the caller may ``DESCRIBE``) is
meant to plug in there, reusing :func:`project_namespaces`.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from starlette.requests import HTTPConnection

from feast_lineage.config.authorizer import (
    ALL_PROJECTS,
    ApiKeysAuthorizerSettings,
    FeastAuthorizerSettings,
    OpenAuthorizerSettings,
)
from feast_lineage.consumer.auth import presented_key
from feast_lineage.consumer.errors import LineageError, Unauthorized
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.identity import namespace_id

if TYPE_CHECKING:
    from feast_lineage.consumer.services.registry_lineage import RegistrySource

log = logging.getLogger(__name__)

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="feast-lineage"'}


@dataclass(frozen=True)
class Scope:
    """The namespaces a caller may see: ``None`` means every namespace."""

    namespaces: frozenset[str] | None = field(default=None)

    @classmethod
    def everything(cls) -> Scope:
        return cls(None)

    @classmethod
    def of(cls, namespaces: Iterable[str]) -> Scope:
        return cls(frozenset(namespaces))

    @property
    def is_everything(self) -> bool:
        return self.namespaces is None

    @cached_property
    def ns_ids(self) -> frozenset[int] | None:
        """The namespace ids of a finite scope (``None`` for everything)."""
        if self.namespaces is None:
            return None
        return frozenset(namespace_id(ns) for ns in self.namespaces)

    def allows(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def allows_id(self, ns_id: int) -> bool:
        ids = self.ns_ids
        return ids is None or ns_id in ids

    def narrow(self, namespace: str | None) -> Scope:
        """This scope limited to ``namespace`` (empty when it is not visible)."""
        if namespace is None:
            return self
        return Scope.of([namespace] if self.allows(namespace) else [])

    def cache_key(self) -> tuple[str, ...] | None:
        return None if self.namespaces is None else tuple(sorted(self.namespaces))


class Authorizer(Protocol):
    def scope(self, request: HTTPConnection) -> Scope: ...


def project_namespaces(
    projects: Iterable[str], namespace_mapping: Mapping[str, str], producer_namespace: str
) -> frozenset[str]:
    """The OpenLineage namespaces that belong to ``projects``.

    A project's own namespace is its name (the producer's default namespace
    ``feast``) or ``{producer_namespace}/{project}``; every
    ``namespace_mapping`` key whose value is one of the projects is added.
    """
    wanted = set(projects)
    out: set[str] = set()
    for project in wanted:
        out.add(project)
        if producer_namespace != "feast":
            out.add(f"{producer_namespace}/{project}")
    out.update(ns for ns, project in namespace_mapping.items() if project in wanted)
    return frozenset(out)


class OpenAuthorizer:
    """Everything is visible."""

    blocking = False

    def scope(self, request: HTTPConnection) -> Scope:
        return Scope.everything()


class ApiKeysAuthorizer:
    """Read API keys mapped to Feast projects."""

    blocking = False

    def __init__(
        self,
        settings: ApiKeysAuthorizerSettings,
        *,
        namespace_mapping: Mapping[str, str],
        producer_namespace: str,
        admin_key: str | None,
    ) -> None:
        def resolve(projects: list[str]) -> Scope:
            if ALL_PROJECTS in projects:
                return Scope.everything()
            return Scope.of(project_namespaces(projects, namespace_mapping, producer_namespace))

        self._grants = [
            (grant.key.get_secret_value().encode(), resolve(grant.projects))
            for grant in settings.keys
        ]
        if admin_key is not None:
            self._grants.append((admin_key.encode(), Scope.everything()))
        self._anonymous = (
            resolve(settings.anonymous_projects) if settings.anonymous_projects else None
        )

    def scope(self, request: HTTPConnection) -> Scope:
        key = presented_key(request)
        if key is None:
            if self._anonymous is not None:
                return self._anonymous
            raise Unauthorized(
                "a read API key is required: send it as X-API-Key or Authorization: Bearer <key>",
                headers=_CHALLENGE,
            )
        given = key.encode()
        found: Scope | None = None
        for secret, scope in self._grants:
            # Compare with every key, so the time taken does not tell which matched.
            if hmac.compare_digest(given, secret) and found is None:
                found = scope
        if found is None:
            raise Unauthorized(
                "the API key is not valid", code="invalid_api_key", headers=_CHALLENGE
            )
        return found


def build_authorizer(settings: AppSettings, source: RegistrySource | None = None) -> Authorizer:
    """The authorizer that ``openlineage.consumer.authorizer`` configures.

    ``source``: the repository's registry, which the ``feast`` authorizer asks.
    """
    config = settings.consumer.authorizer
    if isinstance(config, OpenAuthorizerSettings):
        return OpenAuthorizer()
    if isinstance(config, FeastAuthorizerSettings):
        from feast_lineage.consumer.authz_feast import FeastPermissionsAuthorizer

        if source is None:
            raise ValueError("the feast authorizer needs the feature repository's registry")
        return FeastPermissionsAuthorizer(
            repo_config=source.repo_config,
            registry=source.registry,
            project=settings.project,
            namespace_mapping=settings.consumer.namespace_mapping,
            producer_namespace=settings.producer_namespace,
            admin_key=settings.consumer.api_key_value(),
            cache_seconds=config.cache_seconds,
        )
    if isinstance(config, ApiKeysAuthorizerSettings):
        return ApiKeysAuthorizer(
            config,
            namespace_mapping=settings.consumer.namespace_mapping,
            producer_namespace=settings.producer_namespace,
            admin_key=settings.consumer.api_key_value(),
        )
    raise TypeError(f"no authorizer for {type(config).__name__}")  # pragma: no cover


def request_scope(authorizer: Authorizer, request: HTTPConnection) -> Scope:
    """Ask ``authorizer``; a failure refuses the request, never widens it."""
    try:
        scope = authorizer.scope(request)
    except LineageError:
        raise
    except Exception:
        log.exception("the authorizer failed on %s", request.url.path)
        raise LineageError(
            "access could not be checked, so nothing is shown; see the server log",
            status=500,
            code="authorization_failed",
        ) from None
    if not isinstance(scope, Scope):
        log.error("the authorizer returned %r, not a Scope", type(scope).__name__)
        raise LineageError(
            "access could not be checked, so nothing is shown; see the server log",
            status=500,
            code="authorization_failed",
        )
    return scope
