"""``GET /metrics``: the figures follow what the server does; only the right callers see them."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError
from starlette.requests import HTTPConnection

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.metrics_processes import MULTIPROC_ENV
from tests.consumer.lineage import API, subgraph_path
from tests.factories import dataset, facet, run_event
from tests.server_process import wait_for

KEY = "metrics-admin-key"  # pragma: allowlist secret
READ_KEY = "metrics-read-key"  # pragma: allowlist secret
READ_AUTHORIZER = {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["*"]}]}
GRAPH = "/api/v1/lineage/openlineage/graph"
SUBGRAPH = "/api/v1/lineage/openlineage/graph/{node_type}/{namespace}/{name}"

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient, **headers: str) -> Samples:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def build(**consumer: Any) -> TestClient:
        settings = AppSettings(
            consumer=ConsumerSettings(enabled=True, **consumer),
            database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
        )
        client = TestClient(create_app(settings), raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


def test_the_figures_follow_ingest_writes_reads_and_prunes(
    make_app: Callable[..., TestClient],
) -> None:
    client = make_app(api_key=KEY, authorizer=READ_AUTHORIZER)
    auth = {"X-API-Key": KEY}
    before = scrape(client, **auth)

    out = dataset("s3://lake", "daily")
    good = [run_event("COMPLETE", job=("airflow://prod", f"j{i}"), outputs=[out]) for i in range(3)]
    assert client.post("/api/v1/lineage/batch", json=good, headers=auth).status_code == 204
    # An array with one event missing its run (two problems, one event) and one good event.
    bad = run_event("COMPLETE")
    del bad["run"], bad["eventTime"]
    mixed = [bad, run_event("START", job=("airflow://prod", "j9"))]
    assert client.post("/api/v1/lineage", json=mixed, headers=auth).status_code == 207
    # Refused before a single event is read: no key, a wrong one, a read key, not JSON.
    assert client.post("/api/v1/lineage", json=good[0]).status_code == 401
    wrong = {"X-API-Key": "wrong"}
    assert client.post("/api/v1/lineage", json=good[0], headers=wrong).status_code == 401
    read = {"X-API-Key": READ_KEY}
    assert client.post("/api/v1/lineage", json=good[0], headers=read).status_code == 403
    not_json = {**auth, "Content-Type": "application/json"}
    assert client.post("/api/v1/lineage", content=b"{", headers=not_json).status_code == 400
    # Reads: two of the graph page, one subgraph by its percent-encoded path, one 404.
    assert client.get(GRAPH, headers=read).status_code == 200
    assert client.get(GRAPH, params={"limit": 5}, headers=read).status_code == 200
    daily = subgraph_path("dataset", "s3://lake", "daily")
    assert client.get(daily, headers=read).status_code == 200
    nothing = subgraph_path("dataset", "s3://lake", "nothing")
    assert client.get(nothing, headers=read).status_code == 404
    prune = client.post(f"{API}/retention/prune", headers=auth)
    assert prune.status_code == 200, prune.text

    after = scrape(client, **auth)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("feast_lineage_events_ingested_total") == 4
    assert moved("feast_lineage_events_refused_total", reason="invalid_event") == 1
    refused = "feast_lineage_ingest_requests_refused_total"
    key_reasons = ("unauthorized", "invalid_api_key", "read_key_cannot_write")
    for reason in key_reasons:
        assert moved(refused, reason=reason) == 1, reason
    # docs/deployment.md's alert on refused requests names the reasons really counted.
    deployment = (Path(__file__).parents[3] / "docs" / "deployment.md").read_text()
    (row,) = (line for line in deployment.splitlines() if line.startswith("| requests refused"))
    assert set(key_reasons) <= set(re.findall(r"`(\w+)`", row.split("|")[3])), row
    assert moved("feast_lineage_ingest_requests_refused_total", reason="invalid_json") == 1
    assert moved("feast_lineage_ingest_duration_seconds_count", endpoint="batch") == 1
    assert moved("feast_lineage_ingest_duration_seconds_count", endpoint="lineage") == 5
    # Group commit: at most one transaction per request that had events to store.
    transactions = moved("feast_lineage_write_transaction_seconds_count")
    assert 1 <= transactions <= 2
    assert moved("feast_lineage_write_transaction_events_total") == 4
    assert moved("feast_lineage_write_transaction_seconds_sum") > 0
    assert value(after, "feast_lineage_writer_queue_depth") == 0  # everything was answered
    # Reads by route template, never by the request's own path.
    assert moved("feast_lineage_query_duration_seconds_count", route=GRAPH) == 2
    assert moved("feast_lineage_query_duration_seconds_count", route=SUBGRAPH) == 2
    assert not [key for key in after if "s3:" in str(key) or "daily" in str(key)]
    assert moved("feast_lineage_prunes_total", trigger="manual", outcome="ok") == 1
    assert moved("feast_lineage_prune_duration_seconds_count") == 1


def test_a_read_is_labelled_with_its_path_template_as_the_reference_writes_it(
    make_app: Callable[..., TestClient],
) -> None:
    """``{name}``, not the route's ``{name:...}``: the label is a path of the OpenAPI document."""
    client = make_app()
    event = run_event("COMPLETE", job=("team", "load"), outputs=[dataset("team", "a/b")])
    assert client.post("/api/v1/lineage", json=event).status_code == 201
    reads = [
        f"{API}/datasets/team/a%2Fb/versions",
        f"{API}/datasets/team/a%2Fb/columns",
        f"{API}/jobs/team/load/versions",
        subgraph_path("job", "team", "load"),
    ]
    for path in reads:
        assert client.get(path).status_code == 200, path
    routes = {
        dict(labels)["route"]
        for name, labels in scrape(client)
        if name == "feast_lineage_query_duration_seconds_count"
    }
    assert f"{API}/datasets/{{namespace}}/{{name}}/versions" in routes
    assert SUBGRAPH in routes
    assert routes <= set(client.app.openapi()["paths"]), routes  # type: ignore[attr-defined]


def test_a_multiprocess_variable_set_after_start_does_not_hide_the_figures(
    make_app: Callable[..., TestClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Feast 0.67 sets PROMETHEUS_MULTIPROC_DIR when imported, after prometheus-client
    chose in-memory values: this process's figures are still the ones served."""
    client = make_app()
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    good = [run_event("COMPLETE", job=("airflow://prod", f"j{i}")) for i in range(2)]
    assert client.post("/api/v1/lineage/batch", json=good).status_code == 204
    assert value(scrape(client), "feast_lineage_events_ingested_total") == 2


def test_a_service_is_at_risk_through_the_data_never_through_the_run_tree(
    make_app: Callable[..., TestClient],
) -> None:
    """A DAG run fails with one task: the service fed by that task's output is at risk,
    the one fed by its successful sibling is not (the DAG's failure does not flow to it)."""
    client = make_app()
    dag, dag_run = ("airflow://prod", "nightly"), str(uuid.uuid4())

    def fed(task: str, state: str) -> list[dict[str, Any]]:
        table, service = dataset("warehouse", task), dataset("ml", f"feature_service/{task}")
        service["facets"]["feast_feature_service"] = facet(name=task)
        return [
            run_event(
                state,
                job=("airflow://prod", f"nightly.{task}"),
                outputs=[table],
                parent=(dag_run, dag),
            ),
            run_event("COMPLETE", job=("ml", f"serve_{task}"), inputs=[table], outputs=[service]),
        ]

    events = [*fed("trips", "FAIL"), *fed("stats", "COMPLETE")]
    events.append(run_event("FAIL", run_id=dag_run, job=dag))
    assert client.post("/api/v1/lineage/batch", json=events).status_code == 204
    samples = scrape(client)
    risk = {
        dict(labels)["name"]: figure
        for (metric, labels), figure in samples.items()
        if metric == "feast_lineage_feature_service_at_risk"
    }
    assert risk == {"feature_service/trips": 1, "feature_service/stats": 0}
    assert value(samples, "feast_lineage_failed_jobs", namespace="airflow://prod") == 2


def test_prunes_are_counted_by_trigger_and_outcome(make_app: Callable[..., TestClient]) -> None:
    client = make_app()
    state = client.app.state.consumer  # type: ignore[attr-defined]
    # The schedule: one round every 0.2 s, the first one at once.
    state.retention.start(state.engine, 30, 0.2 / 3600)
    assert wait_for(
        lambda: (
            value(scrape(client), "feast_lineage_prunes_total", trigger="scheduled", outcome="ok")
            >= 1
        ),
        timeout=20,
    )
    state.retention.stop()
    # A manual prune whose database cannot be opened.
    missing = create_engine("sqlite:////nonexistent-dir/lineage.db")
    with pytest.raises(OperationalError):
        state.retention.prune(missing, 30)
    samples = scrape(client)
    assert value(samples, "feast_lineage_prunes_total", trigger="manual", outcome="failed") == 1
    assert value(samples, "feast_lineage_prunes_total", trigger="manual", outcome="ok") == 0


# --- who may read them ------------------------------------------------------------

AUTHORIZER = {
    "type": "api_keys",
    "keys": [
        {"key": "key-team-a", "projects": ["team_a"]},
        {"key": "key-every-project", "projects": ["*"]},
    ],
}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"X-API-Key": "not-a-key"}, 401),
        ({"X-API-Key": "key-team-a"}, 403),  # a scope narrower than the store: no figures
        ({"Authorization": "Bearer key-team-a"}, 403),
        ({"X-API-Key": "key-every-project"}, 200),
        ({"Authorization": f"Bearer {KEY}"}, 200),  # the admin key sees everything
    ],
)
def test_metrics_need_a_scope_of_every_namespace(
    make_app: Callable[..., TestClient], headers: dict[str, str], status: int
) -> None:
    client = make_app(api_key=KEY, authorizer=AUTHORIZER)
    response = client.get("/metrics", headers=headers)
    assert response.status_code == status, response.text
    if status != 200:
        assert set(response.json()) == {"error", "detail"}
        assert "feast_lineage" not in response.text


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"X-API-Key": "key-team-a"}, 403), ({"X-API-Key": "key-every-project"}, 200)],
)
def test_an_anonymous_caller_of_anonymous_projects_gets_401_as_the_docs_say(
    make_app: Callable[..., TestClient], headers: dict[str, str], status: int
) -> None:
    """Anonymous callers see some namespaces, but the figures need a credential: 401, not 403."""
    client = make_app(api_key=KEY, authorizer={**AUTHORIZER, "anonymous_projects": ["team_a"]})
    response = client.get("/metrics", headers=headers)
    assert response.status_code == status, response.text
    if status == 401:
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert "X-API-Key" in response.json()["error"]["message"]
    assert client.get("/api/v1/lineage/openlineage/graph").status_code == 200  # reads stay open


def test_under_the_open_authorizer_metrics_are_a_read_like_the_others(
    make_app: Callable[..., TestClient],
) -> None:
    client = make_app(api_key=KEY)  # the key guards ingest and admin; reads are open
    assert client.get("/metrics").status_code == 200
    assert client.head("/metrics").status_code == 200
    unknown = client.get("/metrics", params={"name": "x"})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "unknown_parameter"


class FailingAuthorizer:
    blocking = False

    def scope(self, request: HTTPConnection) -> Scope:
        raise RuntimeError("the directory is down")


def test_an_authorizer_that_fails_shows_no_figures(make_app: Callable[..., TestClient]) -> None:
    client = make_app()
    client.app.state.consumer.authorizer = FailingAuthorizer()  # type: ignore[attr-defined]
    response = client.get("/metrics")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "authorization_failed"
    assert "feast_lineage" not in response.text
