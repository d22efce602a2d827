"""Settings of the read-side authorizer (``openlineage.consumer.authorizer``).

One model per authorizer ``type`` (see :mod:`feast_lineage.consumer.access.authorizers`
for what each does); the ``type`` key picks the model. A new authorizer adds
a model here and its member to :data:`AuthorizerSettings`.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_core import PydanticCustomError

from feast_lineage.config.errors import FIX_CTX

ALL_PROJECTS = "*"

# The ``anonymous_projects`` of the authorizers that take them (``api_keys``, ``feast``)
ANONYMOUS_PROJECTS = (
    "Projects a caller without a key or token may see (default: none, a credential is required)"
)


class OpenAuthorizerSettings(BaseModel):
    """``type: open``: every caller sees every namespace (the spec without RBAC)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["open"] = "open"


class ApiKeyGrant(BaseModel):
    """A read API key and the Feast projects its holder may see (``"*"``: all)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: SecretStr
    projects: list[str] = Field(min_length=1)

    @field_validator("key")
    @classmethod
    def _key_not_empty(cls, value: SecretStr) -> SecretStr:
        stripped = value.get_secret_value().strip()
        if not stripped:
            raise ValueError("is empty")
        return SecretStr(stripped)

    @field_validator("projects")
    @classmethod
    def _projects_not_empty(cls, value: list[str]) -> list[str]:
        if any(not p.strip() for p in value):
            raise ValueError("a project name is empty")
        return [p.strip() for p in value]


class ApiKeysAuthorizerSettings(BaseModel):
    """``type: api_keys``: read API keys, each granting some Feast projects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["api_keys"]
    keys: list[ApiKeyGrant] = Field(default_factory=list)
    anonymous_projects: list[str] = Field(default_factory=list, description=ANONYMOUS_PROJECTS)

    @field_validator("keys")
    @classmethod
    def _each_key_once(cls, value: list[ApiKeyGrant]) -> list[ApiKeyGrant]:
        # The first entry of a key would win and the others' projects be ignored.
        for later, grant in enumerate(value):
            earlier = same_key(grant.key, value[:later])
            if earlier is not None:
                raise PydanticCustomError(
                    "same_key",
                    "keys[{later}] has the same key as keys[{earlier}]",
                    {
                        "later": later,
                        "earlier": earlier,
                        FIX_CTX: "give each key one entry, with all its projects under it",
                    },
                )
        return value


def same_key(key: SecretStr, grants: list[ApiKeyGrant]) -> int | None:
    """The index of the first of ``grants`` whose key is ``key`` (compared in constant time)."""
    given = key.get_secret_value().encode()
    for index, grant in enumerate(grants):
        if hmac.compare_digest(given, grant.key.get_secret_value().encode()):
            return index
    return None


class FeastAuthorizerSettings(BaseModel):
    """``type: feast``: Feast's own auth and permissions decide (the spec's RBAC).

    The default when feature_store.yaml's ``auth`` section is ``oidc`` or
    ``kubernetes`` and no authorizer is configured.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["feast"]
    cache_seconds: float = Field(
        default=60,
        ge=0,
        le=3600,
        description="How long a token's permitted projects are remembered (0: ask every time)",
    )
    anonymous_projects: list[str] = Field(default_factory=list, description=ANONYMOUS_PROJECTS)


# Feast auth types (feature_store.yaml ``auth.type``) that name an identity provider.
FEAST_AUTH_TYPES = frozenset({"oidc", "kubernetes"})

AuthorizerSettings = Annotated[
    OpenAuthorizerSettings | ApiKeysAuthorizerSettings | FeastAuthorizerSettings,
    Field(discriminator="type"),
]

# Whether a read takes a key: "none" (every caller sees everything), "required"
# (a caller without one gets 401), "optional" (some projects are visible without
# one, and a key may show more). The web UI offers its key field on the last two.
ReadKey = Literal["none", "required", "optional"]


def read_key(
    config: OpenAuthorizerSettings | ApiKeysAuthorizerSettings | FeastAuthorizerSettings,
) -> ReadKey:
    """Whether reads under ``config`` take a key (an API key or a Feast access token)."""
    if isinstance(config, OpenAuthorizerSettings):
        return "none"
    return "optional" if config.anonymous_projects else "required"
