from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset_event, run_event


def seed(client: TestClient) -> list[str]:
    runs = [str(uuid.uuid4()) for _ in range(3)]
    events = []
    for i, run in enumerate(runs):
        job = ("airflow://prod", f"job{i % 2}")
        events.append(run_event("START", run_id=run, job=job, time=at(i * 100)))
        events.append(run_event("COMPLETE", run_id=run, job=job, time=at(i * 100 + 50)))
    events.append(dataset_event("s3://bucket", "table", time=at(1000)))
    # Arrival order is not time order.
    ingest(client, *reversed(events))
    return runs


def test_events_are_newest_first_with_a_true_total(client: TestClient) -> None:
    seed(client)
    body = client.get(f"{API}/events").json()
    assert body["total"] == 7
    times = [e["event_time_iso"] for e in body["events"]]
    assert times == sorted(times, reverse=True)
    assert body["events"][0]["kind"] == "dataset"
    pages = [
        client.get(f"{API}/events", params={"limit": 2, "offset": o}).json()["events"]
        for o in range(0, 8, 2)
    ]
    assert [e["id"] for p in pages for e in p] == [e["id"] for e in body["events"]]


def test_event_filters(client: TestClient) -> None:
    runs = seed(client)

    def total(**params: str) -> int:
        response = client.get(f"{API}/events", params=params)
        assert response.status_code == 200, response.text
        return int(response.json()["total"])

    assert total(namespace="airflow://prod") == 6
    assert total(namespace="s3://bucket") == 1
    assert total(job_name="job0") == 4
    assert total(job_name="job0", namespace="airflow://prod") == 4
    assert total(job_name="job0", namespace="elsewhere") == 0
    assert total(run_id=runs[1]) == 2
    assert total(run_id=runs[1].upper()) == 2
    assert total(event_type="complete") == 3
    assert total(since=at(100), until=at(200)) == 2
    assert total(since=at(150)) == 4
    assert total(since=at(100), until=at(100)) == 0  # [since, until): an empty window
    assert (
        client.get(f"{API}/runs", params={"since": at(100), "until": at(100)}).json()["total"] == 0
    )
    items = client.get(f"{API}/events", params={"run_id": runs[2]}).json()["events"]
    assert [e["event_type"] for e in items] == ["COMPLETE", "START"]


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # refused before SQL
@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"event_type": "DONE"}, "event_type"),
        ({"run_id": "nope"}, "run_id"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2024-13-45"}, "until"),
        ({"limit": 1001}, "limit"),
        ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "swap them"),
    ],
)
def test_bad_event_parameters_are_400_naming_them(
    client: TestClient, params: dict[str, object], needle: str
) -> None:
    response = client.get(f"{API}/events", params=params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter"
    assert needle in error["message"]
