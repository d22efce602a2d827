"""GET /health (the open problems) and GET /impact, on SQLite."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from sqlalchemy import Connection, delete

from feast_lineage.consumer.services import health
from feast_lineage.consumer.store.schema import tables as t
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import T0, at, dataset, facet, run_event
from tests.quickstart import feast_side, load_quickstart

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/services/test_health_states.py, store/read/test_health.py; /impact among
# every read endpoint of tests/consumer/access/test_hidden_text.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

US = 1_000_000
T0_US = int(T0.timestamp()) * US
ERROR = "DatabaseError: the upload lost its connection"


def feast_chain(upload_ns: str = "airflow") -> list[dict[str, Any]]:
    """upload -> raw -> materialize -> driver_fv -> serve -> driver_fs; upload fails later.

    The feature view is materialized up to T0 + 30 min by its run at T0 + 60 s.
    """
    fv = dataset("ml_team", "driver_fv", feast_feature_view=facet(name="driver_fv", ttl_seconds=0))
    fs = dataset("ml_team", "driver_fs", feast_feature_service=facet(name="driver_fs"))
    materialization = facet(
        feature_views=["driver_fv"], start_date=at(-3600), end_date=at(1800), rows_written=3
    )
    return [
        run_event(
            "COMPLETE", job=(upload_ns, "upload"), time=at(0), outputs=[dataset("warehouse", "raw")]
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "materialize"),
            time=at(60),
            inputs=[dataset("warehouse", "raw")],
            outputs=[fv],
            run_facets={"feast_materialization": materialization},
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "serve"),
            time=at(70),
            inputs=[dataset("ml_team", "driver_fv")],
            outputs=[fs],
        ),
        run_event(
            "FAIL",
            job=(upload_ns, "upload"),
            time=at(3600),
            outputs=[dataset("warehouse", "raw")],
            run_facets={"errorMessage": facet(message=ERROR, programmingLanguage="PYTHON")},
        ),
    ]


def _at(client: TestClient, seconds: float) -> None:
    client.app.state.consumer.clock = lambda: T0_US + int(seconds * US)  # type: ignore[attr-defined]


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    client = make_client()
    ingest(client, *feast_chain())
    _at(client, 7200)
    return client


def test_a_failed_job_is_a_problem_reaching_the_feature_view_and_service(
    client: TestClient,
) -> None:
    body = client.get(f"{API}/health").json()
    assert body["total"] == 1
    (problem,) = body["problems"]
    assert problem["id"] == "failed:job:airflow:upload"
    assert problem["kind"] == "failed"
    assert problem["error"] == ERROR
    assert problem["since"].startswith(at(3600)[:19])
    assert problem["node"]["state"] == "failed"
    reaches = problem["reaches"]
    assert [r["node"] for r in reaches["feature_views"]] == ["dataset:ml_team:driver_fv"]
    (service,) = reaches["feature_services"]
    assert service["distance"] == 5
    assert service["path"] == [
        "job:airflow:upload",
        "dataset:warehouse:raw",
        "job:ml_team:materialize",
        "dataset:ml_team:driver_fv",
        "job:ml_team:serve",
        "dataset:ml_team:driver_fs",
    ]
    assert problem["reach_totals"] == {
        "feature_services": 1,
        "feature_views": 1,
        "saved_datasets": 0,
        "other": 0,
    }


def test_graph_nodes_carry_states_causes_and_lags(client: TestClient) -> None:
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    assert nodes["job:airflow:upload"]["state"] == "failed"
    assert nodes["job:airflow:upload"]["health"]["error"] == ERROR
    fv = nodes["dataset:ml_team:driver_fv"]
    assert fv["state"] == "at_risk"
    assert fv["health"]["causes"] == [
        {"node": "job:airflow:upload", "state": "failed", "distance": 3, "label": "airflow/upload"}
    ]
    # now (T0 + 2 h) - materialized to (T0 + 30 min); - raw's write (T0)
    assert fv["health"]["materialization_lag_seconds"] == 5400
    assert fv["health"]["source_lag_seconds"] == 7200
    fs = nodes["dataset:ml_team:driver_fs"]
    assert fs["state"] == "at_risk"
    assert fs["health"]["materialization_lag_seconds"] == 5400


FUTURE_END = "2099-01-01T12:00:00Z"


def test_a_materialization_to_a_future_end_has_a_negative_lag_and_freshens_nothing(
    make_client: AppFactory,
) -> None:
    """``feast materialize 2020-01-01 2099-01-01``: the interval ends in the future. Its lag
    is negative and its end given as it is; the view's state is not made fresher by it, and
    a service's lags are still its worst view's."""
    client = make_client()
    ingest(client, *feast_chain())
    future = dataset("ml_team", "future_fv", feast_feature_view=facet(name="future_fv"))
    window = facet(feature_views=["future_fv"], start_date=at(0), end_date=FUTURE_END)
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("ml_team", "materialize_future"),
            time=at(65),
            inputs=[dataset("warehouse", "raw")],
            outputs=[future],
            run_facets={"feast_materialization": window},
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "serve"),
            time=at(80),
            inputs=[dataset("ml_team", "driver_fv"), dataset("ml_team", "future_fv")],
            outputs=[dataset("ml_team", "driver_fs")],
        ),
    )
    _at(client, 7200)
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    ahead = nodes["dataset:ml_team:future_fv"]
    assert ahead["health"]["materialized_to"] == FUTURE_END
    assert ahead["health"]["materialization_lag_seconds"] < -2_000_000_000  # about 73 years
    # As fresh as the view materialized to the past: the lag decides no state.
    assert ahead["state"] == nodes["dataset:ml_team:driver_fv"]["state"] == "at_risk"
    fv = nodes["dataset:ml_team:driver_fv"]["health"]
    assert (fv["materialized_to"], fv["materialization_lag_seconds"]) == (at(1800), 5400)
    service = nodes["dataset:ml_team:driver_fs"]["health"]
    assert (service["materialized_to"], service["materialization_lag_seconds"]) == (
        at(1800),
        5400,
    )


def test_a_later_complete_clears_the_failure(client: TestClient) -> None:
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("airflow", "upload"),
            time=at(4000),
            outputs=[dataset("warehouse", "raw")],
        ),
    )
    assert client.get(f"{API}/health").json()["total"] == 0
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    assert nodes["job:airflow:upload"]["state"] == "ok"
    assert nodes["dataset:ml_team:driver_fv"]["state"] != "at_risk"


def test_a_dataset_written_less_often_than_it_used_to_is_stale(make_client: AppFactory) -> None:
    client = make_client()
    ingest(
        client,
        *[
            run_event(
                "COMPLETE",
                job=("cron", "export"),
                time=at(60 * i),
                outputs=[dataset("warehouse", "daily")],
            )
            for i in range(5)
        ],
    )
    _at(client, 240 + 170)  # learned: median 60 s x 3 = 180 s
    assert client.get(f"{API}/health").json()["total"] == 0
    _at(client, 240 + 190)  # the store unchanged: time alone makes it stale
    body = client.get(f"{API}/health", params={"kind": "stale"}).json()
    (problem,) = body["problems"]
    assert problem["id"] == "stale:dataset:warehouse:daily"
    assert problem["expected_interval_seconds"] == 180
    assert problem["last_write"].startswith(at(240)[:19])
    assert client.get(f"{API}/health", params={"kind": "failed"}).json()["total"] == 0


def test_configured_freshness_comes_first(make_client: AppFactory) -> None:
    client = make_client(freshness={"warehouse/*": 30})
    ingest(
        client,
        run_event(
            "COMPLETE", job=("cron", "export"), time=at(0), outputs=[dataset("warehouse", "daily")]
        ),
    )
    _at(client, 31)
    (problem,) = client.get(f"{API}/health").json()["problems"]
    assert problem["expected_interval_seconds"] == 30
    node = problem["node"]
    assert node["health"]["interval_source"] == "configured"


def test_too_little_history_is_unknown(make_client: AppFactory) -> None:
    client = make_client()
    ingest(
        client,
        run_event(
            "COMPLETE", job=("cron", "export"), time=at(0), outputs=[dataset("warehouse", "daily")]
        ),
    )
    _at(client, 10**6)
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    assert nodes["dataset:warehouse:daily"]["state"] == "unknown"
    assert client.get(f"{API}/health").json()["total"] == 0


def test_impact_lists_everything_downstream_with_a_shortest_path(client: TestClient) -> None:
    body = client.get(
        f"{API}/impact", params={"node_type": "dataset", "namespace": "warehouse", "name": "raw"}
    ).json()
    assert body["root"] == "dataset:warehouse:raw"
    assert body["totals"] == {
        "feature_services": 1,
        "feature_views": 1,
        "saved_datasets": 0,
        "other": 2,
    }
    assert [(r["node"], r["distance"]) for r in body["affected"]["other"]] == [
        ("job:ml_team:materialize", 1),
        ("job:ml_team:serve", 3),
    ]
    short = client.get(
        f"{API}/impact",
        params={"node_type": "dataset", "namespace": "warehouse", "name": "raw", "depth": 2},
    ).json()
    assert short["totals"]["feature_services"] == 0
    assert short["totals"]["feature_views"] == 1


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"node_type": "model", "namespace": "a", "name": "b"}, "node_type"),
        ({"node_type": "job", "namespace": "a"}, "name"),
        ({"node_type": "job", "namespace": "a", "name": "b", "depth": 0}, "depth"),
    ],
)
def test_impact_refuses_bad_parameters_naming_them(
    client: TestClient, params: dict[str, Any], named: str
) -> None:
    response = client.get(f"{API}/impact", params=params)
    assert response.status_code == 400
    assert named in response.text


def test_impact_of_an_unknown_node_is_404(client: TestClient) -> None:
    params = {"node_type": "job", "namespace": "nowhere", "name": "x"}
    response = client.get(f"{API}/impact", params=params)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "no such job (or it is not visible); check node_type, namespace and name; "
        "list them with GET /api/v1/lineage/openlineage/jobs"
    )


def test_impact_of_a_node_that_vanishes_while_it_is_read_is_409(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node deleted after /impact found it and before it read the node's row: a conflict.

    Reads see one snapshot, so a prune or reset of another connection cannot
    do this; the node's row is deleted through the answer's own connection
    (a real store, rolled back when the answer ends), between the two reads.
    """
    found = health._visible_start

    def then_deleted(conn: Connection, *args: Any) -> int | None:
        node = found(conn, *args)
        conn.execute(delete(t.jobs).where(t.jobs.c.id == node))
        return node

    monkeypatch.setattr(health, "_visible_start", then_deleted)
    params = {"node_type": "job", "namespace": "ml_team", "name": "materialize"}
    response = client.get(f"{API}/impact", params=params)
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (409, "conflict")
    assert "retry" in error["message"]


def test_health_refuses_an_unknown_kind(client: TestClient) -> None:
    response = client.get(f"{API}/health", params={"kind": "broken"})
    assert response.status_code == 400
    assert "kind" in response.text


def test_a_hidden_cause_is_a_hidden_upstream(make_client: AppFactory) -> None:
    keys = {
        "type": "api_keys",
        "keys": [
            {"key": "key-ml", "projects": ["ml_team", "warehouse"]},
            {"key": "key-all", "projects": ["*"]},
        ],
    }
    client = make_client(authorizer=keys)
    client.headers["X-API-Key"] = "key-all"
    ingest(client, *feast_chain("secret_airflow"))
    _at(client, 7200)
    client.headers["X-API-Key"] = "key-ml"
    assert client.get(f"{API}/health").json()["total"] == 0
    text = client.get(f"{API}/graph").text
    assert "secret_airflow" not in text
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    fv = nodes["dataset:ml_team:driver_fv"]
    assert fv["state"] == "at_risk"
    assert fv["health"]["causes"] == [
        {"node": None, "state": "failed", "distance": 3, "label": "a hidden upstream"}
    ]
    client.headers["X-API-Key"] = "key-all"
    assert client.get(f"{API}/health").json()["total"] == 1


def test_a_feature_view_is_materialized_to_its_online_store_s_latest_write(
    make_client: AppFactory,
) -> None:
    """Feast's own shape: materialize reads the feature view and writes its online store."""
    client = make_client()
    fv = dataset(
        "ml_team", "feature_view/trips", feast_feature_view=facet(name="trips", ttl_seconds=0)
    )
    store = dataset("ml_team", "online_store/trips", feast_online_store=facet(feature_view="trips"))
    materialization = facet(
        feature_views=["trips"], start_date=at(-3600), end_date=at(1800), rows_written=3
    )
    ingest(
        client,
        run_event(
            "COMPLETE", job=("airflow", "upload"), time=at(0), outputs=[dataset("wh", "raw")]
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "define"),
            time=at(10),
            inputs=[dataset("wh", "raw")],
            outputs=[fv],
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "materialize"),
            time=at(60),
            inputs=[dataset("ml_team", "feature_view/trips")],
            outputs=[store],
            run_facets={"feast_materialization": materialization},
        ),
    )
    _at(client, 7200)
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    health = nodes["dataset:ml_team:feature_view/trips"]["health"]
    # now (T0 + 2 h) - materialized to (T0 + 30 min); - raw's write (T0)
    assert health["materialization_lag_seconds"] == 5400
    assert health["source_lag_seconds"] == 7200


def test_impact_crosses_an_alias_two_datasets_name_whoever_may_see_its_namespace(
    make_client: AppFactory,
) -> None:
    # warehouse:raw and files:raw_export both name hive:db.raw (never stored as a dataset
    # itself): one dataset, so what reads the export is downstream of what writes raw.
    alias = facet(identifiers=[{"namespace": "hive", "name": "db.raw", "type": "TABLE"}])
    keys = {
        "type": "api_keys",
        "keys": [
            {"key": "key-all", "projects": ["*"]},
            {"key": "key-no-hive", "projects": ["warehouse", "files", "ml_team"]},
        ],
    }
    client = make_client(authorizer=keys)
    client.headers["X-API-Key"] = "key-all"
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("warehouse", "load"),
            time=at(0),
            outputs=[dataset("warehouse", "raw", symlinks=alias)],
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "train"),
            time=at(60),
            inputs=[dataset("files", "raw_export", symlinks=alias)],
            outputs=[dataset("ml_team", "model")],
        ),
    )
    params = {"node_type": "job", "namespace": "warehouse", "name": "load"}

    def reached(key: str) -> list[tuple[str, int, list[str]]]:
        client.headers["X-API-Key"] = key
        body = client.get(f"{API}/impact", params=params).json()
        return [(r["node"], r["distance"], r["path"]) for r in body["affected"]["other"]]

    load, raw, export = "job:warehouse:load", "dataset:warehouse:raw", "dataset:files:raw_export"
    train = "job:ml_team:train"
    everything = [
        # the alias is no node: the export is as near as raw, the same dataset
        (export, 1, [load, raw, export]),
        (raw, 1, [load, raw]),
        (train, 2, [load, raw, export, train]),
        ("dataset:ml_team:model", 3, [load, raw, export, train, "dataset:ml_team:model"]),
    ]
    assert reached("key-all") == everything
    # A key that cannot see the alias's namespace is walked across it as the graph's risk
    # is (the alias is named by neither answer).
    assert reached("key-no-hive") == everything
    # A symlink hop is free (the aliases are one dataset): the path shows it, and
    # symlink_hops says how many of its hops are such, so distance + symlink_hops
    # is the path's number of hops when nothing on it is hidden.
    client.headers["X-API-Key"] = "key-all"
    body = client.get(f"{API}/impact", params=params).json()
    hops = {r["node"]: r["symlink_hops"] for r in body["affected"]["other"]}
    assert hops == {export: 1, raw: 0, train: 1, "dataset:ml_team:model": 1}
    for r in body["affected"]["other"]:
        assert len(r["path"]) - 1 == r["distance"] + r["symlink_hops"], r


def test_a_dataset_whose_only_other_name_is_no_node_is_terminal(make_client: AppFactory) -> None:
    """An alias never stored as a dataset is another name of the same dataset, no node:
    what it names has nothing downstream, and is listed as such."""
    client = make_client()
    alias = facet(identifiers=[{"namespace": "hive", "name": "db.raw", "type": "TABLE"}])
    raw = dataset("warehouse", "raw", symlinks=alias)
    ingest(
        client,
        run_event("COMPLETE", job=("airflow", "upload"), time=at(0), outputs=[raw]),
        run_event("FAIL", job=("airflow", "upload"), time=at(60), outputs=[raw]),
    )
    _at(client, 120)
    problem = _problems(client)["failed:job:airflow:upload"]
    assert [(r["node"], r["path"]) for r in problem["reaches"]["other"]] == [
        ("dataset:warehouse:raw", ["job:airflow:upload", "dataset:warehouse:raw"])
    ]


def _caused_by(client: TestClient, cause: str, *feast_types: str) -> dict[str, int]:
    """The nodes the caller's graph puts at risk naming ``cause`` (of ``feast_types`` only,
    if any), with its distance."""
    nodes = client.get(f"{API}/graph").json()["nodes"]
    return {
        n["id"]: c["distance"]
        for n in nodes
        if n["state"] == "at_risk" and (not feast_types or n["feast_object_type"] in feast_types)
        for c in n["health"]["causes"]
        if c["node"] == cause
    }


def _distances(groups: dict[str, list[dict[str, Any]]], *names: str) -> dict[str, int]:
    return {r["node"]: r["distance"] for name in names for r in groups[name]}


FEAST_GROUPS = ("feature_services", "feature_views", "saved_datasets")


def test_a_visible_failure_reaches_through_hidden_nodes_as_the_graph_s_risk_does(
    make_client: AppFactory,
) -> None:
    """upload -> raw -> materialize -> driver_fv -> serve -> driver_fs (and driver_fv ->
    report -> weekly), raw and weekly in namespaces the key cannot see: what the upload's
    failure reaches is what the graph puts at risk naming it, at the same distances, and
    neither answer names or counts a hidden node."""
    keys = {
        "type": "api_keys",
        "keys": [
            {"key": "key-all", "projects": ["*"]},
            {"key": "key-ml", "projects": ["airflow", "ml_team"]},
        ],
    }
    client = make_client(authorizer=keys)
    client.headers["X-API-Key"] = "key-all"
    report = run_event(
        "COMPLETE",
        job=("ml_team", "report"),
        time=at(80),
        inputs=[dataset("ml_team", "driver_fv")],
        outputs=[dataset("reports", "weekly")],
    )
    ingest(client, *feast_chain(), report)
    _at(client, 7200)
    upload = "job:airflow:upload"
    fv, fs = "dataset:ml_team:driver_fv", "dataset:ml_team:driver_fs"
    materialize, serve, job = "job:ml_team:materialize", "job:ml_team:serve", "job:ml_team:report"
    # Everyone's answer first: the walk it keeps is not the scoped caller's answer.
    everything = _problems(client)[f"failed:{upload}"]
    assert _distances(everything["reaches"], "other") == {"dataset:reports:weekly": 5}

    client.headers["X-API-Key"] = "key-ml"
    at_risk = _caused_by(client, upload)
    assert at_risk == {materialize: 2, fv: 3, job: 4, serve: 4, fs: 5}
    response = client.get(f"{API}/health")
    (problem,) = response.json()["problems"]
    reaches = problem["reaches"]
    assert _distances(reaches, *FEAST_GROUPS) == {fv: 3, fs: 5}
    # The report job writes only what the key cannot see: to it, nothing is downstream.
    assert [(r["node"], r["distance"], r["path"]) for r in reaches["other"]] == [
        (job, 4, [upload, materialize, fv, job])
    ]
    assert reaches["feature_services"][0]["path"] == [upload, materialize, fv, serve, fs]
    assert problem["reach_totals"] == {
        "feature_services": 1,
        "feature_views": 1,
        "saved_datasets": 0,
        "other": 1,
    }
    impact = client.get(
        f"{API}/impact", params={"node_type": "job", "namespace": "airflow", "name": "upload"}
    )
    assert _distances(impact.json()["affected"], *FEAST_GROUPS, "other") == at_risk
    assert impact.json()["totals"]["other"] == 3
    for text in (response.text, impact.text):
        assert "warehouse" not in text
        assert "reports" not in text


HIDDEN_FROM_THE_TEAM = ("file", "postgres://", "s3://", "mlflow://")
FEAST_TYPES = ("feature_service", "feature_view", "saved_dataset")


def test_the_quickstart_s_failed_export_reaches_for_a_project_s_key_what_the_graph_says(
    make_client: AppFactory, tmp_path: Path
) -> None:
    """The quickstart's story read with a key of its project (docs/configuration.md's
    api_keys): the export task writes the trips file, which the key cannot see, and every
    Feast object is reached through it. /health and /impact list what the graph puts at
    risk naming the export, at the cause's distance, and name nothing the key cannot see."""
    quickstart = load_quickstart()
    consumer = yaml.safe_load(quickstart.FEATURE_STORE_YAML)["openlineage"]["consumer"]
    team = {"type": "api_keys", "keys": [{"key": "teamkey", "projects": [quickstart.PROJECT]}]}
    client = make_client(
        api_key="adminkey123", authorizer=team, namespace_mapping=consumer["namespace_mapping"]
    )
    now = datetime.now(UTC).replace(microsecond=0)
    events = feast_side(tmp_path / "data", now - timedelta(seconds=60))
    events += quickstart.other_producers(tmp_path, now)
    ingest(client, *events, headers={"X-API-Key": "adminkey123"})
    client.app.state.consumer.clock = lambda: int(now.timestamp() + 60) * US  # type: ignore[attr-defined]
    client.headers["X-API-Key"] = "adminkey123"
    assert len(_problems(client)) == 2  # the DAG run and its export task: the walks kept

    client.headers["X-API-Key"] = "teamkey"
    nodes = client.get(f"{API}/graph").json()["nodes"]
    seen = {n["namespace"] for n in nodes}
    assert not {ns for ns in seen if ns.startswith(HIDDEN_FROM_THE_TEAM)}
    export = "job:airflow://prod-cluster:driver_features_daily.export_daily_trips"
    at_risk = _caused_by(client, export)
    response = client.get(f"{API}/health")
    problem = {p["id"]: p for p in response.json()["problems"]}[f"failed:{export}"]
    feast = _caused_by(client, export, *FEAST_TYPES)
    assert _distances(problem["reaches"], *FEAST_GROUPS) == feast
    assert problem["reach_totals"] == {
        "feature_services": 2,
        "feature_views": 2,
        "saved_datasets": 1,
        "other": len(problem["reaches"]["other"]),
    }
    assert problem["reaches"]["other"]  # what the team sees last: nothing hidden counted
    params = {
        "node_type": "job",
        "namespace": "airflow://prod-cluster",
        "name": "driver_features_daily.export_daily_trips",
        "depth": 20,
    }
    impact = client.get(f"{API}/impact", params=params)
    affected = impact.json()["affected"]
    assert _distances(affected, *FEAST_GROUPS, "other") == at_risk
    ids = {n["id"] for n in nodes}
    for reached in [r for g in (problem["reaches"], affected) for rs in g.values() for r in rs]:
        assert set(reached["path"]) <= ids, reached
    for text in (response.text, impact.text):
        assert str(tmp_path) not in text  # the files' names
        for namespace in HIDDEN_FROM_THE_TEAM[1:]:
            assert namespace not in text


DAG = ("airflow", "nightly")
UPLOAD, REPORT = ("airflow", "nightly.upload"), ("airflow", "nightly.report")


def dag_chain(upload_fails: bool) -> list[dict[str, Any]]:
    """A DAG run whose tasks are ``upload`` (as in :func:`feast_chain`: raw, then the feature
    view and service read from it) and ``report`` (raw -> report); the DAG run fails, and the
    upload too when ``upload_fails``."""
    dag_run, upload_run = str(uuid.uuid4()), str(uuid.uuid4())
    child = (dag_run, DAG)
    _, materialize, serve, _ = feast_chain()
    raw = dataset("warehouse", "raw")
    return [
        run_event("START", run_id=dag_run, job=DAG, time=at(-60)),
        run_event(
            "START", run_id=upload_run, job=UPLOAD, time=at(-30), outputs=[raw], parent=child
        ),
        run_event(
            "FAIL" if upload_fails else "COMPLETE",
            run_id=upload_run,
            job=UPLOAD,
            time=at(0),
            outputs=[raw],
            parent=child,
        ),
        materialize,
        serve,
        run_event(
            "COMPLETE",
            job=REPORT,
            time=at(100),
            inputs=[raw],
            outputs=[dataset("warehouse", "report")],
            parent=child,
        ),
        run_event("FAIL", run_id=dag_run, job=DAG, time=at(3600)),
    ]


def _problems(client: TestClient) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in client.get(f"{API}/health").json()["problems"]}


def _impact(client: TestClient, job: tuple[str, str]) -> dict[str, Any]:
    params = {"node_type": "job", "namespace": job[0], "name": job[1], "depth": 20}
    return client.get(f"{API}/impact", params=params).json()


def _at_risk(client: TestClient) -> set[str]:
    nodes = client.get(f"{API}/graph").json()["nodes"]
    return {n["id"] for n in nodes if n["state"] == "at_risk"}


NOTHING = {"feature_services": 0, "feature_views": 0, "saved_datasets": 0, "other": 0}


def test_a_failed_dag_run_reaches_nothing_through_its_successful_tasks(
    make_client: AppFactory,
) -> None:
    """The DAG run's failure is caused by its tasks, not the other way round: it is a
    problem of its own, and reaches neither its tasks nor what they wrote."""
    client = make_client()
    ingest(client, *dag_chain(upload_fails=False))
    _at(client, 7200)
    problems = _problems(client)
    assert list(problems) == ["failed:job:airflow:nightly"]
    assert problems["failed:job:airflow:nightly"]["reach_totals"] == NOTHING
    assert _at_risk(client) == set()
    assert _impact(client, DAG)["totals"] == NOTHING


def test_a_failed_task_reaches_what_reads_its_output_and_not_its_siblings(
    make_client: AppFactory,
) -> None:
    client = make_client()
    ingest(client, *dag_chain(upload_fails=True))
    _at(client, 7200)
    problems = _problems(client)
    assert set(problems) == {"failed:job:airflow:nightly", "failed:job:airflow:nightly.upload"}
    assert problems["failed:job:airflow:nightly"]["reach_totals"] == NOTHING
    upload = problems["failed:job:airflow:nightly.upload"]
    assert upload["reach_totals"] == {
        "feature_services": 1,
        "feature_views": 1,
        "saved_datasets": 0,
        "other": 1,  # the report, which reads raw: through the data, not the DAG
    }
    (report,) = upload["reaches"]["other"]
    assert report["path"] == [
        "job:airflow:nightly.upload",
        "dataset:warehouse:raw",
        "job:airflow:nightly.report",
        "dataset:warehouse:report",
    ]
    assert _at_risk(client) == {
        "dataset:warehouse:raw",
        "job:ml_team:materialize",
        "dataset:ml_team:driver_fv",
        "job:ml_team:serve",
        "dataset:ml_team:driver_fs",
        "job:airflow:nightly.report",
        "dataset:warehouse:report",
    }
    nodes = {n["id"]: n for n in client.get(f"{API}/graph").json()["nodes"]}
    causes = nodes["job:airflow:nightly.report"]["health"]["causes"]
    assert [c["node"] for c in causes] == ["job:airflow:nightly.upload"]
    assert _impact(client, DAG)["totals"] == NOTHING
    assert _impact(client, UPLOAD)["totals"] == upload["reach_totals"] | {"other": 5}
