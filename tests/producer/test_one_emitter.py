"""One emitter, never two: each operation sends our events once and nothing of Feast's.

Feast 0.60+ has an emitter of its own, switched on by the same ``openlineage``
section. Both would send to the same collector here: a real HTTP server that
keeps every event posted to it. A plain ``feast.FeatureStore`` on the same
repository is the control: on 0.60+ it does send Feast's own events there.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import feast
import pandas as pd
import pytest

from feast_lineage import FeatureStore
from feast_lineage.config import ProducerSettings
from feast_lineage.producer.naming import producer_uri
from feast_lineage.registry.repo_config import declares_section
from tests.producer.conftest import invoke
from tests.producer.feast_repo import DRIVERS, NOW, feast_objects, load_module, write_repo

OURS = producer_uri(ProducerSettings())
VIEWS = ["customer_profile", "driver_fresh_stats", "driver_hourly_stats"]
APPLY_JOBS = {
    "feast_apply_entities",
    "feast_apply_data_sources",
    "feast_apply_feature_view_customer_profile",
    "feast_apply_feature_view_driver_fresh_stats",
    "feast_apply_feature_view_driver_hourly_stats",
    "feast_apply_odfv_expected_trips",
    "feast_apply_feature_service_customer_overview",
    "feast_apply_feature_service_driver_activity",
}
FEAST_HAS_AN_EMITTER = declares_section(feast.RepoConfig)


class Collector:
    """A lineage collector on a real socket: every event posted, in order."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with collector._lock:
                    collector.events.extend(body if isinstance(body, list) else [body])
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            taken, self.events = self.events, []
        return taken


@pytest.fixture
def collector() -> Iterator[Collector]:
    collector = Collector()
    thread = threading.Thread(target=collector.http.serve_forever, daemon=True)
    thread.start()
    yield collector
    collector.http.shutdown()
    collector.http.server_close()


def jobs(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((e["job"]["name"], e.get("eventType", "")) for e in events)


def test_each_operation_sends_our_events_once_and_none_of_feasts(
    tmp_path: Path, collector: Collector
) -> None:
    section = {
        "enabled": True,
        "transport_type": "http",
        "transport_url": collector.url,
        "online_retrieval_interval_seconds": 0,
    }
    root, base = write_repo(tmp_path / "repo", openlineage=section)

    invoke("-c", str(root), "apply")
    applied = collector.take()
    assert jobs(applied) == sorted((job, "COMPLETE") for job in APPLY_JOBS)

    invoke("-c", str(root), "materialize", "2026-01-08T00:00:00", "2026-01-11T00:00:00")
    materialized = collector.take()
    expected = [("feast_materialize", "COMPLETE"), ("feast_materialize", "START")]
    for view in VIEWS:
        expected += [
            (f"feast_materialize_feature_view_{view}", "COMPLETE"),
            (f"feast_materialize_feature_view_{view}", "START"),
        ]
    assert jobs(materialized) == sorted(expected)

    store = FeatureStore(repo_path=str(root))
    entities = pd.DataFrame({"driver_id": DRIVERS[:2], "event_timestamp": [NOW, NOW]})
    store.get_historical_features(
        entity_df=entities, features=["driver_hourly_stats:conv_rate"]
    ).to_df()
    store.get_online_features(
        features=["driver_hourly_stats:conv_rate"], entity_rows=[{"driver_id": DRIVERS[0]}]
    )
    assert jobs(collector.take()) == [
        ("feast_get_historical_features", "COMPLETE"),
        ("feast_get_online_features", "COMPLETE"),
    ]

    invoke("-c", str(root), "apply")  # nothing changed
    assert collector.take() == []
    assert {e["producer"] for e in applied + materialized} == {OURS}

    # The control: Feast's own FeatureStore, given the same repository.
    feast.FeatureStore(repo_path=str(root)).apply(feast_objects(load_module(root, base)))
    theirs = collector.take()
    if FEAST_HAS_AN_EMITTER:
        assert theirs, "Feast's own emitter sent nothing: the checks above prove nothing"
        assert OURS not in {e["producer"] for e in theirs}
    else:
        assert theirs == []  # Feast 0.59 has no lineage of its own

    invoke("-c", str(root), "teardown")
    assert collector.take() == []


def _lineage_tables(database: Path) -> list[str]:
    with closing(sqlite3.connect(database)) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return sorted(name for (name,) in rows if name.startswith("openlineage"))


def _has_module(name: str) -> bool:
    """Whether the installed Feast has module ``name`` (looked up, not imported)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its package is missing
        return False


@pytest.mark.skipif(
    not _has_module("feast.openlineage.consumer"),
    reason="Feast's servers start a lineage consumer of their own from Feast 0.65 on",
)
def test_feasts_servers_start_no_consumer_of_feasts_for_our_store(tmp_path: Path) -> None:
    """Feast's REST registry server and `feast ui` add Feast's consumer to their app.

    Both call ``feast.api.registry.rest._register_openlineage_consumer`` with
    the store they serve, when they build their app; it is called here
    directly, because Feast 0.67's REST app itself does not start with the
    FastAPI of our lock (FastAPI no longer takes unknown arguments).
    """
    from fastapi import FastAPI
    from feast.api.registry import rest

    section = {"enabled": False, "consumer": {"enabled": True}}
    root, _ = write_repo(tmp_path / "repo", openlineage=section)
    registry = root / "data" / "registry.db"
    invoke("-c", str(root), "apply")
    app = FastAPI()
    bare = len(app.routes)
    rest._register_openlineage_consumer(app, FeatureStore(repo_path=str(root)))
    assert _lineage_tables(registry) == []
    assert len(app.routes) == bare

    # The control: with Feast's own FeatureStore, Feast's consumer starts.
    rest._register_openlineage_consumer(app, feast.FeatureStore(repo_path=str(root)))
    assert "openlineage_events" in _lineage_tables(registry)
    assert len(app.routes) > bare
