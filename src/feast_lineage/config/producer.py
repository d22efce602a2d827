"""Settings of the Feast OpenLineage producer (the ``openlineage`` section)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from feast_lineage.config.secrets import strip_secret

# Env names that differ from FEAST_OPENLINEAGE_<FIELD>: the spec's short forms.
ENV_NAMES: dict[str, str] = {
    "enabled": "FEAST_OPENLINEAGE_ENABLED",
    "transport_type": "FEAST_OPENLINEAGE_TRANSPORT_TYPE",
    "transport_url": "FEAST_OPENLINEAGE_URL",
    "transport_endpoint": "FEAST_OPENLINEAGE_ENDPOINT",
    "api_key": "FEAST_OPENLINEAGE_API_KEY",
    "namespace": "FEAST_OPENLINEAGE_NAMESPACE",
    "producer": "FEAST_OPENLINEAGE_PRODUCER",
    "emit_on_apply": "FEAST_OPENLINEAGE_EMIT_ON_APPLY",
    "emit_on_materialize": "FEAST_OPENLINEAGE_EMIT_ON_MATERIALIZE",
    "additional_config": "FEAST_OPENLINEAGE_ADDITIONAL_CONFIG",
    "emit_on_retrieval": "FEAST_OPENLINEAGE_EMIT_ON_RETRIEVAL",
    "online_retrieval_interval_seconds": "FEAST_OPENLINEAGE_ONLINE_RETRIEVAL_INTERVAL_SECONDS",
}


class ProducerSettings(BaseModel):
    """The producer's options. Every field is documented in docs/configuration.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = False
    transport_type: Literal["http", "console", "file", "kafka"] | None = None
    transport_url: str | None = None
    transport_endpoint: str = "api/v1/lineage"
    api_key: SecretStr | None = None
    namespace: str = "feast"
    producer: str = "feast"
    emit_on_apply: bool = True
    emit_on_materialize: bool = True
    additional_config: dict[str, Any] = Field(default_factory=dict)
    # Retrieval lineage; online retrievals are aggregated per feature set and
    # emitted at most once per interval (0: one event per call).
    emit_on_retrieval: bool = True
    online_retrieval_interval_seconds: float = Field(default=60, ge=0)

    _strip_secrets = field_validator("api_key")(strip_secret)

    def namespace_for(self, project: str) -> str:
        """The OpenLineage namespace of a Feast project's lineage (:func:`project_namespace`)."""
        return project_namespace(self.namespace, project)


def project_namespace(namespace: str, project: str) -> str:
    """The namespace of ``project``'s lineage, given the ``namespace`` option.

    ``feast`` (the default) is the project itself; a namespace that already
    names the project (it is the project, or ends in ``/<project>``) stays as
    it is, Feast's own rule, so lineage keeps its namespace when a team moves
    from Feast's emitter to ours; any other gets ``/<project>`` appended.
    """
    if namespace == "feast":
        return project
    if namespace == project or namespace.endswith(f"/{project}"):
        return namespace
    return f"{namespace}/{project}"
