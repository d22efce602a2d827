"""Every SQLite connection the lineage store opens is closed when its owner stops.

Python 3.13 warns (ResourceWarning) when an unclosed SQLite connection is collected.
The pytest configuration ignores that warning, because Feast's own SQLite online store
never closes its connections and the warning cannot be traced to whose connection it
was; this test checks ours instead, on every Python: each connection that the lineage
server and the producer's local store open is closed once they stop.
"""

from __future__ import annotations

import sqlite3
import sqlite3.dbapi2
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.embedded import LocalStore
from feast_lineage.consumer.settings import AppSettings
from tests.factories import dataset, run_event


class _Tracked(sqlite3.Connection):
    closed = False

    def close(self) -> None:
        self.closed = True
        super().close()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[_Tracked]:
    """The SQLite connections opened from now on (SQLAlchemy opens them through dbapi2)."""
    connections: list[_Tracked] = []
    real = sqlite3.dbapi2.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = real(*args, factory=_Tracked, **kwargs)
        connections.append(connection)
        return connection

    monkeypatch.setattr(sqlite3.dbapi2, "connect", connect)
    monkeypatch.setattr(sqlite3, "connect", connect)
    return connections


def _event() -> dict[str, Any]:
    return run_event("COMPLETE", inputs=[dataset("raw", "trips")], outputs=[dataset("dw", "t")])


def test_the_server_closes_its_connections_when_it_stops(
    opened: list[_Tracked], tmp_path: Path
) -> None:
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True), database_url=f"sqlite:///{tmp_path / 'l.db'}"
    )
    with TestClient(create_app(settings)) as client:
        assert client.post("/api/v1/lineage", json=_event()).status_code < 300
        assert client.get("/api/v1/lineage/openlineage/events").json()["total"] == 1
    assert opened
    assert [c for c in opened if not c.closed] == []


def test_the_local_store_closes_its_connections(opened: list[_Tracked], tmp_path: Path) -> None:
    store = LocalStore(f"sqlite:///{tmp_path / 'l.db'}")
    store.write([orjson.dumps(_event())])
    store.close()
    assert opened
    assert [c for c in opened if not c.closed] == []
