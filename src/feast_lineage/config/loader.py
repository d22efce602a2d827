"""Loading the lineage configuration from feature_store.yaml and the environment.

The file is read the way Feast reads it (``${VAR}`` expanded, YAML safe-load),
without importing Feast. Environment variables win over the file. Every
problem becomes one :class:`ConfigError` line that names the option.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from feast_lineage.config import consumer as consumer_module
from feast_lineage.config.consumer import ConsumerSettings
from feast_lineage.config.errors import ConfigError
from feast_lineage.config.producer import ENV_NAMES, ProducerSettings

_DICT_FIELDS = {"namespace_mapping", "additional_config"}


@dataclass(frozen=True)
class LineageConfig:
    """Everything the lineage code needs from one feature repository."""

    project: str
    repo_path: Path
    producer: ProducerSettings
    consumer: ConsumerSettings
    registry_type: str
    registry_path: str | None

    def database_url(self) -> str:
        """The consumer store's SQLAlchemy URL (secret; never log it)."""
        if self.consumer.connection_string is not None:
            raw = self.consumer.connection_string.get_secret_value()
            option = "openlineage.consumer.connection_string"
        elif self.registry_type == "sql" and self.registry_path:
            raw = self.registry_path
            option = "registry.path"
        else:
            raise ConfigError(
                "openlineage.consumer.connection_string",
                "the consumer stores lineage in SQL, but the registry is a "
                f"{self.registry_type} registry and no connection_string is set",
                "set openlineage.consumer.connection_string (e.g. sqlite:///data/lineage.db) "
                "or use registry_type: sql",
            )
        return normalize_database_url(raw, self.repo_path, option)


def normalize_database_url(raw: str, repo_path: Path, option: str) -> str:
    """Pick our drivers and resolve relative SQLite paths against the repo."""
    try:
        url = make_url(raw)
    except ArgumentError:
        raise ConfigError(
            option,
            "is not a database URL",
            "use a URL such as sqlite:///data/lineage.db or postgresql://host/db",
        ) from None
    if url.drivername in {"postgresql", "postgres"}:
        url = url.set(drivername="postgresql+psycopg")
    elif url.drivername not in {"sqlite", "postgresql+psycopg", "mysql+pymysql"} and not (
        url.drivername.startswith(("sqlite", "postgresql", "mysql"))
    ):
        raise ConfigError(
            option,
            f"database {url.drivername!r} is not supported",
            "use sqlite:///..., postgresql://... or mysql+pymysql://...",
        )
    if url.drivername.startswith("sqlite") and url.database and url.database != ":memory:":
        path = Path(url.database)
        if not path.is_absolute():
            url = url.set(database=str((repo_path / path).resolve()))
    return url.render_as_string(hide_password=False)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(
            "feature_store.yaml",
            f"{path} does not exist",
            "run from the feature repository or pass -c/--chdir or -f/--feature-store-yaml",
        ) from None
    try:
        data = yaml.safe_load(os.path.expandvars(text))
    except yaml.YAMLError as err:
        raise ConfigError(
            "feature_store.yaml", f"is not valid YAML ({err})", "fix the file"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("feature_store.yaml", "is not a mapping", "fix the file")
    return data


def _env_value(field: str, raw: str, env_name: str) -> Any:
    if field in _DICT_FIELDS:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            raise ConfigError(
                env_name,
                "is not valid JSON",
                'set a JSON object such as \'{"spark://ml-team": "my_project"}\'',
            ) from None
        return value
    return raw


def _build(model: type[BaseModel], data: Any, section: str, env_overrides: dict[str, Any]) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(section, "must be a mapping", f"write {section} as a YAML mapping")
    merged = {**data, **env_overrides}
    try:
        return model.model_validate(merged)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        option = f"{section}.{loc}" if loc else section
        if first["type"] == "extra_forbidden":
            known = ", ".join(sorted(model.model_fields))
            raise ConfigError(option, "is not a known option", f"use one of: {known}") from None
        raise ConfigError(
            option, first["msg"].lower(), "see docs/configuration.md for valid values"
        ) from None


def load_config(
    repo_path: Path | str = ".",
    fs_yaml_file: Path | str | None = None,
    env: Mapping[str, str] | None = None,
) -> LineageConfig:
    """Read the lineage configuration of the feature repository at ``repo_path``."""
    env = os.environ if env is None else env
    repo = Path(repo_path).resolve()
    yaml_path = Path(fs_yaml_file) if fs_yaml_file else repo / "feature_store.yaml"
    if not yaml_path.is_absolute():
        yaml_path = (repo / yaml_path).resolve()
    data = _read_yaml(yaml_path)

    project = data.get("project")
    if not isinstance(project, str) or not project:
        raise ConfigError("project", "is missing", "set project: <name> in feature_store.yaml")

    section = data.get("openlineage") or {}
    if not isinstance(section, dict):
        raise ConfigError("openlineage", "must be a mapping", "write openlineage as a YAML mapping")
    producer_data = {k: v for k, v in section.items() if k != "consumer"}

    producer_env: dict[str, Any] = {}
    for field, env_name in ENV_NAMES.items():
        if env_name in env:
            producer_env[field] = _env_value(field, env[env_name], env_name)
    consumer_env: dict[str, Any] = {}
    for field in ConsumerSettings.model_fields:
        env_name = consumer_module.ENV_PREFIX + field.upper()
        if env_name in env:
            consumer_env[field] = _env_value(field, env[env_name], env_name)

    producer = _build(ProducerSettings, producer_data, "openlineage", producer_env)
    consumer = _build(
        ConsumerSettings, section.get("consumer"), "openlineage.consumer", consumer_env
    )

    registry = data.get("registry")
    if isinstance(registry, dict):
        registry_type = str(registry.get("registry_type", "file"))
        registry_path = registry.get("path")
    else:
        registry_type = "file"
        registry_path = registry if isinstance(registry, str) else None

    config = LineageConfig(
        project=project,
        repo_path=repo,
        producer=producer,
        consumer=consumer,
        registry_type=registry_type,
        registry_path=str(registry_path) if registry_path is not None else None,
    )
    if consumer.enabled:
        config.database_url()  # fails fast on a consumer without a database
    return config
