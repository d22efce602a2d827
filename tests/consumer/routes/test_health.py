"""Liveness and readiness of the running app: ``GET /healthz`` and ``GET /readyz``.

What the port answers before the app runs (schema upgrading): tests/consumer/test_upgrading.py
and, in a real process, tests/test_listener.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from feast_lineage import __version__
from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.consumer.test_errors import assert_error_shape

PROBES = ["/healthz", "/readyz"]


def settings(tmp_path: Path) -> AppSettings:
    return AppSettings(
        consumer=ConsumerSettings(enabled=True, api_key="a-key"),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
        project="demo",
    )


@pytest.mark.parametrize("probe", PROBES)
def test_a_running_app_with_its_database_is_alive_and_ready(tmp_path: Path, probe: str) -> None:
    with TestClient(create_app(settings(tmp_path))) as client:
        response = client.get(probe)  # no key: probes carry none
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": __version__, "database": "sqlite"}


@pytest.mark.parametrize("probe", PROBES)
def test_without_its_database_it_is_neither(tmp_path: Path, probe: str) -> None:
    with TestClient(create_app(settings(tmp_path)), raise_server_exceptions=False) as client:
        state = client.app.state.consumer  # type: ignore[attr-defined]
        state.engine.dispose()
        for path in (tmp_path / "lineage.db", tmp_path / "lineage.db-wal"):
            path.unlink(missing_ok=True)
        (tmp_path / "lineage.db").mkdir()  # the volume is gone: nothing can open it
        response = client.get(probe)
    error = assert_error_shape(response, 503)
    assert error["code"] == "store_unavailable"
    assert "lineage.db" not in response.text


@pytest.mark.parametrize("probe", PROBES)
def test_before_the_app_has_started_it_is_not_ready(tmp_path: Path, probe: str) -> None:
    client = TestClient(create_app(settings(tmp_path)), raise_server_exceptions=False)
    assert assert_error_shape(client.get(probe), 503)["code"] == "store_unavailable"
