"""Transports (openlineage-python's own), and failures that never break Feast."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from feast_lineage.config import ConfigError, ProducerSettings
from feast_lineage.producer.transports import build_client, kafka_config, transport_config
from tests.postgres import free_port
from tests.producer.feast_repo import feast_objects, load_module, with_section, write_repo
from tests.server_process import lineage_server
from tests.server_process import write_repo as write_server_repo

KEY = "producer-secret"  # pragma: allowlist secret


@pytest.fixture
def clean_env() -> Iterator[None]:
    """openlineage-python writes OPENLINEAGE__* aliases into os.environ: undo them."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def settings(**values: Any) -> ProducerSettings:
    return ProducerSettings(enabled=True, **values)


# --- transport configs ---------------------------------------------------------


def test_http_config_sends_the_api_key_as_openlineage_api_key_auth(tmp_path: Path) -> None:
    config = transport_config(
        settings(
            transport_type="http",
            transport_url="http://lineage:6580",
            api_key=KEY,
            additional_config={"timeout": 2, "compression": "gzip"},
        ),
        tmp_path,
    )
    assert config == {
        "type": "http",
        "url": "http://lineage:6580",
        "endpoint": "api/v1/lineage",
        "auth": {"type": "api_key", "apiKey": KEY},
        "timeout": 2,
        "compression": "gzip",
    }


def test_file_config_appends_to_log_file_path_relative_to_the_repository(
    tmp_path: Path,
) -> None:
    config = transport_config(
        settings(transport_type="file", additional_config={"log_file_path": "out/ev.jsonl"}),
        tmp_path,
    )
    assert config == {
        "type": "file",
        "log_file_path": str(tmp_path / "out" / "ev.jsonl"),
        "append": True,
    }
    default = transport_config(settings(transport_type="file"), tmp_path)
    assert default["log_file_path"] == str(tmp_path / "openlineage_events.json")


def test_kafka_additional_config_is_the_kafka_client_config() -> None:
    assert kafka_config(
        {
            "bootstrap_servers": "localhost:9092",
            "topic": "openlineage.events",
            "security.protocol": "SSL",
            "message_key": "feast",
        }
    ) == {
        "type": "kafka",
        "topic": "openlineage.events",
        "config": {"bootstrap.servers": "localhost:9092", "security.protocol": "SSL"},
        "flush": True,
        "messageKey": "feast",
    }


def test_kafka_without_confluent_kafka_says_how_to_install_it(tmp_path: Path) -> None:
    pytest.importorskip("feast")  # the message, not Kafka itself, is under test
    with pytest.raises(ConfigError, match=r"pip install 'feast-lineage\[kafka\]'"):
        transport_config(settings(transport_type="kafka"), tmp_path)


def test_unset_transport_defers_to_openlineage_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None
) -> None:
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    # Self-reporting with nothing configured: the local store only.
    assert build_client(settings(), tmp_path, local_sink=True) is None
    # OPENLINEAGE_URL configures openlineage-python's http transport.
    monkeypatch.setenv("OPENLINEAGE_URL", "http://collector:5000")
    client = build_client(settings(), tmp_path, local_sink=True)
    assert client is not None
    assert client.transport.kind == "http"
    assert client.transport.url == "http://collector:5000"
    # So does openlineage.yml.
    monkeypatch.delenv("OPENLINEAGE_URL")
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    (tmp_path / "openlineage.yml").write_text(
        f"transport:\n  type: file\n  log_file_path: {tmp_path / 'yml.jsonl'}\n"
    )
    client = build_client(settings(), tmp_path, local_sink=True)
    assert client is not None
    assert client.transport.kind == "file"


# --- through a real feature store ----------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("transports")
    root, base = write_repo(root)
    from feast import FeatureStore

    FeatureStore(repo_path=str(root)).apply(feast_objects(load_module(root, base)))
    return root


def store_with(root: Path, openlineage: dict[str, Any]) -> Any:
    from feast.repo_config import load_repo_config

    from feast_lineage import FeatureStore

    config = load_repo_config(root, root / "feature_store.yaml")
    return FeatureStore(repo_path=str(root), config=with_section(config, openlineage))


def test_console_transport_prints_one_json_event_per_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = store_with(repo, {"enabled": True, "transport_type": "console"})
    result = store.sync_lineage()
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert result.events == len(lines) == 8
    assert json.loads(lines[0])["job"]["name"] == "feast_apply_entities"


def test_file_transport_appends_across_operations(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    openlineage = {
        "enabled": True,
        "transport_type": "file",
        "additional_config": {"log_file_path": str(path)},
    }
    store_with(repo, openlineage).sync_lineage()
    store_with(repo, openlineage).sync_lineage()
    lines = path.read_text().splitlines()
    assert len(lines) == 16
    assert all(json.loads(line)["eventType"] == "COMPLETE" for line in lines)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = write_server_repo(tmp_path_factory.mktemp("server"), consumer={"api_key": KEY})
    with lineage_server(root) as running:
        yield running


def test_http_transport_reaches_the_lineage_server_with_the_api_key(
    repo: Path, server: Any
) -> None:
    store = store_with(
        repo,
        {
            "enabled": True,
            "transport_type": "http",
            "transport_url": server.url,
            "api_key": KEY,
            "namespace": "team",
        },
    )
    result = store.sync_lineage()
    assert result.failed == []
    page = httpx.get(
        f"{server.url}/api/v1/lineage/openlineage/events",
        params={"namespace": "team/demo", "limit": 100},
        headers={"X-API-Key": KEY},
    ).json()
    assert page["total"] == 8
    event = page["events"][0]["event"]
    facet = event["job"]["facets"]["feast_project"]
    # _schemaURL points at the schema this server serves.
    assert facet["_schemaURL"].startswith(f"{server.url}/api/v1/lineage/facets/")
    served = httpx.get(facet["_schemaURL"].split("#")[0])
    assert served.status_code == 200
    assert "FeastProjectFacet" in served.json()["$defs"]


def test_a_refused_api_key_is_one_warning_and_feast_goes_on(
    repo: Path, server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = store_with(
        repo,
        {
            "enabled": True,
            "transport_type": "http",
            "transport_url": server.url,
            "api_key": "wrong-key",
            "additional_config": {"retry": {"total": 0}},
        },
    )
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        result = store.sync_lineage()
    assert result.failed == ["the http transport"]
    warnings = [r for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1
    assert "401" in warnings[0].getMessage()


class _Counting(BaseHTTPRequestHandler):
    posts = 0

    def do_POST(self) -> None:
        type(self).posts += 1
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(503)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_a_failing_collector_costs_one_request_per_operation(
    repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    http = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{http.server_address[1]}"
        store = store_with(
            repo,
            {
                "enabled": True,
                "transport_type": "http",
                "transport_url": url,
                "additional_config": {"retry": {"total": 0}},
            },
        )
        with caplog.at_level(logging.WARNING, logger="feast_lineage"):
            first = store.sync_lineage()
            second = store.sync_lineage()
    finally:
        http.shutdown()
        http.server_close()
    assert first.events == second.events == 8
    assert _Counting.posts == 2  # one per operation, not one per event
    assert len([r for r in caplog.records if r.name.startswith("feast_lineage")]) == 1


def test_a_closed_port_never_breaks_apply_or_materialize(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from datetime import datetime

    openlineage = {
        "enabled": True,
        "transport_type": "http",
        "transport_url": f"http://127.0.0.1:{free_port()}",
        # openlineage-python's retries, with short pauses.
        "additional_config": {"retry": {"backoff_factor": 0.01}},
    }
    root, base = write_repo(tmp_path, openlineage=openlineage)
    from feast_lineage import FeatureStore

    store = FeatureStore(repo_path=str(root))
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        store.apply(feast_objects(load_module(root, base)))
        store.materialize(datetime(2026, 1, 8), datetime(2026, 1, 11))
    assert {v.name for v in store.list_feature_views()} >= {"driver_hourly_stats"}
    online = store.get_online_features(
        features=["driver_hourly_stats:conv_rate"], entity_rows=[{"driver_id": 1001}]
    ).to_dict()
    assert online["conv_rate"][0] is not None
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1
    assert "the http transport" in warnings[0]


@pytest.mark.parametrize(
    ("openlineage", "message"),
    [
        ({"enabled": True, "transport_type": "http"}, "transport_url: is required"),
        ({"enabled": True, "transport_type": "kafka"}, "feast-lineage[kafka]"),
        ({"enabled": True, "transport_type": "carrier-pigeon"}, "transport_type"),
    ],
    ids=["http-without-url", "kafka-without-package", "unknown-transport"],
)
def test_a_bad_transport_config_is_a_warning_and_feast_goes_on(
    repo: Path, openlineage: dict[str, Any], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        store = store_with(repo, openlineage)
        services = store.list_feature_services()
    assert {s.name for s in services} == {"driver_activity", "customer_overview"}
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1
    assert message in warnings[0]


def test_a_url_without_a_transport_type_is_a_warning_naming_the_fix(
    repo: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENLINEAGE", "FEAST_OPENLINEAGE")):
            monkeypatch.delenv(name)
    url = "http://feast:s3cret@collector.example:5000"
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        store_with(repo, {"enabled": True, "transport_url": url})
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1, warnings
    assert "set transport_type: http" in warnings[0]
    assert "http://collector.example:5000" in warnings[0]
    assert "s3cret" not in caplog.text
