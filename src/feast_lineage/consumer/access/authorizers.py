"""The ``open`` and ``api_keys`` authorizers, building the configured one, and asking it.

The contract every authorizer keeps is in :mod:`feast_lineage.consumer.access`.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from typing import Protocol

from starlette.requests import HTTPConnection

from feast_lineage.config.authorizer import (
    ApiKeysAuthorizerSettings,
    FeastAuthorizerSettings,
    OpenAuthorizerSettings,
)
from feast_lineage.consumer.access.feast_permissions import FeastPermissionsAuthorizer
from feast_lineage.consumer.access.keys import CHALLENGE, presented_key
from feast_lineage.consumer.access.scope import Scope, projects_scope
from feast_lineage.consumer.errors import Forbidden, LineageError, Unauthorized
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.registry.source import RegistrySource, RegistryUnavailable

log = logging.getLogger(__name__)


class Authorizer(Protocol):
    def scope(self, request: HTTPConnection) -> Scope: ...


class OpenAuthorizer:
    """Everything is visible."""

    blocking = False

    def scope(self, request: HTTPConnection) -> Scope:
        return Scope.everything()


class ApiKeysAuthorizer:
    """Read API keys mapped to Feast projects.

    A key sees its own projects and the ``anonymous_projects`` (the union): a
    caller never sees less for sending a valid key.
    """

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
            return projects_scope(projects, namespace_mapping, producer_namespace)

        self._grants = [
            (grant.key.get_secret_value().encode(), resolve(grant.projects))
            for grant in settings.keys
        ]
        self._read_keys = [secret for secret, _ in self._grants]
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
                headers=CHALLENGE,
            )
        given = key.encode()
        found: Scope | None = None
        for secret, scope in self._grants:
            # Compare with every key, so the time taken does not tell which matched.
            if hmac.compare_digest(given, secret) and found is None:
                found = scope
        if found is None:
            raise Unauthorized(
                "the API key is not valid", code="invalid_api_key", headers=CHALLENGE
            )
        return found.union(self._anonymous)

    def write_refusal(self, key: str) -> Forbidden | None:
        """The 403 of a read key sent to a write endpoint (:data:`.keys.WriteRefusal`).

        ``key`` is compared with every read key, in constant time.
        """
        given = key.encode()
        found = False
        for secret in self._read_keys:
            found |= hmac.compare_digest(given, secret)
        if not found:
            return None
        return Forbidden(
            "this key may read; writing (ingest, prune, reset) needs the consumer's api_key "
            "(openlineage.consumer.api_key)",
            code="read_key_cannot_write",
        )


def build_authorizer(settings: AppSettings, source: RegistrySource | None = None) -> Authorizer:
    """The authorizer that ``openlineage.consumer.authorizer`` configures.

    ``source``: the repository's registry, which the ``feast`` authorizer asks.
    """
    config = settings.consumer.authorizer
    if isinstance(config, OpenAuthorizerSettings):
        return OpenAuthorizer()
    if isinstance(config, FeastAuthorizerSettings):
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
            anonymous=(
                projects_scope(
                    config.anonymous_projects,
                    settings.consumer.namespace_mapping,
                    settings.producer_namespace,
                )
                if config.anonymous_projects
                else None
            ),
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
    except (LineageError, RegistryUnavailable):
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
