from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, facet, run_event
from tests.quickstart import load_quickstart

SQLITE = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)
RUN_ENDPOINTS = ("", "/tree", "/lineage")


def test_runs_are_listed_newest_first_and_filtered(client: TestClient) -> None:
    ids = [str(uuid.uuid4()) for _ in range(4)]
    ingest(
        client,
        run_event("START", run_id=ids[0], job=("a", "load"), time=at(0)),
        run_event("COMPLETE", run_id=ids[0], job=("a", "load"), time=at(5)),
        run_event("START", run_id=ids[1], job=("a", "load"), time=at(10)),
        run_event("FAIL", run_id=ids[1], job=("a", "load"), time=at(12)),
        run_event("START", run_id=ids[2], job=("b", "load"), time=at(20)),
        run_event("START", run_id=ids[3], job=("a", "other"), time=at(30)),
    )
    body = client.get(f"{API}/runs").json()
    assert [r["run_id"] for r in body["runs"]] == [ids[3], ids[2], ids[1], ids[0]]
    assert body["total"] == 4
    first = body["runs"][3]
    assert first["state"] == "COMPLETE"
    assert first["duration_ms"] == 5000
    assert first["started_at_iso"] == "2026-01-01T12:00:00Z"

    def run_ids(**params: str) -> list[str]:
        response = client.get(f"{API}/runs", params=params)
        assert response.status_code == 200, response.text
        return [r["run_id"] for r in response.json()["runs"]]

    assert run_ids(job_namespace="a", job_name="load") == [ids[1], ids[0]]
    assert run_ids(job_name="load") == [ids[2], ids[1], ids[0]]
    assert run_ids(job_namespace="b") == [ids[2]]
    assert run_ids(state="running") == [ids[3], ids[2]]
    assert run_ids(state="FAIL") == [ids[1]]
    assert run_ids(limit="1", offset="3") == [ids[0]]
    bad = client.get(f"{API}/runs", params={"state": "DONE"})
    assert bad.status_code == 400
    assert "state" in bad.json()["error"]["message"]


def test_run_detail_has_times_io_facets_parent_and_children(client: TestClient) -> None:
    parent, child = str(uuid.uuid4()), str(uuid.uuid4())
    ingest(
        client,
        run_event("START", run_id=parent, job=("airflow://prod", "dag"), time=at(0)),
        run_event(
            "START",
            run_id=child,
            job=("airflow://prod", "dag.task"),
            time=at(1),
            parent=(parent, ("airflow://prod", "dag")),
            inputs=[dataset("s3://bucket", "in")],
            run_facets={"nominalTime": facet(nominalStartTime=at(0))},
        ),
        run_event(
            "COMPLETE",
            run_id=child,
            job=("airflow://prod", "dag.task"),
            time=at(3),
            outputs=[dataset("s3://bucket", "out")],
        ),
    )
    detail = client.get(f"{API}/runs/{child}").json()
    assert detail["state"] == "COMPLETE"
    assert detail["started_at_iso"] == "2026-01-01T12:00:01Z"
    assert detail["ended_at_iso"] == "2026-01-01T12:00:03Z"
    assert detail["duration_ms"] == 2000
    assert detail["parent_run_id"] == parent
    assert [d["name"] for d in detail["inputs"]] == ["in"]
    assert [d["name"] for d in detail["outputs"]] == ["out"]
    assert set(detail["facets"]) == {"nominalTime", "parent"}
    assert client.get(f"{API}/runs/{parent}").json()["child_run_ids"] == [child]


def test_unknown_or_malformed_run_ids(client: TestClient) -> None:
    missing = client.get(f"{API}/runs/{uuid.uuid4()}")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    bad = client.get(f"{API}/runs/not-a-uuid")
    assert bad.status_code == 400
    assert "run_id" in bad.json()["error"]["message"]


@SQLITE
@pytest.mark.parametrize("endpoint", RUN_ENDPOINTS)
def test_a_malformed_run_id_is_named_as_a_path_parameter(client: TestClient, endpoint: str) -> None:
    """As every other path parameter is (``path parameter 'version_id': ...``)."""
    bad = client.get(f"{API}/runs/not-a-uuid{endpoint}")
    assert bad.status_code == 400
    assert bad.json()["error"]["message"] == (
        "path parameter 'run_id': 'not-a-uuid' is not a UUID; "
        "pass one such as 0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"
    )


@SQLITE
@pytest.mark.parametrize("endpoint", RUN_ENDPOINTS)
def test_an_unknown_run_says_how_to_list_the_runs(client: TestClient, endpoint: str) -> None:
    missing = str(uuid.uuid4())
    response = client.get(f"{API}/runs/{missing}{endpoint}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        f"no run with run_id {missing}; list them with GET /api/v1/lineage/openlineage/runs"
    )


@SQLITE
def test_the_quickstart_s_failed_export_reports_no_rows_written(
    make_client: AppFactory, tmp_path: Path
) -> None:
    """Today's export_daily_trips fails: it wrote nothing, so its run has no output
    statistics (the run history's rows written is empty); the nights it succeeded, 35."""
    quickstart = load_quickstart()
    client = make_client()
    ingest(client, *quickstart.other_producers(tmp_path, datetime.now(UTC)))

    def written(days_ago: int) -> tuple[str, list[object]]:
        detail = client.get(f"{API}/runs/{quickstart.run_id('export', days_ago)}").json()
        facets = [(o.get("facets") or {}).get("outputStatistics") for o in detail["outputs"]]
        return detail["state"], [o["statistics"] for o in detail["outputs"]] + facets

    state, stats = written(0)
    assert state == "FAIL"
    assert all(s is None for s in stats), stats
    for days_ago in (3, 1):
        state, stats = written(days_ago)
        assert state == "COMPLETE"
        assert stats[0]["rows"] == 35  # type: ignore[index]
