"""Cross-site requests that would change lineage are refused."""

from __future__ import annotations

import json

import pytest

from feast_lineage.consumer.access.origin import same_origin
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, run_event


@pytest.mark.parametrize(
    ("origin", "host", "same"),
    [
        ("http://localhost:6580", "localhost:6580", True),
        ("http://LOCALHOST:6580", "localhost:6580", True),
        ("https://lineage.example.com", "lineage.example.com", True),
        ("https://lineage.example.com", "lineage.example.com:443", True),
        ("http://lineage.example.com:80", "lineage.example.com", True),
        ("http://[::1]:6580", "[::1]:6580", True),
        ("http://evil.example", "localhost:6580", False),
        ("http://localhost:6581", "localhost:6580", False),
        ("https://localhost:6580", "localhost", False),
        ("null", "localhost:6580", False),
        ("file://", "localhost:6580", False),
        ("http://localhost:99999", "localhost:6580", False),
        ("http://localhost:6580", None, False),
    ],
)
def test_same_origin(origin: str, host: str | None, same: bool) -> None:
    assert same_origin(origin, host) is same


def test_pages_of_another_site_cannot_ingest_prune_or_reset(make_client: AppFactory) -> None:
    client = make_client(retention_days=1)
    ingest(client, run_event("COMPLETE", time=at(0)))  # old: a prune would remove it
    evil = {"Origin": "http://evil.example", "Content-Type": "application/json"}
    body = json.dumps(run_event("START")).encode()
    refused = [
        client.post("/api/v1/lineage", content=body, headers=evil),
        client.post("/api/v1/lineage/batch", content=b"[" + body + b"]", headers=evil),
        client.post(f"{API}/retention/prune", headers=evil),
        client.delete(f"{API}/reset", headers=evil),
    ]
    for response in refused:
        assert response.status_code == 403, response.text
        error = response.json()["error"]
        assert error["code"] == "cross_origin"
        assert "evil.example" in error["message"]
    assert client.get(f"{API}/events").json()["total"] == 1  # nothing stored or deleted

    # Reads stay open to any page (no CORS headers: a browser shows them to no other site),
    # and the server's own pages, or programs without an Origin, may change lineage.
    assert client.get(f"{API}/events", headers={"Origin": "http://evil.example"}).status_code == 200
    own = {"Origin": "http://testserver", "Content-Type": "application/json"}
    assert client.post("/api/v1/lineage", content=body, headers=own).status_code == 201
    assert client.get(f"{API}/events").json()["total"] == 2
