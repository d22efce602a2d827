"""openlineage-python clients for the producer's transport settings.

Every transport is openlineage-python's own, built by its transport factory
from a config dict:

* ``console``: events as JSON lines on stdout;
* ``http``: POST to ``transport_url`` + ``transport_endpoint``, with ``api_key``
  sent as openlineage-python's ``api_key`` auth (a Bearer token); any
  ``additional_config`` key (``timeout``, ``retry``, ``compression``,
  ``custom_headers``, ...) goes to the transport;
* ``file``: one JSON event per line, appended to
  ``additional_config.log_file_path`` (default ``openlineage_events.json``,
  relative paths resolved against the feature repository);
* ``kafka``: ``additional_config.topic`` (default ``openlineage.events``),
  optional ``message_key`` and ``flush``; every other key is Kafka client
  config, with ``_`` in names read as ``.`` (``bootstrap_servers`` is
  ``bootstrap.servers``). Needs the ``kafka`` extra (confluent-kafka).

With ``transport_type`` unset, openlineage-python's own defaults apply
(``OPENLINEAGE_URL``, ``openlineage.yml``, ``OPENLINEAGE__TRANSPORT__*``).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openlineage.client import OpenLineageClient
from openlineage.client.transport import get_default_factory

from feast_lineage.config import ConfigError, ProducerSettings

DEFAULT_LOG_FILE = "openlineage_events.json"
DEFAULT_KAFKA_TOPIC = "openlineage.events"
_KAFKA_OWN_KEYS = frozenset({"topic", "message_key", "messageKey", "flush"})
_CONSOLE_LOGGER = "openlineage.client.transport.console"


def transport_config(settings: ProducerSettings, repo_path: Path) -> dict[str, Any]:
    """openlineage-python's transport config dict for an explicit transport_type."""
    kind = settings.transport_type
    extra = dict(settings.additional_config)
    if kind == "console":
        return {"type": "console"}
    if kind == "http":
        if not settings.transport_url:
            raise ConfigError(
                "openlineage.transport_url",
                "is required when transport_type is http",
                "set it to the lineage server, e.g. http://localhost:6580",
            )
        config: dict[str, Any] = {
            **extra,
            "type": "http",
            "url": settings.transport_url,
            "endpoint": settings.transport_endpoint,
        }
        if settings.api_key is not None:
            config["auth"] = {"type": "api_key", "apiKey": settings.api_key.get_secret_value()}
        return config
    if kind == "file":
        path = Path(str(extra.pop("log_file_path", DEFAULT_LOG_FILE))).expanduser()
        if "://" not in str(path) and not path.is_absolute():
            path = repo_path / path
        return {"append": True, **extra, "type": "file", "log_file_path": str(path)}
    if kind == "kafka":
        if importlib.util.find_spec("confluent_kafka") is None:
            raise ConfigError(
                "openlineage.transport_type",
                "kafka needs the confluent-kafka package, which is not installed",
                "pip install 'feast-lineage[kafka]', or pick another transport",
            )
        return kafka_config(extra)
    raise ConfigError("openlineage.transport_type", f"{kind!r} is not a transport", "see docs")


def kafka_config(extra: Mapping[str, Any]) -> dict[str, Any]:
    """The kafka transport config of ``additional_config``."""
    kafka = {
        key.replace("_", "."): value
        for key, value in extra.items()
        if key not in _KAFKA_OWN_KEYS and key != "config"
    }
    kafka.update(extra.get("config") or {})
    config: dict[str, Any] = {
        "type": "kafka",
        "topic": extra.get("topic", DEFAULT_KAFKA_TOPIC),
        "config": kafka,
        "flush": bool(extra.get("flush", True)),
    }
    key = extra.get("message_key", extra.get("messageKey"))
    if key:
        config["messageKey"] = key
    return config


def defaults_configured(env: Mapping[str, str]) -> bool:
    """Whether openlineage-python's own config names a transport (not just its fallback)."""
    if env.get("OPENLINEAGE_URL") or env.get("OPENLINEAGE_DISABLED", "").lower() == "true":
        return True
    if any(key.startswith("OPENLINEAGE__TRANSPORT") for key in env):
        return True
    candidates = [
        env.get("OPENLINEAGE_CONFIG"),
        os.path.join(os.getcwd(), "openlineage.yml"),
        os.path.join(os.path.expanduser("~/.openlineage"), "openlineage.yml"),
    ]
    return any(path and os.path.isfile(path) for path in candidates)


def build_client(
    settings: ProducerSettings,
    repo_path: Path,
    *,
    local_sink: bool,
    env: Mapping[str, str] | None = None,
) -> OpenLineageClient | None:
    """The client for the settings, or None when only the local store gets events.

    Raises ConfigError (or openlineage-python's own error) for an unusable config.
    """
    env = os.environ if env is None else env
    if settings.transport_type is None:
        if local_sink and not defaults_configured(env):
            return None
        return OpenLineageClient()
    config = transport_config(settings, repo_path)
    if config["type"] == "console":
        _console_to_stdout()
    return OpenLineageClient(transport=get_default_factory().create(config))


class _StdoutHandler(logging.Handler):
    """Writes each record's message to the current ``sys.stdout``."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stdout.write(record.getMessage() + "\n")
            sys.stdout.flush()
        except Exception:  # a closed stdout must not break a Feast command
            self.handleError(record)


def _console_to_stdout() -> None:
    """openlineage-python's console transport logs at INFO; show those lines on stdout."""
    logger = logging.getLogger(_CONSOLE_LOGGER)
    if not any(isinstance(h, _StdoutHandler) for h in logger.handlers):
        logger.addHandler(_StdoutHandler())
    logger.setLevel(logging.INFO)
    logger.propagate = False
