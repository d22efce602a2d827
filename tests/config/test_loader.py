"""Loading feature_store.yaml and the FEAST_OPENLINEAGE_* environment."""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from feast_lineage.config import (
    ConfigError,
    ConsumerSettings,
    LineageConfig,
    ProducerSettings,
    load_config,
)
from feast_lineage.config.loader import consumer_env_names, normalize_database_url
from feast_lineage.config.producer import ENV_NAMES
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.factories import run_event
from tests.postgres import PostgresServer

SQL_REGISTRY = {"registry_type": "sql", "path": "sqlite:///data/registry.db"}
SECRET = "s3cr3t-Val"  # appears in no message, option name or default


def write(repo: Path, config: dict[str, Any] | str, name: str = "feature_store.yaml") -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    text = config if isinstance(config, str) else yaml.safe_dump(config)
    (repo / name).write_text(text)
    return repo


def load(repo: Path, env: dict[str, str] | None = None, **kwargs: Any) -> LineageConfig:
    return load_config(repo, env=env or {}, **kwargs)


def fs(openlineage: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"project": "demo", "registry": SQL_REGISTRY, **top}
    if openlineage is not None:
        config["openlineage"] = openlineage
    return config


# The spec's tables "Producer Configuration > Configuration Options" and
# "Consumer Configuration Options".
SPEC_PRODUCER_DEFAULTS = {
    "enabled": False,
    "transport_type": None,
    "transport_url": None,
    "transport_endpoint": "api/v1/lineage",
    "api_key": None,
    "namespace": "feast",
    "producer": "feast",
    "emit_on_apply": True,
    "emit_on_materialize": True,
    "additional_config": {},
}
SPEC_CONSUMER_DEFAULTS = {
    "enabled": False,
    "store_type": "sql",
    "connection_string": None,
    "api_key": None,
    "namespace_mapping": {},
    "retention_days": 30,
    "retention_check_interval_hours": 6,
    "standalone_server": False,
}


def test_defaults_equal_the_spec_tables(tmp_path: Path) -> None:
    config = load(write(tmp_path, fs()))
    producer = config.producer.model_dump()
    assert {k: producer[k] for k in SPEC_PRODUCER_DEFAULTS} == SPEC_PRODUCER_DEFAULTS
    consumer = config.consumer.model_dump()
    assert {k: consumer[k] for k in SPEC_CONSUMER_DEFAULTS} == SPEC_CONSUMER_DEFAULTS
    # Our own extra consumer options (documented in docs/configuration.md).
    assert consumer["max_request_bytes"] == 32 * 1024 * 1024
    assert consumer["max_batch_events"] == 10_000
    assert config.project == "demo"
    assert config.repo_path == tmp_path.resolve()


def test_an_empty_openlineage_section_means_defaults(tmp_path: Path) -> None:
    config = load(write(tmp_path, "project: demo\nopenlineage:\n"))
    assert config.producer == ProducerSettings()
    assert config.consumer == ConsumerSettings()
    assert config.consumer.enabled is False


def test_env_names_are_the_specs(tmp_path: Path) -> None:
    assert ENV_NAMES["enabled"] == "FEAST_OPENLINEAGE_ENABLED"
    assert ENV_NAMES["transport_type"] == "FEAST_OPENLINEAGE_TRANSPORT_TYPE"
    assert ENV_NAMES["transport_url"] == "FEAST_OPENLINEAGE_URL"
    assert ENV_NAMES["transport_endpoint"] == "FEAST_OPENLINEAGE_ENDPOINT"
    assert ENV_NAMES["namespace"] == "FEAST_OPENLINEAGE_NAMESPACE"
    names = consumer_env_names()
    assert names["retention_days"] == "FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS"
    assert (
        names["retention_check_interval_hours"]
        == "FEAST_OPENLINEAGE_CONSUMER_RETENTION_CHECK_INTERVAL_HOURS"
    )
    assert set(names) == set(ConsumerSettings.model_fields)


def test_file_values_are_read(tmp_path: Path) -> None:
    openlineage = {
        "enabled": True,
        "transport_type": "http",
        "transport_url": "http://lineage:6580",
        "transport_endpoint": "custom/lineage",
        "api_key": "producer-key",
        "namespace": "team",
        "producer": "my-feast",
        "emit_on_apply": False,
        "emit_on_materialize": False,
        "additional_config": {"timeout": 5},
        "consumer": {
            "enabled": True,
            "store_type": "sql",
            "connection_string": "sqlite:///lineage/store.db",
            "api_key": "consumer-key",
            "namespace_mapping": {"spark://ml-team": "demo"},
            "retention_days": 7,
            "retention_check_interval_hours": 1,
            "standalone_server": True,
            "max_request_bytes": 4096,
            "max_batch_events": 50,
        },
    }
    config = load(write(tmp_path, fs(openlineage)))
    producer, consumer = config.producer, config.consumer
    assert producer.enabled is True
    assert producer.transport_type == "http"
    assert producer.transport_url == "http://lineage:6580"
    assert producer.transport_endpoint == "custom/lineage"
    assert producer.api_key is not None
    assert producer.api_key.get_secret_value() == "producer-key"
    assert (producer.namespace, producer.producer) == ("team", "my-feast")
    assert (producer.emit_on_apply, producer.emit_on_materialize) == (False, False)
    assert producer.additional_config == {"timeout": 5}
    assert consumer.enabled is True
    assert consumer.api_key_value() == "consumer-key"
    assert consumer.namespace_mapping == {"spark://ml-team": "demo"}
    assert (consumer.retention_days, consumer.retention_check_interval_hours) == (7, 1)
    assert consumer.standalone_server is True
    assert (consumer.max_request_bytes, consumer.max_batch_events) == (4096, 50)
    assert config.database_url() == f"sqlite:///{tmp_path.resolve() / 'lineage/store.db'}"


def test_consumer_env_wins_over_the_file(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        fs(
            {
                "consumer": {
                    "enabled": False,
                    "retention_days": 7,
                    "retention_check_interval_hours": 2,
                    "namespace_mapping": {"from://file": "demo"},
                    "api_key": "file-key",
                    "standalone_server": True,
                }
            }
        ),
    )
    env = {
        "FEAST_OPENLINEAGE_CONSUMER_ENABLED": "true",
        "FEAST_OPENLINEAGE_CONSUMER_STORE_TYPE": "sql",
        "FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS": "0",
        "FEAST_OPENLINEAGE_CONSUMER_RETENTION_CHECK_INTERVAL_HOURS": "0.5",
        "FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING": (
            '{"spark://ml-team": "my_project", "airflow://prod-cluster": "my_project"}'
        ),
        "FEAST_OPENLINEAGE_CONSUMER_API_KEY": "env-key",
        "FEAST_OPENLINEAGE_CONSUMER_STANDALONE_SERVER": "false",
        "FEAST_OPENLINEAGE_CONSUMER_CONNECTION_STRING": "sqlite:////srv/lineage.db",
        "FEAST_OPENLINEAGE_CONSUMER_MAX_BATCH_EVENTS": "12",
        "FEAST_OPENLINEAGE_CONSUMER_MAX_REQUEST_BYTES": "2048",
    }
    consumer = load(repo, env).consumer
    assert consumer.enabled is True
    assert consumer.retention_days == 0
    assert consumer.retention_check_interval_hours == 0.5
    # The env mapping replaces the file's, it does not merge with it.
    assert consumer.namespace_mapping == {
        "spark://ml-team": "my_project",
        "airflow://prod-cluster": "my_project",
    }
    assert consumer.api_key_value() == "env-key"
    assert consumer.standalone_server is False
    assert consumer.connection_string is not None
    assert consumer.connection_string.get_secret_value() == "sqlite:////srv/lineage.db"
    assert (consumer.max_batch_events, consumer.max_request_bytes) == (12, 2048)


def test_producer_env_wins_over_the_file(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        fs({"enabled": False, "transport_type": "console", "namespace": "file", "producer": "a"}),
    )
    env = {
        "FEAST_OPENLINEAGE_ENABLED": "1",
        "FEAST_OPENLINEAGE_TRANSPORT_TYPE": "http",
        "FEAST_OPENLINEAGE_URL": "http://localhost:6580",
        "FEAST_OPENLINEAGE_ENDPOINT": "api/v2/lineage",
        "FEAST_OPENLINEAGE_NAMESPACE": "my_project",
        "FEAST_OPENLINEAGE_API_KEY": "k",
        "FEAST_OPENLINEAGE_PRODUCER": "env-producer",
        "FEAST_OPENLINEAGE_EMIT_ON_APPLY": "no",
        "FEAST_OPENLINEAGE_EMIT_ON_MATERIALIZE": "off",
        "FEAST_OPENLINEAGE_ADDITIONAL_CONFIG": '{"timeout": 3, "verify": false}',
    }
    producer = load(repo, env).producer
    assert producer.enabled is True
    assert producer.transport_type == "http"
    assert producer.transport_url == "http://localhost:6580"
    assert producer.transport_endpoint == "api/v2/lineage"
    assert producer.namespace == "my_project"
    assert producer.producer == "env-producer"
    assert (producer.emit_on_apply, producer.emit_on_materialize) == (False, False)
    assert producer.additional_config == {"timeout": 3, "verify": False}


def test_os_environ_is_the_default_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = write(tmp_path, fs({"consumer": {"retention_days": "${RETENTION}"}}))
    monkeypatch.setenv("RETENTION", "9")
    monkeypatch.setenv("FEAST_OPENLINEAGE_CONSUMER_STANDALONE_SERVER", "true")
    consumer = load_config(repo).consumer
    assert consumer.retention_days == 9
    assert consumer.standalone_server is True


def test_variables_in_the_file_are_expanded_like_feast(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        "project: $PROJECT\n"
        "registry:\n"
        "  registry_type: sql\n"
        "  path: sqlite:///${DATA_DIR}/registry.db\n"
        "openlineage:\n"
        "  namespace: ${UNSET_VARIABLE}\n"
        "  consumer:\n"
        "    enabled: true\n"
        '    api_key: "${LINEAGE_KEY}"\n',
    )
    env = {"PROJECT": "expanded", "DATA_DIR": "/srv/feast", "LINEAGE_KEY": "from-env"}
    config = load(repo, env)
    assert config.project == "expanded"
    assert config.database_url() == "sqlite:////srv/feast/registry.db"
    assert config.consumer.api_key_value() == "from-env"
    # Unset variables stay as written, as with Feast's os.path.expandvars.
    assert config.producer.namespace == "${UNSET_VARIABLE}"


def test_feature_store_yaml_can_be_another_file(tmp_path: Path) -> None:
    repo = write(tmp_path, fs({"namespace": "default"}))
    write(repo, fs({"namespace": "other"}), name="other.yaml")
    write(repo / "conf", fs({"namespace": "nested"}), name="fs.yaml")
    assert load(repo).producer.namespace == "default"
    assert load(repo, fs_yaml_file="other.yaml").producer.namespace == "other"
    absolute = repo / "conf" / "fs.yaml"
    assert load(repo, fs_yaml_file=absolute).producer.namespace == "nested"
    # The repository (for relative paths) is still repo, not the file's folder.
    assert load(repo, fs_yaml_file=absolute).repo_path == repo.resolve()


# --- The store's database --------------------------------------------------


def consumer_on(registry: Any, **consumer: Any) -> dict[str, Any]:
    return {
        "project": "demo",
        "registry": registry,
        "openlineage": {"consumer": {"enabled": True, **consumer}},
    }


def test_without_connection_string_the_sql_registry_database_is_used(tmp_path: Path) -> None:
    config = load(write(tmp_path, consumer_on(SQL_REGISTRY)))
    assert config.database_url() == f"sqlite:///{tmp_path.resolve() / 'data' / 'registry.db'}"
    assert config.database_option() == "registry.path"


def test_relative_sqlite_paths_resolve_against_the_repo_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = write(tmp_path / "repo", consumer_on(SQL_REGISTRY))
    monkeypatch.chdir(tmp_path)
    assert load(repo).database_url() == f"sqlite:///{repo.resolve() / 'data/registry.db'}"


def test_absolute_sqlite_paths_are_kept(tmp_path: Path) -> None:
    registry = {"registry_type": "sql", "path": "sqlite:////var/lib/feast/registry.db"}
    config = load(write(tmp_path, consumer_on(registry)))
    assert config.database_url() == "sqlite:////var/lib/feast/registry.db"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            "postgresql://feast:pw@db:5432/feast",
            "postgresql+psycopg://feast:pw@db:5432/feast",
        ),
        ("postgres://feast@db/feast", "postgresql+psycopg://feast@db/feast"),
        ("postgresql+psycopg2://feast@db/feast", "postgresql+psycopg://feast@db/feast"),
        ("postgresql+psycopg://feast@db/feast", "postgresql+psycopg://feast@db/feast"),
    ],
)
def test_postgresql_urls_get_the_psycopg_driver(tmp_path: Path, given: str, expected: str) -> None:
    registry = {"registry_type": "sql", "path": given}
    config = load(write(tmp_path, consumer_on(registry)))
    assert config.database_url() == expected


def test_connection_string_wins_over_the_registry(tmp_path: Path) -> None:
    config = load(write(tmp_path, consumer_on(SQL_REGISTRY, connection_string="sqlite:///ol.db")))
    assert config.database_url() == f"sqlite:///{tmp_path.resolve() / 'ol.db'}"
    assert config.database_option() == "openlineage.consumer.connection_string"


def test_a_file_registry_is_fine_with_a_connection_string(tmp_path: Path) -> None:
    repo = write(tmp_path, consumer_on("data/registry.db", connection_string="sqlite:///l.db"))
    config = load(repo)
    assert config.registry_type == "file"
    assert config.database_url().endswith("/l.db")


def test_a_disabled_consumer_needs_no_database(tmp_path: Path) -> None:
    repo = write(tmp_path, {"project": "demo", "registry": "data/registry.db"})
    config = load(repo)
    assert config.consumer.enabled is False
    with pytest.raises(ConfigError) as info:
        config.database_url()
    assert info.value.option == "openlineage.consumer.connection_string"


# --- Configs that cannot work ----------------------------------------------

BAD_CONFIGS: list[tuple[str, dict[str, Any] | str, dict[str, str], str, str]] = [
    (
        "consumer on a file registry",
        consumer_on("data/registry.db"),
        {},
        "openlineage.consumer.connection_string: ",
        "registry_type: sql",
    ),
    (
        "consumer on a registry without registry_type",
        consumer_on({"path": "data/registry.db"}),
        {},
        "openlineage.consumer.connection_string: ",
        "set openlineage.consumer.connection_string",
    ),
    (
        "consumer enabled by env on a file registry",
        {"project": "demo", "registry": "data/registry.db"},
        {"FEAST_OPENLINEAGE_CONSUMER_ENABLED": "true"},
        "openlineage.consumer.connection_string: ",
        "registry_type: sql",
    ),
    (
        "sql registry without a path",
        consumer_on({"registry_type": "sql"}),
        {},
        "registry.path: is missing",
        "connection_string",
    ),
    (
        "unknown store_type",
        consumer_on(SQL_REGISTRY, store_type="redis"),
        {},
        "openlineage.consumer.store_type: input should be 'sql'",
        "use sql",
    ),
    (
        "unknown store_type from env",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_STORE_TYPE": "mongo"},
        "FEAST_OPENLINEAGE_CONSUMER_STORE_TYPE: input should be 'sql'",
        "use sql",
    ),
    (
        "namespace_mapping env is not JSON",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING": "spark://ml-team=demo"},
        "FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING: is not valid JSON",
        '{"spark://ml-team": "my_project"}',
    ),
    (
        "namespace_mapping env has a non-string value",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING": '{"spark://ml-team": 3}'},
        "FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING (at 'spark://ml-team'): "
        "input should be a valid string",
        "mapping of OpenLineage namespace to Feast project",
    ),
    (
        "namespace_mapping env is a JSON array",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING": '["spark://ml-team"]'},
        "FEAST_OPENLINEAGE_CONSUMER_NAMESPACE_MAPPING: input should be a valid dictionary",
        "mapping of OpenLineage namespace to Feast project",
    ),
    (
        "namespace_mapping in the file is a list",
        consumer_on(SQL_REGISTRY, namespace_mapping=["spark://ml-team"]),
        {},
        "openlineage.consumer.namespace_mapping: input should be a valid dictionary",
        "mapping of OpenLineage namespace to Feast project",
    ),
    (
        "namespace_mapping in the file is a string",
        consumer_on(SQL_REGISTRY, namespace_mapping="spark://ml-team"),
        {},
        "openlineage.consumer.namespace_mapping: input should be a valid dictionary",
        "mapping of OpenLineage namespace to Feast project",
    ),
    (
        "namespace_mapping in the file has a nested value",
        consumer_on(SQL_REGISTRY, namespace_mapping={"spark://ml-team": {"project": "x"}}),
        {},
        "openlineage.consumer.namespace_mapping.spark://ml-team: input should be a valid string",
        "mapping of OpenLineage namespace to Feast project",
    ),
    (
        "unknown consumer option",
        consumer_on(SQL_REGISTRY, retention=3),
        {},
        "openlineage.consumer.retention: is not a known option",
        "retention_days",
    ),
    (
        "unknown producer option",
        fs({"transport": "http"}),
        {},
        "openlineage.transport: is not a known option",
        "consumer",
    ),
    (
        "negative retention_days",
        consumer_on(SQL_REGISTRY, retention_days=-1),
        {},
        "openlineage.consumer.retention_days: input should be greater than or equal to 0",
        "0 to keep everything",
    ),
    (
        "negative retention_days from env",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS": "-3"},
        "FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS: input should be greater than or equal to 0",
        "0 to keep everything",
    ),
    (
        "retention_days env is not a number",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS": "a week"},
        "FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS: input should be a valid integer",
        "whole number of days",
    ),
    (
        "zero check interval",
        consumer_on(SQL_REGISTRY, retention_check_interval_hours=0),
        {},
        "openlineage.consumer.retention_check_interval_hours: input should be greater than 0",
        "hours",
    ),
    (
        "max_request_bytes too small",
        consumer_on(SQL_REGISTRY, max_request_bytes=10),
        {},
        "openlineage.consumer.max_request_bytes: ",
        "at least 1024",
    ),
    (
        "not a boolean in env",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_ENABLED": "maybe"},
        "FEAST_OPENLINEAGE_CONSUMER_ENABLED: input should be a valid boolean",
        "true or false",
    ),
    (
        "unknown transport_type",
        fs({"transport_type": "grpc"}),
        {},
        "openlineage.transport_type: input should be 'http', 'console', 'file' or 'kafka'",
        "leave it unset",
    ),
    (
        "http producer without a URL",
        fs({"enabled": True, "transport_type": "http"}),
        {},
        "openlineage.transport_url: is required when transport_type is http",
        "FEAST_OPENLINEAGE_URL",
    ),
    (
        "additional_config env is not JSON",
        fs(),
        {"FEAST_OPENLINEAGE_ADDITIONAL_CONFIG": "timeout=3"},
        "FEAST_OPENLINEAGE_ADDITIONAL_CONFIG: is not valid JSON",
        """set a JSON object such as '{"timeout": 5}'""",
    ),
    (
        "empty consumer api_key",
        consumer_on(SQL_REGISTRY, api_key=""),
        {},
        "openlineage.consumer.api_key: is empty",
        "set a non-empty key or remove it",
    ),
    (
        "blank consumer api_key from env",
        consumer_on(SQL_REGISTRY),
        {"FEAST_OPENLINEAGE_CONSUMER_API_KEY": "  "},
        "FEAST_OPENLINEAGE_CONSUMER_API_KEY: is empty",
        "non-empty key",
    ),
    (
        "connection_string is not a URL",
        consumer_on(SQL_REGISTRY, connection_string="lineage.db"),
        {},
        "openlineage.consumer.connection_string: is not a database URL",
        "sqlite:///data/lineage.db",
    ),
    (
        "connection_string with an unset variable",
        consumer_on(SQL_REGISTRY, connection_string="${LINEAGE_DB_URL}"),
        {},
        "openlineage.consumer.connection_string: is not a database URL "
        "(is an environment variable in it unset?)",
        "sqlite:///data/lineage.db",
    ),
    (
        "unsupported database",
        consumer_on(SQL_REGISTRY, connection_string="oracle://db/lineage"),
        {},
        "openlineage.consumer.connection_string: database driver 'oracle' is not supported",
        "postgresql://",
    ),
    (
        "in-memory sqlite",
        consumer_on({"registry_type": "sql", "path": "sqlite://"}),
        {},
        "registry.path: is an in-memory SQLite database",
        "use a file",
    ),
    (
        "in-memory sqlite by name",
        consumer_on(SQL_REGISTRY, connection_string="sqlite:///:memory:"),
        {},
        "openlineage.consumer.connection_string: is an in-memory SQLite database",
        "use a file",
    ),
    ("missing project", {"registry": SQL_REGISTRY}, {}, "project: is missing", "project: <name>"),
    ("empty project", fs(project=""), {}, "project: is missing", "project: <name>"),
    (
        "consumer section is a list",
        fs({"consumer": ["enabled"]}),
        {},
        "openlineage.consumer: must be a mapping",
        "YAML mapping",
    ),
    ("openlineage is a string", fs("on"), {}, "openlineage: must be a mapping", "YAML mapping"),
    ("file is a list", "- project: demo\n", {}, "feature_store.yaml: is not a mapping", "fix"),
    (
        "file is not YAML",
        "project: demo\nopenlineage: [unclosed\n",
        {},
        "feature_store.yaml: is not valid YAML (",
        "fix the file",
    ),
]


@pytest.mark.parametrize(
    ("config", "env", "starts", "fix"),
    [pytest.param(c, e, s, f, id=name) for name, c, e, s, f in BAD_CONFIGS],
)
def test_configs_that_cannot_work_fail_with_one_line(
    tmp_path: Path, config: dict[str, Any] | str, env: dict[str, str], starts: str, fix: str
) -> None:
    repo = write(tmp_path, config)
    with pytest.raises(ConfigError) as info:
        load(repo, env)
    message = str(info.value)
    assert message.startswith(starts), message
    assert "\n" not in message
    err = info.value
    assert message == f"{err.option}: {err.problem}; {err.fix}"
    assert fix in err.fix, message
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__ or info.value.__context__ is None


def test_a_missing_file_names_the_flags_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path)
    message = str(info.value)
    assert message.startswith(f"feature_store.yaml: {tmp_path.resolve() / 'feature_store.yaml'}")
    assert "does not exist" in message
    assert "-c/--chdir" in message
    assert "-f/--feature-store-yaml" in message


def test_a_directory_instead_of_the_file_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "feature_store.yaml").mkdir()
    with pytest.raises(ConfigError) as info:
        load(tmp_path)
    assert str(info.value).startswith("feature_store.yaml: cannot read ")


def test_mysql_without_its_driver_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test environment has the driver (the mysql extra): hide it, as if not installed.
    assert importlib.util.find_spec("pymysql") is not None
    monkeypatch.setitem(sys.modules, "pymysql", None)
    with pytest.raises(ConfigError) as info:
        normalize_database_url("mysql://u@db/lineage", tmp_path, "registry.path")
    assert str(info.value) == (
        "registry.path: mysql needs the pymysql package, which is not installed; "
        "pip install 'feast-lineage[mysql]'"
    )


# --- Secrets ----------------------------------------------------------------


def secret_config(**consumer: Any) -> dict[str, Any]:
    return {
        "project": "demo",
        "registry": {"registry_type": "sql", "path": f"postgresql://feast:{SECRET}@db:5432/feast"},
        "openlineage": {
            "api_key": SECRET + "-producer",
            "consumer": {"enabled": True, "api_key": SECRET, **consumer},
        },
    }


def test_secrets_are_not_in_reprs(tmp_path: Path) -> None:
    config = load(write(tmp_path, secret_config(connection_string=f"sqlite:///{SECRET}.db")))
    settings = AppSettings.from_config(config, standalone=True)
    for text in (repr(config), str(config), repr(settings), str(config.consumer)):
        assert SECRET not in text
    assert config.consumer.api_key is not None
    assert config.consumer.api_key.get_secret_value() == SECRET


SECRET_ERRORS: list[tuple[str, dict[str, Any] | str]] = [
    (
        "YAML error on the secret's line",
        f'project: demo\nopenlineage:\n  consumer:\n    api_key: "{SECRET}"x"\n',
    ),
    (
        "YAML error after a secret",
        f"project: demo\nopenlineage:\n  consumer:\n    api_key: {SECRET}\n  bad: [\n",
    ),
    ("bad port", secret_config(connection_string=f"postgresql://u:{SECRET}@db:port/x")),
    ("unsupported driver", secret_config(connection_string=f"oracle://u:{SECRET}@db/x")),
    ("unknown option beside secrets", secret_config(api_keys="x")),
    ("bad value beside secrets", secret_config(retention_days="forever")),
    ("file registry beside secrets", {**secret_config(), "registry": "data/registry.db"}),
    (
        "api key of a wrong type",
        {"project": "demo", "openlineage": {"consumer": {"api_key": [SECRET]}}},
    ),
    (
        "registry URL with a password but not a database",
        {
            "project": "demo",
            "registry": {"registry_type": "sql", "path": f"nosuchdb://u:{SECRET}@h:1/db"},
            "openlineage": {"consumer": {"enabled": True}},
        },
    ),
]


@pytest.mark.parametrize("config", [pytest.param(c, id=n) for n, c in SECRET_ERRORS])
def test_secrets_are_not_in_error_messages(
    tmp_path: Path, config: dict[str, Any] | str, caplog: pytest.LogCaptureFixture
) -> None:
    repo = write(tmp_path, config)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConfigError) as info:
        load(repo)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    assert SECRET not in caplog.text


def test_secret_from_env_is_not_in_error_messages(tmp_path: Path) -> None:
    repo = write(tmp_path, consumer_on(SQL_REGISTRY))
    env = {"FEAST_OPENLINEAGE_CONSUMER_CONNECTION_STRING": f"mssql://sa:{SECRET}@db/lineage"}
    with pytest.raises(ConfigError) as info:
        load(repo, env)
    assert str(info.value).startswith("openlineage.consumer.connection_string: ")
    assert SECRET not in str(info.value)


@pytest.mark.postgres
def test_secrets_are_never_logged_by_a_running_consumer(
    tmp_path: Path, pg: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    # The test server trusts every local connection, so any password works.
    database = pg.create_database().rsplit("/", 1)[1]
    url = f"postgresql://postgres:{SECRET}@127.0.0.1:{pg.port}/{database}"
    repo = write(tmp_path, consumer_on({"registry_type": "sql", "path": url}, api_key=SECRET))
    caplog.set_level(logging.DEBUG)
    config = load(repo)
    with TestClient(create_app(AppSettings.from_config(config, standalone=True))) as client:
        good = client.post("/api/v1/lineage", json=run_event(), headers={"X-API-Key": SECRET})
        bad = client.post("/api/v1/lineage", json=run_event(), headers={"X-API-Key": "wrong"})
        health = client.get("/healthz")
    assert good.status_code == 201
    assert bad.status_code == 401
    assert health.json()["database"] == "postgresql"
    for response in (good, bad, health):
        assert SECRET not in response.text
    assert "api_key is not set" not in caplog.text  # the key was seen
    assert SECRET not in caplog.text


def _read_keys(*grants: tuple[str, list[str]]) -> dict[str, Any]:
    return {"type": "api_keys", "keys": [{"key": k, "projects": p} for k, p in grants]}


AUTHORIZER_ENV = "FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER"


def _authorizer_refused(tmp_path: Path, authorizer: dict[str, Any], from_env: bool) -> str:
    """The error of a repository whose authorizer is ``authorizer``, written in
    feature_store.yaml or set in its environment variable."""
    consumer: dict[str, Any] = {} if from_env else {"authorizer": authorizer}
    env = {AUTHORIZER_ENV: json.dumps(authorizer)} if from_env else {}
    repo = write(tmp_path, fs({"consumer": consumer}))
    with pytest.raises(ConfigError) as info:
        load(repo, env)
    return str(info.value)


@pytest.mark.parametrize(
    ("authorizer", "option", "known"),
    [
        ({"type": "open", "keys": []}, "authorizer.keys", "type"),
        (
            {"type": "api_keys", "key": "k"},
            "authorizer.key",
            "anonymous_projects, keys, type",
        ),
        (
            {"type": "feast", "cache": 5},
            "authorizer.cache",
            "anonymous_projects, cache_seconds, type",
        ),
        (
            {"type": "api_keys", "keys": [{"key": "k", "projects": ["a"], "project": "b"}]},
            "authorizer.keys.0.project",
            "key, projects",
        ),
    ],
)
@pytest.mark.parametrize("from_env", [False, True])
def test_an_unknown_authorizer_option_is_named_with_the_authorizers_own_options(
    tmp_path: Path, authorizer: dict[str, Any], option: str, known: str, from_env: bool
) -> None:
    # It listed the consumer's options (api_key, authorizer, ...), none of which fits there.
    message = _authorizer_refused(tmp_path, authorizer, from_env)
    rest = option.removeprefix("authorizer").removeprefix(".")
    where = f"{AUTHORIZER_ENV} (at {rest!r})" if from_env else f"openlineage.consumer.{option}"
    assert message == f"{where}: is not a known option; use one of: {known}"


@pytest.mark.parametrize(
    ("authorizer", "said"),
    [
        ({"type": "bogus"}, "type 'bogus' is not known; use one of: open, api_keys, feast"),
        ({"keys": []}, "has no type; set type to one of: open, api_keys, feast"),
    ],
)
@pytest.mark.parametrize("from_env", [False, True])
def test_an_authorizer_type_missing_or_unknown_names_the_types(
    tmp_path: Path, authorizer: dict[str, Any], said: str, from_env: bool
) -> None:
    # It was pydantic's: "unable to extract tag using discriminator 'type'".
    message = _authorizer_refused(tmp_path, authorizer, from_env)
    where = AUTHORIZER_ENV if from_env else "openlineage.consumer.authorizer"
    assert message == f"{where}: {said}"


@pytest.mark.parametrize("from_env", [False, True])
def test_a_read_key_listed_twice_is_refused_naming_both_entries_not_the_key(
    tmp_path: Path, from_env: bool
) -> None:
    # The first entry won and the second's projects were ignored, without a word.
    keys = _read_keys(("k-1", ["a"]), ("k-2", ["b"]), ("k-1", ["c"]))
    message = _authorizer_refused(tmp_path, keys, from_env)
    assert "keys[2] has the same key as keys[0]; give each key one entry" in message
    # Where it is, as written (not pydantic's path with the type in it: api_keys.keys).
    where = (
        "FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER (at 'keys'): "
        if from_env
        else "openlineage.consumer.authorizer.keys: "
    )
    assert message.startswith(where), message
    assert "k-1" not in message
    assert "\n" not in message


def test_a_read_key_that_is_the_admin_key_is_refused_not_naming_it(tmp_path: Path) -> None:
    # It made the admin key read only that grant's projects (and 403 on /metrics).
    keys = _read_keys(("r-1", ["a"]), ("admin-1", ["b"]))
    repo = write(tmp_path, fs({"consumer": {"api_key": " admin-1 ", "authorizer": keys}}))
    with pytest.raises(ConfigError) as info:
        load(repo)
    message = str(info.value)
    expected = "openlineage.consumer: authorizer.keys[1] has the same key as api_key"
    assert message.startswith(expected), message
    assert "admin-1" not in message
    fine = _read_keys(("r-1", ["a"]), ("r-2", ["a"]))
    repo = write(tmp_path, fs({"consumer": {"api_key": "admin-1", "authorizer": fine}}))
    assert load(repo).consumer.api_key_value() == "admin-1"


@pytest.mark.parametrize("in_env", [("api_key",), ("authorizer",), ("api_key", "authorizer")])
def test_a_read_key_that_is_the_admin_key_names_the_environment_variables_it_came_from(
    tmp_path: Path, in_env: tuple[str, ...]
) -> None:
    # It was reported as the section ("openlineage.consumer: authorizer.keys[1] ..."), which
    # names neither variable the user set.
    keys = _read_keys(("r-1", ["a"]), ("admin-1", ["b"]))
    given: dict[str, Any] = {"api_key": "admin-1", "authorizer": keys}
    env_names = consumer_env_names()
    env = {
        env_names[k]: v if isinstance(v, str) else json.dumps(v)
        for k, v in given.items()
        if k in in_env
    }
    consumer = {k: v for k, v in given.items() if k not in in_env}
    repo = write(tmp_path, fs({"consumer": consumer}))
    with pytest.raises(ConfigError) as info:
        load(repo, env)
    message = str(info.value)
    where = " and ".join(
        env_names[k] if k in in_env else f"openlineage.consumer.{k}"
        for k in ("authorizer", "api_key")
    )
    assert message.startswith(f"{where}: authorizer.keys[1] has the same key as api_key"), message
    assert "admin-1" not in message
    assert "\n" not in message


def test_a_config_error_keeps_no_reference_to_the_values_it_refused(tmp_path: Path) -> None:
    # pydantic's error holds the section's input (the api_key too); a logger printing the
    # error's chain, or a debugger, would show it.
    keys = _read_keys(("r-1", ["a"]), ("admin-secret-1", ["b"]))
    repo = write(tmp_path, fs({"consumer": {"api_key": "admin-secret-1", "authorizer": keys}}))
    with pytest.raises(ConfigError) as info:
        load(repo)
    assert info.value.__context__ is None
    assert info.value.__cause__ is None


DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


@pytest.mark.parametrize(
    ("consumer", "fix"),
    [
        (
            {"authorizer": _read_keys(("k-1", ["a"]), ("k-1", ["b"]))},
            "give each key one entry, with all its projects under it",
        ),
        (
            {"api_key": "k-1", "authorizer": _read_keys(("k-1", ["a"]))},
            "give read keys keys of their own",
        ),
    ],
)
def test_a_message_that_says_its_own_fix_gets_no_pointer_to_the_docs(
    tmp_path: Path, consumer: dict[str, Any], fix: str
) -> None:
    # "...: give read keys keys of their own; see docs/configuration.md for valid values":
    # a fix, then a pointer to a page of options for a value that was never the problem.
    repo = write(tmp_path, fs({"consumer": consumer}))
    with pytest.raises(ConfigError) as info:
        load(repo)
    assert info.value.fix == fix
    assert str(info.value).endswith(f"; {fix}"), str(info.value)
    assert str(info.value).count(fix) == 1, str(info.value)
    assert "docs/configuration.md" not in str(info.value)


@pytest.mark.parametrize(
    ("consumer", "section"),
    [
        ({"authorizer": _read_keys(("k-1", [" "]))}, "openlineage.consumer.authorizer"),
        ({"naive_event_time": "local"}, "openlineage.consumer.naive_event_time"),
    ],
)
def test_a_message_without_a_fix_points_to_the_options_section_of_the_docs(
    tmp_path: Path, consumer: dict[str, Any], section: str
) -> None:
    repo = write(tmp_path, fs({"consumer": consumer}))
    with pytest.raises(ConfigError) as info:
        load(repo)
    assert info.value.fix == f"see {section} in docs/configuration.md for valid values"
    assert f"### `{section}`\n" in DOCS_PAGE.read_text()


FRESHNESS_ENV = "FEAST_OPENLINEAGE_CONSUMER_FRESHNESS"
FRESHNESS_FIX = (
    "use a mapping of 'namespace/name' glob to seconds greater than 0, "
    'e.g. {"postgres://db:5432/public.*": 86400}'
)


@pytest.mark.parametrize(
    ("freshness", "problem"),
    [
        # The value as written: -1 was shown as the -1.0 it had become.
        ({"s3://bucket/*": -1}, "'s3://bucket/*': -1 is not a number of seconds greater than 0"),
        ({"s3://bucket/*": 0}, "'s3://bucket/*': 0 is not a number of seconds greater than 0"),
        (
            {"s3://bucket/*": -0.5},
            "'s3://bucket/*': -0.5 is not a number of seconds greater than 0",
        ),
        (
            {"s3://bucket/*": 0.0},
            "'s3://bucket/*': 0.0 is not a number of seconds greater than 0",
        ),
        # A number in quotes is read as one, and shown as written too.
        (
            {"s3://bucket/*": "-1"},
            "'s3://bucket/*': -1 is not a number of seconds greater than 0",
        ),
        # Neither is greater than 0 in the sense that matters: NaN compares false to
        # everything (it passed `<= 0`, and made every staleness check false), and an
        # infinite interval is never stale: both were taken.
        (
            {"s3://bucket/*": float("nan")},
            "'s3://bucket/*': nan is not a number of seconds greater than 0",
        ),
        (
            {"s3://bucket/*": float("inf")},
            "'s3://bucket/*': inf is not a number of seconds greater than 0",
        ),
        ({"": 3600}, "a glob is empty"),
    ],
)
@pytest.mark.parametrize("from_env", [False, True])
def test_a_bad_freshness_entry_names_it_and_gives_one_example(
    tmp_path: Path, freshness: dict[str, float], problem: str, from_env: bool
) -> None:
    # It gave two examples, one in the problem and another in the fix, and named the
    # option twice: "openlineage.consumer.freshness: freshness: ... (e.g. ...); ..., e.g. ...".
    consumer: dict[str, Any] = {} if from_env else {"freshness": freshness}
    env = {FRESHNESS_ENV: json.dumps(freshness)} if from_env else {}
    repo = write(tmp_path, fs({"consumer": consumer}))
    with pytest.raises(ConfigError) as info:
        load(repo, env)
    message = str(info.value)
    where = FRESHNESS_ENV if from_env else "openlineage.consumer.freshness"
    assert message == f"{where}: {problem}; {FRESHNESS_FIX}"
    assert message.count("e.g.") == 1, message
    assert message.lower().count("freshness") == 1, message


def test_freshness_not_json_in_the_environment_gives_the_bad_entrys_example(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path, fs({"consumer": {}}))
    with pytest.raises(ConfigError) as info:
        load(repo, {FRESHNESS_ENV: "s3://bucket/*=3600"})
    example = FRESHNESS_FIX.partition("e.g. ")[2]
    assert str(info.value) == (
        f"{FRESHNESS_ENV}: is not valid JSON; set a JSON object such as '{example}'"
    )
