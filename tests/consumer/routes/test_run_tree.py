"""``GET /runs/{run_id}/tree`` and what the run answer says of its tree and statistics."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, facet, run_event

AIRFLOW = "airflow://prod"
SPARK = "spark://cluster"


def _ids(n: int) -> list[str]:
    return sorted(str(uuid.uuid4()) for _ in range(n))


def _link(
    run_id: str, job: tuple[str, str], root: tuple[str, tuple[str, str]] | None = None
) -> Any:
    value: dict[str, Any] = {
        "run": {"runId": run_id},
        "job": {"namespace": job[0], "name": job[1]},
    }
    if root is not None:
        value["root"] = {
            "run": {"runId": root[0]},
            "job": {"namespace": root[1][0], "name": root[1][1]},
        }
    return facet(**value)


def _run(
    run_id: str,
    job: tuple[str, str],
    t: float,
    parent: tuple[str, tuple[str, str]] | None = None,
    root: tuple[str, tuple[str, str]] | None = None,
    state: str = "COMPLETE",
    **kw: Any,
) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    if parent is not None:
        facets["parent"] = _link(parent[0], parent[1], root)
    return run_event(state, run_id=run_id, job=job, time=at(t), run_facets=facets, **kw)


DAG = (AIRFLOW, "daily")
EXTRACT = (AIRFLOW, "daily.extract")
TRAIN = (AIRFLOW, "daily.train")
APP = (SPARK, "train_app")
SPARK_JOB = (SPARK, "train_app.stage")


def _hierarchy() -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Airflow DAG run -> two tasks -> (train) Spark application -> two Spark jobs."""
    ids = dict(zip(("dag", "extract", "train", "app", "job1", "job2"), _ids(6), strict=True))
    root = (ids["dag"], DAG)
    events = [
        _run(ids["dag"], DAG, 0, state="START"),
        _run(ids["dag"], DAG, 100),
        _run(ids["extract"], EXTRACT, 1, parent=root, root=root),
        _run(ids["train"], TRAIN, 2, parent=root, root=root),
        _run(ids["app"], APP, 3, parent=(ids["train"], TRAIN), root=root),
        _run(ids["job1"], SPARK_JOB, 4, parent=(ids["app"], APP), root=root),
        _run(ids["job2"], SPARK_JOB, 5, parent=(ids["app"], APP), root=root, state="FAIL"),
    ]
    return ids, events


def _io(name: str, key: str, **facets: Any) -> dict[str, Any]:
    return {"namespace": "s3://b", "name": name, key: facets}


def _tree(client: TestClient, run_id: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"{API}/runs/{run_id}/tree", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _shape(tree: dict[str, Any]) -> list[tuple[int, str | None, str | None]]:
    return [(n["depth"], n.get("job_name"), n.get("state")) for n in tree["runs"]]


def test_every_run_of_a_tree_answers_the_whole_tree_depth_first(client: TestClient) -> None:
    ids, events = _hierarchy()
    ingest(client, *events)
    tree = _tree(client, ids["job1"])
    assert _shape(tree) == [
        (0, "daily", "COMPLETE"),
        (1, "daily.extract", "COMPLETE"),
        (1, "daily.train", "COMPLETE"),
        (2, "train_app", "COMPLETE"),
        (3, "train_app.stage", "COMPLETE"),
        (3, "train_app.stage", "FAIL"),
    ]
    assert [n["run_id"] for n in tree["runs"]] == [
        ids[k] for k in ("dag", "extract", "train", "app", "job1", "job2")
    ]
    assert tree["total"] == 6
    assert tree["root_run_id"] == ids["dag"]
    assert tree["run_id"] == ids["job1"]
    assert tree["missing_run_ids"] == []
    assert tree["truncated"] is False
    by_id = {n["run_id"]: n for n in tree["runs"]}
    assert by_id[ids["app"]]["parent_run_id"] == ids["train"]
    assert by_id[ids["app"]]["root_run_id"] == ids["dag"]
    assert by_id[ids["dag"]]["parent_run_id"] is None
    assert [by_id[ids[k]]["child_count"] for k in ("dag", "train", "app", "job1")] == [2, 1, 2, 0]
    dag = by_id[ids["dag"]]
    assert dag["started_at_iso"] == "2026-01-01T12:00:00Z"
    assert dag["duration_ms"] == 100_000
    assert dag["job_namespace"] == AIRFLOW
    assert dag["facets_json"] is None
    assert dag["hidden"] is False
    assert dag["missing"] is False
    for other in ("dag", "extract", "app", "job2"):
        assert _tree(client, ids[other])["runs"] == tree["runs"]
    with_facets = _tree(client, ids["dag"], facets="true")
    app = next(n for n in with_facets["runs"] if n["run_id"] == ids["app"])
    assert '"parent"' in app["facets_json"]


def test_a_child_before_its_parent_names_it_missing_then_hangs_under_it(
    client: TestClient,
) -> None:
    ids, events = _hierarchy()
    dag_events, train = events[:2], events[3]
    ingest(client, *[e for e in events if e not in (*dag_events, train)])
    early = _tree(client, ids["job2"])
    # The DAG run and the train task never arrived: both named, both missing.
    assert early["root_run_id"] == ids["dag"]
    assert sorted(early["missing_run_ids"]) == sorted([ids["dag"], ids["train"]])
    assert _shape(early) == [
        (0, "daily", None),
        (1, "daily.extract", "COMPLETE"),
        (1, "daily.train", None),
        (2, "train_app", "COMPLETE"),
        (3, "train_app.stage", "COMPLETE"),
        (3, "train_app.stage", "FAIL"),
    ]
    assert [n["missing"] for n in early["runs"]] == [True, False, True, False, False, False]
    assert not any(n["pruned"] for n in early["runs"])  # no retention ran: never arrived
    ingest(client, train, *dag_events)
    late = _tree(client, ids["job2"])
    assert late["missing_run_ids"] == []
    assert [n["run_id"] for n in late["runs"]] == [
        ids[k] for k in ("dag", "extract", "train", "app", "job1", "job2")
    ]
    assert _shape(late)[2] == (1, "daily.train", "COMPLETE")


def test_a_missing_parent_without_a_root_is_the_root(client: TestClient) -> None:
    parent, a, b = _ids(3)
    ingest(
        client,
        _run(a, (SPARK, "a"), 2, parent=(parent, (SPARK, "app"))),
        _run(b, (SPARK, "b"), 1, parent=(parent, (SPARK, "app"))),
    )
    tree = _tree(client, a)
    assert tree["root_run_id"] == parent
    assert tree["missing_run_ids"] == [parent]
    assert [(n["run_id"], n["depth"]) for n in tree["runs"]] == [(parent, 0), (b, 1), (a, 1)]
    assert tree["runs"][0]["job_name"] == "app"
    assert tree["runs"][0]["state"] is None


def test_run_answer_has_parent_root_child_count_and_statistics(client: TestClient) -> None:
    ids, events = _hierarchy()
    ingest(client, *events)
    task, job1 = str(uuid.uuid4()), str(uuid.uuid4())
    # A parent facet without root: the run answer finds the root by walking up.
    ingest(
        client,
        _run(task, (AIRFLOW, "daily.score"), 6, parent=(ids["dag"], DAG)),
        _run(
            job1,
            (SPARK, "score_app"),
            7,
            parent=(task, (AIRFLOW, "daily.score")),
            inputs=[
                _io(
                    "in", "inputFacets", inputStatistics=facet(rowCount=10, size=2048, fileCount=2)
                ),
                _io(
                    "old",
                    "inputFacets",
                    dataQualityMetrics=facet(rowCount=5, bytes=1, columnMetrics={}),
                ),
                dataset("s3://b", "plain"),
            ],
            outputs=[_io("out", "outputFacets", outputStatistics=facet(rowCount=7, size=99))],
        ),
    )
    dag = client.get(f"{API}/runs/{ids['dag']}").json()
    assert dag["child_count"] == 3
    assert dag["parent_run_id"] is None
    assert dag["root_run_id"] is None
    detail = client.get(f"{API}/runs/{job1}").json()
    assert detail["parent_run_id"] == task
    assert detail["root_run_id"] == ids["dag"]
    assert detail["child_count"] == 0
    stats = {d["name"]: d["statistics"] for d in detail["inputs"] + detail["outputs"]}
    assert stats == {
        "in": {"rows": 10, "bytes": 2048, "files": 2, "facet": "inputStatistics"},
        "old": {"rows": 5, "bytes": 1, "files": None, "facet": "dataQualityMetrics"},
        "plain": None,
        "out": {"rows": 7, "bytes": 99, "files": None, "facet": "outputStatistics"},
    }
    app = client.get(f"{API}/runs/{ids['app']}").json()
    assert app["root_run_id"] == ids["dag"]
    assert app["child_count"] == 2


def test_unknown_and_malformed_run_ids(client: TestClient) -> None:
    missing = client.get(f"{API}/runs/{uuid.uuid4()}/tree")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    bad = client.get(f"{API}/runs/nope/tree")
    assert bad.status_code == 400
    assert "run_id" in bad.json()["error"]["message"]
    extra = client.get(f"{API}/runs/{uuid.uuid4()}/tree", params={"depth": 2})
    assert extra.status_code == 400


AUTHORIZER = {
    "type": "api_keys",
    "keys": [{"key": "key-ml", "projects": ["ml_team"]}],
}


@pytest.fixture
def scoped(make_client: AppFactory) -> TestClient:
    client = make_client(authorizer=AUTHORIZER, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    return client


def test_a_tree_crossing_a_hidden_namespace_shows_placeholders(scoped: TestClient) -> None:
    dag, secret_task, train, hidden_missing, orphan = _ids(5)
    root = (dag, ("ml_team", "nightly"))
    ingest(
        scoped,
        _run(dag, root[1], 0),
        _run(secret_task, ("finance", "payroll_task"), 1, parent=root, root=root),
        _run(
            train,
            ("ml_team", "train"),
            2,
            parent=(secret_task, ("finance", "payroll_task")),
            root=root,
        ),
        # A run below a parent that never arrived, in the hidden namespace.
        _run(
            orphan,
            ("ml_team", "score"),
            3,
            parent=(hidden_missing, ("finance", "payroll_export")),
            root=root,
        ),
    )
    everything = _tree(scoped, train)
    assert "payroll_task" in str(everything)
    assert "payroll_export" in str(everything)
    scoped.headers["X-API-Key"] = "key-ml"
    for facets in ("false", "true"):
        response = scoped.get(f"{API}/runs/{train}/tree", params={"facets": facets})
        assert response.status_code == 200
        for secret in ("finance", "payroll", secret_task, hidden_missing):
            assert secret not in response.text
        tree = response.json()
        assert tree["runs"] == [
            _visible(tree["runs"][0], dag, 0),
            {"hidden": True, "depth": 1},
            _visible(tree["runs"][2], train, 2),
            {"hidden": True, "depth": 1},
            _visible(tree["runs"][4], orphan, 2),
        ]
        assert tree["runs"][2]["parent_run_id"] is None  # its parent is hidden
        assert tree["runs"][2]["root_run_id"] == dag
        assert tree["total"] == 5
        assert tree["missing_run_ids"] == []
    assert scoped.get(f"{API}/runs/{secret_task}/tree").status_code == 404
    assert scoped.get(f"{API}/runs/{dag}").json()["child_count"] == 1


def _visible(node: dict[str, Any], run_id: str, depth: int) -> dict[str, Any]:
    assert node["run_id"] == run_id
    assert node["depth"] == depth
    assert node["hidden"] is False
    return node
