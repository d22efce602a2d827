from __future__ import annotations

from fastapi.testclient import TestClient

from tests.factories import run_event


def test_single_event_is_stored_and_read_back(client: TestClient) -> None:
    event = run_event("START")
    response = client.post("/api/v1/lineage", json=event)
    assert response.status_code == 201, response.text
    page = client.get("/api/v1/lineage/openlineage/events").json()
    assert page["total"] == 1
    assert page["items"][0]["run_id"] == event["run"]["runId"]
