"""Loading the lineage configuration from feature_store.yaml and the environment.

The file is read the way Feast reads it (``$VAR``/``${VAR}`` expanded, unset
variables left as they are, YAML safe-load), without importing Feast.
Environment variables win over the file. Every problem becomes one
:class:`ConfigError` line that names the option (or the environment variable
it came from) and the fix, and never contains a secret.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from feast_lineage.config import consumer as consumer_module
from feast_lineage.config.authorizer import FEAST_AUTH_TYPES, FeastAuthorizerSettings
from feast_lineage.config.consumer import ConsumerSettings
from feast_lineage.config.errors import FIX_CTX, OPTIONS_CTX, ConfigError
from feast_lineage.config.producer import ENV_NAMES, ProducerSettings

# The examples of a freshness mapping and a namespace mapping, each in both its messages
# (bad JSON, a bad entry).
_FRESHNESS_EXAMPLE = '{"postgres://db:5432/public.*": 86400}'
_MAPPING_EXAMPLE = '{"spark://ml-team": "my_project"}'
# Options given in the environment as JSON objects, with an example of each.
_JSON_EXAMPLES = {
    "namespace_mapping": _MAPPING_EXAMPLE,
    "additional_config": '{"timeout": 5}',
    "freshness": _FRESHNESS_EXAMPLE,
    "authorizer": '{"type": "api_keys", "keys": [{"key": "...", "projects": ["my_project"]}]}',
}
_BOOL = "use true or false"

# How to fix a bad value, per option (both sections).
_FIXES: dict[str, str] = {
    "enabled": _BOOL,
    "standalone_server": _BOOL,
    "emit_on_apply": _BOOL,
    "emit_on_materialize": _BOOL,
    "emit_on_retrieval": _BOOL,
    "online_retrieval_interval_seconds": "use a number of seconds, 0 or more",
    "store_type": "use sql, the only store type",
    "namespace_mapping": "use a mapping of OpenLineage namespace to Feast project, "
    f"e.g. {_MAPPING_EXAMPLE}",
    "additional_config": "use a mapping of transport settings, e.g. {log_file_path: lineage.json}",
    "freshness": "use a mapping of 'namespace/name' glob to seconds greater than 0, "
    f"e.g. {_FRESHNESS_EXAMPLE}",
    "retention_days": "use a whole number of days from 1 to 36500, or 0 to keep everything",
    "retention_check_interval_hours": "use a number of hours greater than 0",
    "max_request_bytes": "use a whole number of bytes, at least 1024",
    "max_batch_events": "use a whole number, at least 1",
    "body_budget_bytes": "use a whole number of bytes, at least 1024, or leave it unset "
    "to size it from the memory limit",
    "body_read_timeout_seconds": "use a number of seconds greater than 0",
    "body_min_rate_bytes_per_second": "use a whole number of bytes per second, 0 or more",
    "header_timeout_seconds": "use a number of seconds greater than 0",
    "transport_type": "use http, console, file or kafka, or leave it unset",
    "api_key": "set a non-empty key or remove it",
    "connection_string": "set a database URL such as sqlite:///data/lineage.db "
    "or remove the option to use the SQL registry's database",
}

# Drivers we know how to use: URL driver name -> (our driver name, module, how to install).
_DRIVERS: dict[str, tuple[str, str | None, str]] = {
    "sqlite": ("sqlite", None, ""),
    "sqlite+pysqlite": ("sqlite+pysqlite", None, ""),
    "postgres": ("postgresql+psycopg", "psycopg", "pip install 'feast-lineage[postgres]'"),
    "postgresql": ("postgresql+psycopg", "psycopg", "pip install 'feast-lineage[postgres]'"),
    "postgresql+psycopg": (
        "postgresql+psycopg",
        "psycopg",
        "pip install 'feast-lineage[postgres]'",
    ),
    "postgresql+psycopg2": (
        "postgresql+psycopg",
        "psycopg",
        "pip install 'feast-lineage[postgres]'",
    ),
    "mysql": ("mysql+pymysql", "pymysql", "pip install 'feast-lineage[mysql]'"),
    "mysql+pymysql": ("mysql+pymysql", "pymysql", "pip install 'feast-lineage[mysql]'"),
}

_VAR = re.compile(r"\$(\w+|\{[^}]*\})")


@dataclass(frozen=True)
class LineageConfig:
    """Everything the lineage code needs from one feature repository."""

    project: str
    repo_path: Path
    producer: ProducerSettings
    consumer: ConsumerSettings
    registry_type: str
    registry_path: str | None = field(repr=False)  # may hold a password
    feast_auth: str = "no_auth"  # feature_store.yaml auth.type

    def database_option(self) -> str:
        """The option the consumer store's URL comes from (for messages)."""
        if self.consumer.connection_string is not None:
            return "openlineage.consumer.connection_string"
        return "registry.path"

    def database_url(self) -> str:
        """The consumer store's SQLAlchemy URL (secret; never log it)."""
        if self.consumer.connection_string is not None:
            raw = self.consumer.connection_string.get_secret_value()
        elif self.registry_type == "sql" and self.registry_path:
            raw = self.registry_path
        elif self.registry_type == "sql":
            raise ConfigError(
                "registry.path",
                "is missing for the sql registry the consumer stores lineage in",
                "set registry.path to a database URL or set openlineage.consumer.connection_string",
            )
        else:
            raise ConfigError(
                "openlineage.consumer.connection_string",
                "the consumer stores lineage in SQL, but the registry is a "
                f"{self.registry_type} registry and no connection_string is set",
                "set openlineage.consumer.connection_string (e.g. sqlite:///data/lineage.db) "
                "or use registry_type: sql",
            )
        return normalize_database_url(raw, self.repo_path, self.database_option())


def normalize_database_url(raw: str, repo_path: Path, option: str) -> str:
    """Pick our drivers and resolve relative SQLite paths against the repo."""
    unset_var = " (is an environment variable in it unset?)" if "$" in raw else ""
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        raise ConfigError(
            option,
            f"is not a database URL{unset_var}",
            "use a URL such as sqlite:///data/lineage.db or postgresql://user@host:5432/db",
        ) from None
    known = _DRIVERS.get(url.drivername)
    if known is None:
        raise ConfigError(
            option,
            f"database driver {url.drivername!r} is not supported{unset_var}",
            "use sqlite:///..., postgresql://... or mysql+pymysql://...",
        )
    drivername, module, install = known
    if module is not None and importlib.util.find_spec(module) is None:
        raise ConfigError(
            option,
            f"{url.get_backend_name()} needs the {module} package, which is not installed",
            install,
        )
    url = url.set(drivername=drivername)
    if drivername.startswith("sqlite"):
        url = _sqlite_file(url, repo_path, option)
    return url.render_as_string(hide_password=False)


def _sqlite_file(url: URL, repo_path: Path, option: str) -> URL:
    database = url.database or ""
    if database in {"", ":memory:"} or url.query.get("mode") == "memory":
        raise ConfigError(
            option,
            "is an in-memory SQLite database, which loses every event and is not shared "
            "between the server's connections",
            "use a file such as sqlite:///data/lineage.db",
        )
    if database.startswith("file:"):
        return url
    path = Path(database).expanduser()
    if not path.is_absolute():
        path = repo_path / path
    return url.set(database=str(path.resolve()))


def expand_vars(text: str, env: Mapping[str, str]) -> str:
    """Expand ``$VAR`` and ``${VAR}`` from ``env``; unknown names stay as written.

    The same rule as Feast's (``os.path.expandvars``), but from any mapping.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("{"):
            name = name[1:-1]
        return env.get(name, match.group(0))

    return _VAR.sub(replace, text)


def _read_yaml(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    fix = "run from the feature repository or pass -c/--chdir or -f/--feature-store-yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("feature_store.yaml", f"{path} does not exist", fix) from None
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else type(err).__name__
        raise ConfigError("feature_store.yaml", f"cannot read {path} ({reason})", fix) from None
    try:
        data = yaml.safe_load(expand_vars(text, env))
    except yaml.YAMLError as err:
        raise ConfigError(
            "feature_store.yaml", f"is not valid YAML ({_yaml_problem(err)})", "fix the file"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("feature_store.yaml", "is not a mapping", "fix the file")
    return data


def _yaml_problem(err: yaml.YAMLError) -> str:
    # Only the problem and its position: PyYAML's own text quotes the line,
    # which may hold a secret.
    if isinstance(err, yaml.MarkedYAMLError):
        where = ""
        if err.problem_mark is not None:
            where = f" at line {err.problem_mark.line + 1}, column {err.problem_mark.column + 1}"
        return f"{err.problem or 'syntax error'}{where}"
    return "syntax error"


def _env_value(field_name: str, raw: str, env_name: str) -> Any:
    example = _JSON_EXAMPLES.get(field_name)
    if example is None:
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise ConfigError(
            env_name, "is not valid JSON", f"set a JSON object such as '{example}'"
        ) from None


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _located(
    model: type[BaseModel], loc: tuple[str | int, ...]
) -> tuple[type[BaseModel], list[str]]:
    """The model whose option ``loc`` names last (a nested one: an authorizer, a key's
    grant), and ``loc`` as the file writes it: without the ``type`` tags pydantic adds
    for the member of a discriminated union it checked."""
    holder, path, parts = model, [], list(loc)
    while parts:
        part = parts.pop(0)
        path.append(str(part))
        info = holder.model_fields.get(str(part))
        if info is None or not parts:
            break
        inner: Any = info.annotation
        if get_origin(inner) is list and isinstance(parts[0], int):
            path.append(str(parts.pop(0)))
            inner = get_args(inner)[0]
        if info.discriminator is not None and parts:
            tag = parts.pop(0)
            inner = next((m for m in get_args(inner) if _tagged(m, info.discriminator, tag)), None)
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            path += [str(p) for p in parts]
            break
        holder = inner
    return holder, path


def _tagged(member: Any, discriminator: Any, tag: str | int) -> bool:
    """Whether the union member ``member`` is the one the discriminator's value ``tag`` picks."""
    found = member.model_fields.get(discriminator) if isinstance(discriminator, str) else None
    return found is not None and tag in get_args(found.annotation)


def _config_error(
    first: ErrorDetails, model: type[BaseModel], section: str, env_names: Mapping[str, str]
) -> ConfigError:
    holder, loc = _located(model, first["loc"])  # (without pydantic's union tags)
    name = loc[0] if loc else ""
    rest = ".".join(loc[1:])
    # An error about several options: named by where each came from, when one came from
    # the environment (the section's name alone names no variable the user set).
    options = [str(o) for o in first.get("ctx", {}).get(OPTIONS_CTX, ())]
    if name in env_names:
        option = env_names[name] + (f" (at {rest!r})" if rest else "")
    elif not loc and any(o in env_names for o in options):
        option = " and ".join(env_names.get(o, f"{section}.{o}") for o in options)
    else:
        option = ".".join([section, *loc])
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return _tag_error(first, model, name, option)
    if first["type"] == "extra_forbidden":
        known = sorted(holder.model_fields)
        if holder is ProducerSettings:
            known = sorted([*known, "consumer"])
        return ConfigError(option, "is not a known option", f"use one of: {', '.join(known)}")
    message = first["msg"].removeprefix("Value error, ")
    return ConfigError(option, _lower_first(message), _fix(first, section, name))


def _tag_error(first: ErrorDetails, model: type[BaseModel], name: str, option: str) -> ConfigError:
    """A section that picks its kind by a key (an authorizer's ``type``) with that key
    missing or naming no kind: the kinds it takes, as the file writes them."""
    ctx = first.get("ctx", {})
    key = str(ctx.get("discriminator", "type")).strip("'")
    info = model.model_fields.get(name)
    members = get_args(info.annotation) if info is not None else ()
    tags = [
        str(tag)
        for member in members
        if isinstance(member, type) and issubclass(member, BaseModel) and key in member.model_fields
        for tag in get_args(member.model_fields[key].annotation)
    ]
    kinds = ", ".join(tags) or str(ctx.get("expected_tags", ""))
    if first["type"] == "union_tag_not_found":
        return ConfigError(option, f"has no {key}", f"set {key} to one of: {kinds}")
    return ConfigError(option, f"{key} {ctx.get('tag')!r} is not known", f"use one of: {kinds}")


def _fix(error: ErrorDetails, section: str, name: str) -> str:
    """What to do: the fix the error says, else the option's usual one, else where the
    option's section of docs/configuration.md is (one fix a message, never two)."""
    own = error.get("ctx", {}).get(FIX_CTX)
    if own:
        return str(own)
    if name in _FIXES:
        return _FIXES[name]
    return (
        f"see {'.'.join(filter(None, [section, name]))} in docs/configuration.md for valid values"
    )


def _build(
    model: type[BaseModel],
    data: Any,
    section: str,
    env: Mapping[str, str],
    env_names: Mapping[str, str],
) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(section, "must be a mapping", f"write {section} as a YAML mapping")
    overrides = {
        name: _env_value(name, env[env_name], env_name)
        for name, env_name in env_names.items()
        if env_name in env
    }
    used_env = {name: env_names[name] for name in overrides}
    try:
        return model.model_validate({**data, **overrides})
    except ValidationError as err:
        first = err.errors(include_url=False, include_input=False)[0]
    # Raised out here, the error holds no reference to pydantic's, whose input holds the
    # section's values, secrets included (``from None`` only hides it from tracebacks).
    raise _config_error(first, model, section, used_env)


def consumer_env_names() -> dict[str, str]:
    """Each consumer option's environment variable."""
    return {
        name: consumer_module.ENV_PREFIX + name.upper() for name in ConsumerSettings.model_fields
    }


def load_config(
    repo_path: Path | str = ".",
    fs_yaml_file: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    consumer_database: bool = True,
) -> LineageConfig:
    """Read the lineage configuration of the feature repository at ``repo_path``.

    ``consumer_database``: check that an enabled consumer has a usable
    database (commands that serve or read the lineage store); the producer
    checks it itself, and goes on without the in-process consumer.
    """
    env = os.environ if env is None else env
    repo = Path(repo_path).resolve()
    yaml_path = Path(fs_yaml_file) if fs_yaml_file else repo / "feature_store.yaml"
    if not yaml_path.is_absolute():
        yaml_path = (repo / yaml_path).resolve()
    data = _read_yaml(yaml_path, env)
    return config_from_data(data, repo, env, consumer_database=consumer_database)


def config_from_data(
    data: Mapping[str, Any],
    repo_path: Path | str,
    env: Mapping[str, str] | None = None,
    *,
    consumer_database: bool = True,
) -> LineageConfig:
    """The lineage configuration of an already parsed feature_store.yaml (``data``).

    The producer uses it with the settings Feast has loaded (its RepoConfig),
    without ``consumer_database`` (see :func:`load_config`).
    """
    env = os.environ if env is None else env
    repo = Path(repo_path).resolve()
    project = data.get("project")
    if not isinstance(project, str) or not project:
        raise ConfigError("project", "is missing", "set project: <name> in feature_store.yaml")

    section = data.get("openlineage") or {}
    if not isinstance(section, dict):
        raise ConfigError("openlineage", "must be a mapping", "write openlineage as a YAML mapping")
    producer_data = {k: v for k, v in section.items() if k != "consumer"}

    producer: ProducerSettings = _build(
        ProducerSettings, producer_data, "openlineage", env, ENV_NAMES
    )
    consumer: ConsumerSettings = _build(
        ConsumerSettings, section.get("consumer"), "openlineage.consumer", env, consumer_env_names()
    )
    if producer.enabled and producer.transport_type == "http" and not producer.transport_url:
        raise ConfigError(
            "openlineage.transport_url",
            "is required when transport_type is http",
            f"set it (or {ENV_NAMES['transport_url']}) to the lineage server, "
            "e.g. http://localhost:6580",
        )

    feast_auth = _feast_auth_type(data)
    consumer = _with_feast_authorizer(consumer, feast_auth)

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
        feast_auth=feast_auth,
    )
    if consumer.enabled and consumer_database:
        config.database_url()  # fails fast on a consumer without a usable database
    return config


def _feast_auth_type(data: Mapping[str, Any]) -> str:
    """feature_store.yaml's ``auth.type`` (Feast's default: ``no_auth``)."""
    auth = data.get("auth")
    if isinstance(auth, dict):
        return str(auth.get("type") or "no_auth")
    return auth if isinstance(auth, str) and auth else "no_auth"


def _with_feast_authorizer(consumer: ConsumerSettings, feast_auth: str) -> ConsumerSettings:
    """Reads follow Feast's permissions when Feast auth is on and no authorizer is set."""
    chosen = consumer.authorizer
    if isinstance(chosen, FeastAuthorizerSettings) and feast_auth not in FEAST_AUTH_TYPES:
        raise ConfigError(
            "openlineage.consumer.authorizer",
            f"is feast, but feature_store.yaml's auth is {feast_auth}",
            "configure Feast's auth section (type oidc or kubernetes), "
            "or choose the authorizer type open or api_keys",
        )
    if "authorizer" not in consumer.model_fields_set and feast_auth in FEAST_AUTH_TYPES:
        return consumer.model_copy(update={"authorizer": FeastAuthorizerSettings(type="feast")})
    return consumer
