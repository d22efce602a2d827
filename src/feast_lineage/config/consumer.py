"""Settings of the OpenLineage consumer (``openlineage.consumer``)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from feast_lineage.config.authorizer import (
    ApiKeysAuthorizerSettings,
    AuthorizerSettings,
    OpenAuthorizerSettings,
    same_key,
)
from feast_lineage.config.errors import FIX_CTX, OPTIONS_CTX
from feast_lineage.config.secrets import strip_secret

# Env names: FEAST_OPENLINEAGE_CONSUMER_<FIELD NAME IN UPPER CASE>.
ENV_PREFIX = "FEAST_OPENLINEAGE_CONSUMER_"
# The longest retention (100 years), in the config and in a prune's ``days``.
MAX_RETENTION_DAYS = 36_500


class ConsumerSettings(BaseModel):
    """The consumer's options. Every field is documented in docs/configuration.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = False
    store_type: Literal["sql"] = "sql"
    connection_string: SecretStr | None = None
    api_key: SecretStr | None = None
    namespace_mapping: dict[str, str] = Field(default_factory=dict)
    retention_days: int = Field(default=30, ge=0, le=MAX_RETENTION_DAYS)
    retention_check_interval_hours: float = Field(default=6, gt=0)
    standalone_server: bool = False
    max_request_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    max_batch_events: int = Field(default=10_000, ge=1)
    # Bytes of request bodies one worker holds at once; None: sized from the
    # container's memory limit (intake/memory.py), else 4 x max_request_bytes.
    body_budget_bytes: int | None = Field(default=None, ge=1024)
    # A body's next bytes must come within body_read_timeout_seconds, and at
    # an average of body_min_rate_bytes_per_second after that (0: no least rate).
    body_read_timeout_seconds: float = Field(default=60, gt=0)
    body_min_rate_bytes_per_second: int = Field(default=1024, ge=0)
    # A connection must send a request's headers within this many seconds.
    header_timeout_seconds: float = Field(default=30, gt=0)
    naive_event_time: Literal["utc", "refuse"] = "utc"
    # "namespace/name" glob -> the seconds a dataset may go unwritten before it
    # is stale (the first glob that matches, in order); docs/configuration.md.
    freshness: dict[str, float] = Field(default_factory=dict)
    authorizer: AuthorizerSettings = Field(default_factory=OpenAuthorizerSettings)

    _strip_secrets = field_validator("api_key", "connection_string")(strip_secret)

    @field_validator("namespace_mapping", mode="before")
    @classmethod
    def _no_mapping(cls, value: object) -> object:
        # ``namespace_mapping:`` left empty (null), which Feast's own section accepts.
        return {} if value is None else value

    @field_validator("freshness", mode="wrap")
    @classmethod
    def _positive_intervals(
        cls, value: object, to_floats: ValidatorFunctionWrapHandler
    ) -> dict[str, float]:
        # The problem only: the loader names the option and gives the fix, with its example.
        if value is None:  # ``freshness:`` left empty
            return {}
        intervals: dict[str, float] = to_floats(value)
        written = value if isinstance(value, dict) else {}
        for glob, seconds in intervals.items():
            if not glob:
                raise ValueError("a glob is empty")
            # (NaN passes `<= 0`, and an infinite interval is never stale.)
            if not math.isfinite(seconds) or seconds <= 0:
                shown = _as_written(written.get(glob), seconds)
                raise ValueError(f"{glob!r}: {shown} is not a number of seconds greater than 0")
        return intervals

    @model_validator(mode="after")
    def _read_keys_are_not_the_admin_key(self) -> ConsumerSettings:
        # The admin key would then read only that grant's projects.
        if self.api_key is not None and isinstance(self.authorizer, ApiKeysAuthorizerSettings):
            index = same_key(self.api_key, self.authorizer.keys)
            if index is not None:
                raise PydanticCustomError(
                    "same_key",
                    "authorizer.keys[{index}] has the same key as api_key (the admin key, "
                    "which sees every namespace)",
                    {
                        "index": index,
                        OPTIONS_CTX: ("authorizer", "api_key"),
                        FIX_CTX: "give read keys keys of their own",
                    },
                )
        return self

    def api_key_value(self) -> str | None:
        return self.api_key.get_secret_value() if self.api_key else None


def _as_written(given: object, seconds: float) -> str:
    """A number of seconds as the file or the variable gave it (``-1``, not the ``-1.0``
    it became), else as a whole number when it is one."""
    if isinstance(given, (int, float, str)) and not isinstance(given, bool):
        return str(given)
    return str(int(seconds)) if seconds.is_integer() else str(seconds)
