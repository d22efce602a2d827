"""Self-reporting, lineage-sync and teardown with the consumer in the same repository.

Feast's events go straight into the local lineage store (and to the
configured transport too); the consumer's own API then shows them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import load_config
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.postgres import free_port
from tests.producer.conftest import invoke
from tests.producer.feast_repo import file_transport, read_events, write_config, write_repo

READS = "/api/v1/lineage/openlineage"
APPLY_JOBS = {
    "feast_apply_entities",
    "feast_apply_data_sources",
    "feast_apply_feature_view_driver_hourly_stats",
    "feast_apply_feature_view_driver_fresh_stats",
    "feast_apply_feature_view_customer_profile",
    "feast_apply_odfv_expected_trips",
    "feast_apply_feature_service_driver_activity",
    "feast_apply_feature_service_customer_overview",
}


@dataclass
class Repo:
    root: Path
    events_path: Path

    def client(self) -> TestClient:
        settings = AppSettings.from_config(load_config(self.root), standalone=True)
        return TestClient(create_app(settings))


def openlineage(events: Path, **extra: Any) -> dict[str, Any]:
    return {**file_transport(events), "consumer": {"enabled": True}, **extra}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    root = tmp_path_factory.mktemp("self_report")
    events = root / "events.jsonl"
    write_repo(root, openlineage=openlineage(events))
    invoke("-c", str(root), "apply")
    return Repo(root, events)


@pytest.fixture
def api(repo: Repo) -> Iterator[TestClient]:
    with repo.client() as client:
        yield client


def graph(api: TestClient, namespace: str = "demo") -> dict[str, Any]:
    response = api.get(
        "/api/v1/lineage/openlineage/graph", params={"namespace": namespace, "limit": 5000}
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_apply_lands_in_the_local_store_and_the_transport(repo: Repo, api: TestClient) -> None:
    found = graph(api)
    jobs = {n["name"] for n in found["nodes"] if n["kind"] == "job"}
    assert jobs == APPLY_JOBS
    datasets = {n["name"]: n for n in found["nodes"] if n["kind"] == "dataset"}
    assert datasets["feature_view/driver_hourly_stats"]["feast"]["type"] == "feature_view"
    assert datasets["feature_view/expected_trips"]["feast"]["type"] == "on_demand_feature_view"
    assert datasets["entity/driver"]["feast"]["type"] == "entity"
    assert datasets["feature_service/driver_activity"]["feast"]["type"] == "feature_service"
    edges = {(e["source"], e["target"], e["type"]) for e in found["edges"]}
    assert (
        "dataset:demo:data_source/driver_stats_source",
        "job:demo:feast_apply_feature_view_driver_hourly_stats",
        "input",
    ) in edges
    assert (
        "job:demo:feast_apply_feature_service_driver_activity",
        "dataset:demo:feature_service/driver_activity",
        "output",
    ) in edges
    # The configured file transport got the same events.
    assert {e["job"]["name"] for e in read_events(repo.events_path)} == APPLY_JOBS


def test_materialize_runs_land_in_the_local_store(repo: Repo, api: TestClient) -> None:
    invoke("-c", str(repo.root), "materialize", "2026-01-08T00:00:00", "2026-01-11T00:00:00")
    runs = api.get(
        "/api/v1/lineage/openlineage/runs",
        params={"job_namespace": "demo", "job_name": "feast_materialize"},
    ).json()
    assert [run["state"] for run in runs["runs"]] == ["COMPLETE"]
    children = api.get(
        "/api/v1/lineage/openlineage/runs",
        params={
            "job_namespace": "demo",
            "job_name": "feast_materialize_feature_view_driver_hourly_stats",
        },
    ).json()
    assert [run["state"] for run in children["runs"]] == ["COMPLETE"]
    names = {n["name"] for n in graph(api)["nodes"]}
    assert "online_store/driver_hourly_stats" in names


def test_lineage_sync_is_idempotent(repo: Repo, api: TestClient) -> None:
    before = graph(api)
    result = invoke("-c", str(repo.root), "lineage-sync")
    assert "Sent 8 lineage events of project demo to the file transport and " in result.output
    once = graph(api)
    invoke("-c", str(repo.root), "lineage-sync")
    twice = graph(api)

    def shape(g: dict[str, Any]) -> tuple[set[str], set[tuple[str, str, str]]]:
        return (
            {n["id"] for n in g["nodes"]},
            {(e["source"], e["target"], e["type"]) for e in g["edges"]},
        )

    assert shape(once) == shape(twice) == shape(before)


def test_teardown_removes_the_projects_lineage(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=openlineage(events))
    invoke("-c", str(root), "apply")
    repo = Repo(root, events)
    with repo.client() as api:
        other = api.post(
            "/api/v1/lineage",
            json={
                "eventType": "COMPLETE",
                "eventTime": "2026-01-01T00:00:00Z",
                "producer": "https://example.com/spark",
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                "run": {"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
                "job": {"namespace": "spark://ml", "name": "etl"},
            },
        )
        assert other.status_code == 201
        assert graph(api)["nodes"]
        there = {
            kind: api.get(f"{READS}/{kind}", params={"namespace": "demo"}).json()["total"]
            for kind in ("events", "jobs", "datasets")
        }
    assert there["events"] == len(APPLY_JOBS)
    assert there["datasets"] > 0
    torn = invoke("-c", str(root), "teardown")
    # It says what it removed (and emits nothing: the events file has only apply's).
    assert (
        f"removed {there['events']} events, {there['events']} runs, {there['jobs']} jobs, "
        f"{there['datasets']} datasets of namespace demo from the lineage store"
    ) in torn.output
    assert len(read_events(events)) == len(APPLY_JOBS)
    with repo.client() as api:
        assert graph(api)["nodes"] == []
        assert graph(api, "spark://ml")["nodes"]  # other namespaces stay
    with closing(sqlite3.connect(root / "data" / "online.db")) as conn:
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    assert tables == []  # Feast's own teardown ran


def test_lineage_sync_needs_lineage_on(tmp_path: Path) -> None:
    root, _ = write_repo(tmp_path)
    result = invoke("-c", str(root), "lineage-sync", expect_ok=False)
    assert result.exit_code == 1
    assert "openlineage.enabled is false" in result.output


def test_lineage_sync_fails_when_nothing_was_delivered(tmp_path: Path) -> None:
    root, _ = write_repo(tmp_path)
    invoke("-c", str(root), "apply")
    write_config(
        root,
        openlineage={
            "enabled": True,
            "transport_type": "http",
            "transport_url": f"http://127.0.0.1:{free_port()}",
            "additional_config": {"retry": {"total": 0}},
        },
    )
    result = invoke("-c", str(root), "lineage-sync", expect_ok=False)
    assert result.exit_code == 1
    assert "8 lineage events of project demo could not be sent to the http transport" in (
        result.output
    )
