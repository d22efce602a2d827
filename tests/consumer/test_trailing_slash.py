"""A trailing slash: a 307 to the path as sent without it, still percent-encoded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, run_event

FV_NS, FV = "driver_ranking", "feature_view/driver_hourly_stats"
JOB_NS, JOB = "dbt://analytics", "analytics.driver_hourly_stats"
DATASET_VERSIONS = f"{API}/datasets/driver_ranking/feature_view%2Fdriver_hourly_stats/versions"
JOB_VERSIONS = f"{API}/jobs/dbt%3A%2F%2Fanalytics/analytics.driver_hourly_stats/versions"


def _app(tmp_path: Path, **settings: Any) -> TestClient:
    app = create_app(
        AppSettings(
            consumer=ConsumerSettings(enabled=True),
            database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
            **settings,
        )
    )
    return TestClient(app, raise_server_exceptions=False, follow_redirects=False)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[TestClient]:
    """A SQLite consumer (with the web UI) where dbt's job wrote Feast's feature view."""
    with _app(tmp_path, serve_ui=True) as client:
        ingest(
            client,
            run_event("COMPLETE", job=(JOB_NS, JOB), time=at(1), outputs=[dataset(FV_NS, FV)]),
        )
        yield client


def _redirected(response: Any, method: str, location: str) -> None:
    """A 307 to ``location``, which its JSON body names too."""
    assert response.status_code == 307, response.text
    assert response.headers["location"] == location
    body = response.json()
    assert body["location"] == location
    assert body["message"].startswith(f"no endpoint's path ends with '/'; this one is {method} ")


@pytest.mark.parametrize("path", [DATASET_VERSIONS, JOB_VERSIONS])
def test_a_versions_path_with_a_trailing_slash_goes_to_the_path_still_encoded(
    api: TestClient, path: str
) -> None:
    response = api.get(path + "/")
    _redirected(response, "GET", path)
    # Where it leads answers (the router's redirect decoded the %2F, and led to a 400).
    followed = api.get(path + "/", follow_redirects=True)
    assert followed.status_code == 200, followed.text
    assert len(followed.json()["versions"]) == 1


def test_the_query_string_is_kept(api: TestClient) -> None:
    response = api.get(f"{API}/jobs/?namespace=dbt%3A%2F%2Fanalytics&limit=5")
    _redirected(response, "GET", f"{API}/jobs?namespace=dbt%3A%2F%2Fanalytics&limit=5")


def test_every_endpoint_asked_with_a_trailing_slash_is_redirected_to_it(
    api: TestClient,
) -> None:
    """Each operation, its parameters filled in: none answers, none is a 400 or a 404."""
    filled = {
        "{namespace}": "dbt%3A%2F%2Fanalytics",
        "{name}": "analytics.driver_hourly_stats",
        "{node_type}": "job",
        "{run_id}": "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f",
        "{version_id}": "9b2f" * 8,
        "{object_type}": "feature_view",
        "{object_name}": "driver_hourly_stats",
    }
    paths = api.get("/openapi.json").json()["paths"]
    operations = [(m.upper(), p) for p, ops in paths.items() for m in ops]
    assert len(operations) > 30
    for method, template in [*operations, ("GET", "/docs"), ("GET", "/redoc")]:
        path = template
        for param, value in filled.items():
            path = path.replace(param, value)
        assert "{" not in path, path
        response = api.request(method, path + "/")
        _redirected(response, method, path)


def test_an_event_posted_with_a_trailing_slash_is_stored(api: TestClient) -> None:
    """A 307 keeps the method and the body: a producer's endpoint ending with '/' still works."""
    event = run_event("COMPLETE", job=("spark://x", "late"), time=at(2))
    response = api.post("/api/v1/lineage/", json=event, follow_redirects=True)
    assert response.status_code == 201, response.text
    assert api.get(f"{API}/jobs", params={"namespace": "spark://x"}).json()["total"] == 1


def test_a_name_ending_with_an_encoded_slash_is_not_a_trailing_slash(api: TestClient) -> None:
    # dir%2F is the name "dir/": the subgraph route answers for it (no such dataset).
    response = api.get(f"{API}/graph/dataset/s3%3A%2F%2Fbucket/dir%2F")
    assert response.status_code == 404, response.text
    assert "no dataset named 'dir/'" in response.json()["error"]["message"]


def test_an_unknown_path_with_a_trailing_slash_is_the_plain_404(api: TestClient) -> None:
    response = api.get(f"{API}/no/such/")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no such endpoint; see /docs for the API"
    # The web UI's root is its page, slash and all.
    assert api.get("/").status_code in (200, 503)


def test_behind_a_proxy_the_location_is_the_path_sent(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        behind = TestClient(
            client.app, root_path="/lineage", raise_server_exceptions=False, follow_redirects=False
        )
        _redirected(behind.get(f"/lineage{API}/jobs/"), "GET", f"/lineage{API}/jobs")


def test_behind_a_proxy_the_root_without_its_slash_goes_to_the_ui_page(api: TestClient) -> None:
    behind = TestClient(
        api.app, root_path="/lineage", raise_server_exceptions=False, follow_redirects=False
    )
    response = behind.get("/lineage?tab=graph")
    assert response.status_code == 307
    assert response.headers["location"].endswith("/lineage/?tab=graph")
    assert behind.get("/lineage/").status_code in (200, 503)


def test_without_the_web_ui_the_root_is_no_page_to_redirect_to(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        behind = TestClient(
            client.app, root_path="/lineage", raise_server_exceptions=False, follow_redirects=False
        )
        assert behind.get("/lineage").status_code == 404
