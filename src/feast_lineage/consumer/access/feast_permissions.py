"""The ``feast`` authorizer: read access follows Feast's own permissions.

The spec's RBAC for lineage: a caller sees the namespaces of the Feast
projects it may ``DESCRIBE``, and the external namespaces that
``namespace_mapping`` maps to them (:func:`.scope.project_namespaces`).
Everything comes from Feast itself:

* the ``auth`` section of feature_store.yaml says how callers prove who they
  are (``oidc`` or ``kubernetes``), and Feast's own token parser for it turns
  the request's ``Authorization: Bearer <token>`` into a Feast user with
  roles (and, on Kubernetes, groups and namespaces);
* the registry's projects and their ``Permission`` objects decide, through
  Feast's own policy enforcement, which projects that user may ``DESCRIBE``.

A token's scope is remembered for ``cache_seconds`` (never past the token's
own expiry), keyed by a digest of the token, so a page of the web UI that
sends ten requests asks the identity provider and the registry once. The
``anonymous_projects`` are what a caller without any credential sees, and
are added to every token's projects (as the ``api_keys`` authorizer does). The
consumer's admin ``api_key`` still sees everything, and is the only key
that writes: a valid token sent to ingest, prune or reset is a 403
``feast_token_cannot_write`` (:meth:`FeastPermissionsAuthorizer.write_refusal`).
An invalid token is a 401 (``invalid_token``), and so is a key that is not
the ``api_key`` (``invalid_api_key``, as under ``api_keys``; never taken for
no credential) and a missing credential when no project is anonymous
(``unauthorized``); a registry that cannot be read is a 503; an identity
provider that cannot be reached is a 503 too. Nothing here ever widens a
scope on failure.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import HTTPConnection

from feast_lineage.consumer.access.keys import CHALLENGE, bearer_token, presented_key
from feast_lineage.consumer.access.scope import Scope, project_namespaces
from feast_lineage.consumer.errors import Forbidden, LineageError, Unauthorized
from feast_lineage.registry.permissions import permitted_projects, token_parser
from feast_lineage.registry.source import RegistryUnavailable

log = logging.getLogger(__name__)

_MAX_CACHED = 10_000


class IdentityUnavailable(LineageError):
    status = 503
    code = "identity_provider_unavailable"


class FeastPermissionsAuthorizer:
    """Projects the caller may DESCRIBE in Feast, and their namespaces."""

    blocking = True  # asks the identity provider and the registry

    def __init__(
        self,
        *,
        repo_config: Callable[[], Any],
        registry: Callable[[], Any],
        project: str | None,
        namespace_mapping: Mapping[str, str],
        producer_namespace: str,
        admin_key: str | None,
        cache_seconds: float,
        anonymous: Scope | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._repo_config = repo_config
        self._registry = registry
        self._project = project
        self._mapping = dict(namespace_mapping)
        self._producer_namespace = producer_namespace
        self._admin = admin_key.encode() if admin_key else None
        self._cache_seconds = cache_seconds
        self._anonymous = anonymous
        self._clock = clock
        self._lock = threading.Lock()
        self._parser: Any = None
        self._scopes: OrderedDict[bytes, tuple[float, Scope]] = OrderedDict()

    def scope(self, request: HTTPConnection) -> Scope:
        """The admin key's everything; else the token's projects and the anonymous ones.

        Only a caller that sends no credential at all is anonymous: a token
        that is not valid, or a key that is not the ``api_key`` (even beside a
        valid token: a wrong credential is never passed over), is a 401.
        """
        key = presented_key(request)
        admin = self._admin
        if admin is not None and key is not None and hmac.compare_digest(key.encode(), admin):
            return Scope.everything()
        if request.headers.get("x-api-key"):  # not the api_key, beside a token or not
            raise Unauthorized(self._wrong_key_message(), code="invalid_api_key", headers=CHALLENGE)
        if key is None and self._anonymous is not None:
            return self._anonymous
        token = bearer_token(request)
        if token is None:
            raise Unauthorized(
                "a Feast access token is required: send it as Authorization: Bearer <token>, "
                "the token your Feast clients use",
                headers=CHALLENGE,
            )
        return self._token_scope(token).union(self._anonymous)

    def _wrong_key_message(self) -> str:
        """What a key that is not the ``api_key`` is told: what reads take instead (the
        same for every such key, so it tells nothing of the ``api_key``)."""
        message = (
            "the API key (X-API-Key) is not valid; reads take a Feast access token, sent as "
            "Authorization: Bearer <token> (the token your Feast clients use)"
        )
        if self._anonymous is not None:
            message += ", or no credential at all, for the anonymous projects only"
        return message

    def _token_scope(self, token: str) -> Scope:
        """The namespaces of the projects ``token``'s user may DESCRIBE (remembered a while)."""
        digest = hashlib.sha256(token.encode()).digest()
        now = self._clock()
        cached = self._cached(digest, now)
        if cached is not None:
            return cached
        user = self._user(token)
        try:
            projects = permitted_projects(self._registry(), user, self._project)
        except (LineageError, RegistryUnavailable):
            raise
        except Exception as err:
            log.exception("reading Feast permissions from the registry failed")
            raise RegistryUnavailable(
                f"Feast permissions could not be read ({type(err).__name__}), so nothing is "
                "shown; check the registry and the server log"
            ) from None
        scope = Scope.of(project_namespaces(projects, self._mapping, self._producer_namespace))
        expires = now + self._cache_seconds
        claimed = _expiry(token)
        if claimed is not None:
            expires = min(expires, claimed)
        if expires > now:
            with self._lock:
                self._scopes[digest] = (expires, scope)
                self._scopes.move_to_end(digest)
                while len(self._scopes) > _MAX_CACHED:
                    self._scopes.popitem(last=False)
        return scope

    def write_refusal(self, key: str) -> Forbidden | None:
        """The 403 of a valid Feast access token sent to a write endpoint
        (:data:`.keys.WriteRefusal`): it may read, writing takes the ``api_key``.

        A token that is not valid, or that the identity provider cannot check
        now, is no credential: ``None`` (the caller's 401). It blocks, as
        :meth:`scope` does.
        """
        digest = hashlib.sha256(key.encode()).digest()
        if self._cached(digest, self._clock()) is None:
            try:
                self._user(key)
            except LineageError:  # not valid (401), or no identity provider to ask (503)
                return None
        return Forbidden(
            "a Feast access token grants reads only; writing (ingest, prune, reset) needs the "
            "consumer's api_key (openlineage.consumer.api_key), sent as X-API-Key",
            code="feast_token_cannot_write",
        )

    def _cached(self, digest: bytes, now: float) -> Scope | None:
        """The scope remembered for a token's digest, while it holds."""
        with self._lock:
            cached = self._scopes.get(digest)
        return cached[1] if cached is not None and cached[0] > now else None

    def _user(self, token: str) -> Any:
        from starlette.authentication import AuthenticationError

        parser = self._token_parser()
        try:
            return asyncio.run(parser.user_details_from_access_token(token))
        except AuthenticationError:
            raise Unauthorized(
                "the access token is not valid (expired, or not signed by the identity "
                "provider of feature_store.yaml's auth section)",
                code="invalid_token",
                headers=CHALLENGE,
            ) from None
        except Exception as err:
            log.warning("the identity provider could not check a token: %s", type(err).__name__)
            raise IdentityUnavailable(
                "the identity provider could not be asked about the access token; retry later"
            ) from None

    def _token_parser(self) -> Any:
        with self._lock:
            if self._parser is None:
                self._parser = token_parser(self._repo_config().auth_config)
            return self._parser


def _expiry(token: str) -> float | None:
    """The ``exp`` claim of a JWT the parser has verified (None when it has none)."""
    import jwt

    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return None
    exp = claims.get("exp")
    return float(exp) if isinstance(exp, int | float) else None
