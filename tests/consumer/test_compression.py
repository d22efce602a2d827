"""Answers are gzipped for clients that accept it; ingest's never are."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings

GZIP = {"Accept-Encoding": "gzip"}
IDENTITY = {"Accept-Encoding": "identity"}


def event(i: int) -> dict[str, object]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-01T00:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
        "job": {"namespace": "scheduler", "name": f"job_with_a_long_name_{i}"},
        "run": {"runId": f"0190a7b4-0000-7000-8000-{i:012d}"},
        "inputs": [{"namespace": "warehouse", "name": f"analytics.table_{i}"}],
        "outputs": [{"namespace": "warehouse", "name": f"analytics.table_{i + 1}"}],
    }


def client(tmp_path: Path) -> TestClient:
    settings = AppSettings(ConsumerSettings(enabled=True), f"sqlite:///{tmp_path / 'lineage.db'}")
    return TestClient(create_app(settings))


def test_the_graph_is_gzipped_for_a_client_that_accepts_it(tmp_path: Path) -> None:
    with client(tmp_path) as http:
        stored = http.post("/api/v1/lineage/batch", json=[event(i) for i in range(60)])
        assert stored.status_code == 204
        url = "/api/v1/lineage/openlineage/graph"
        zipped = http.get(url, headers=GZIP)
        plain = http.get(url, headers=IDENTITY)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in zipped.headers["vary"].lower()
    assert "content-encoding" not in plain.headers
    # The same JSON, several times smaller on the wire.
    assert zipped.json() == plain.json()
    assert int(zipped.headers["content-length"]) * 4 < int(plain.headers["content-length"])


def test_ingest_answers_are_never_compressed(tmp_path: Path) -> None:
    broken = [{**event(i), "eventType": "NOT_A_TYPE"} for i in range(40)]
    with client(tmp_path) as http:
        for path in ("/api/v1/lineage", "/api/v1/lineage/batch", "/api/v1/lineage/"):
            answer = http.post(
                path,
                content=json.dumps(broken),
                headers={**GZIP, "Content-Type": "application/json"},
            )
            assert answer.status_code == 400, (path, answer.text)
            # Large enough to be compressed anywhere else.
            assert len(answer.content) > 2048, path
            assert "content-encoding" not in answer.headers, path
