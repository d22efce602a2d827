"""Run trees of other producers' events (../shared/openlineage, see its SOURCES.md).

* Spark application -> Spark jobs: the Spark integration's application-level
  expected events (``ol_spark_container/applicationLevel*``: the application
  names its scheduler's run as parent; each Spark job names the application).
  They are partial-match templates: the run ids, times and the Spark job's
  name they leave out are filled in here, nothing else is changed.
* Airflow DAG -> task -> Spark: the spec's Airflow ``parent`` facet
  (``spec/facet_tests/ParentRunFacet/2.json``: task ``my_dag.my_task`` of DAG
  ``my_dag`` as parent and root) on the Spark application's events, the
  Airflow task and DAG runs it names arriving after (or never).
* Marquez's full event names a parent that never arrives.
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import EVENTS_DIR
from tests.consumer.lineage import API, ingest
from tests.factories import PRODUCER, SCHEMA_URL, at

SPARK = EVENTS_DIR / "ol_spark_container"
AIRFLOW_PARENT = EVENTS_DIR.parent / "spec" / "facet_tests" / "ParentRunFacet" / "2.json"
SCHEDULER_RUN = "bd9c2467-3ed7-4fdc-85c2-41ebf5c73b40"  # the application's parent, in the files


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _filled(template: dict[str, Any], run_id: str, t: float, **job: str) -> dict[str, Any]:
    event = copy.deepcopy(template)
    event.setdefault("eventTime", at(t))
    event.setdefault("producer", PRODUCER)
    event.setdefault("schemaURL", SCHEMA_URL)
    event["run"]["runId"] = run_id
    event["job"].update(job)
    return event


def _spark(app_run: str, job_runs: list[str], parent: Any = None) -> list[dict[str, Any]]:
    """The application's START and COMPLETE and each Spark job's, as the files have them."""
    events = []
    for name, t in (
        ("applicationLevelStartApplication", 0),
        ("applicationLevelCompleteApplication", 90),
    ):
        app = _filled(_load(SPARK / f"{name}.json"), app_run, t)
        if parent is not None:
            app["run"]["facets"]["parent"] = parent
        events.append(app)
    for i, run_id in enumerate(job_runs):
        for name, t in (
            ("applicationLevelStartJob", 10 + i),
            ("applicationLevelCompleteJob", 50 + i),
        ):
            job = _filled(
                _load(SPARK / f"{name}.json"), run_id, t, name=f"generic_integration_test.job_{i}"
            )
            # The file names the application's job; its run is the application's.
            job["run"]["facets"]["parent"]["run"] = {"runId": app_run}
            events.append(job)
    return events


def _tree(client: TestClient, run_id: str) -> dict[str, Any]:
    response = client.get(f"{API}/runs/{run_id}/tree")
    assert response.status_code == 200, response.text
    return response.json()


def _shape(tree: dict[str, Any]) -> list[tuple[int, str, str, str | None]]:
    return [(n["depth"], n["job_namespace"], n["job_name"], n["state"]) for n in tree["runs"]]


def test_spark_application_with_its_jobs_under_its_scheduler_run(client: TestClient) -> None:
    app_run = str(uuid.uuid4())
    job_runs = sorted(str(uuid.uuid4()) for _ in range(2))
    ingest(client, *_spark(app_run, job_runs))
    tree = _tree(client, job_runs[1])
    # The scheduler's run (parent-job) never arrives: it is the root, named as missing.
    assert tree["root_run_id"] == SCHEDULER_RUN
    assert tree["missing_run_ids"] == [SCHEDULER_RUN]
    assert _shape(tree) == [
        (0, "parent-namespace", "parent-job", None),
        (1, "generic-namespace", "generic_integration_test", "COMPLETE"),
        (2, "generic-namespace", "generic_integration_test.job_0", "COMPLETE"),
        (2, "generic-namespace", "generic_integration_test.job_1", "COMPLETE"),
    ]
    app = client.get(f"{API}/runs/{app_run}").json()
    assert app["parent_run_id"] == SCHEDULER_RUN
    assert app["child_count"] == 2
    assert sorted(app["child_run_ids"]) == job_runs


def test_airflow_dag_task_spark_application_and_jobs(client: TestClient) -> None:
    airflow = _load(AIRFLOW_PARENT)["parent"]
    task_run, dag_run = airflow["run"]["runId"], airflow["root"]["run"]["runId"]
    app_run = str(uuid.uuid4())
    job_runs = sorted(str(uuid.uuid4()) for _ in range(2))
    ingest(client, *_spark(app_run, job_runs, parent=airflow))
    # Before Airflow's own events: the task and the DAG run are named, missing.
    early = _tree(client, job_runs[0])
    assert early["root_run_id"] == dag_run
    assert sorted(early["missing_run_ids"]) == sorted([dag_run, task_run])
    assert _shape(early) == [
        (0, "airflow", "my_dag", None),
        (1, "airflow", "my_dag.my_task", None),
        (2, "generic-namespace", "generic_integration_test", "COMPLETE"),
        (3, "generic-namespace", "generic_integration_test.job_0", "COMPLETE"),
        (3, "generic-namespace", "generic_integration_test.job_1", "COMPLETE"),
    ]
    # Airflow's DAG run and task run arrive: the tree is whole, in the same places.
    dag = {"namespace": "airflow", "name": "my_dag"}
    task_parent = {"run": {"runId": dag_run}, "job": dag, "_producer": PRODUCER}
    task_parent["_schemaURL"] = airflow["_schemaURL"]
    ingest(
        client,
        _event("COMPLETE", dag_run, dag, 100, {}),
        _event("COMPLETE", task_run, airflow["job"], 95, {"parent": task_parent}),
    )
    late = _tree(client, app_run)
    assert late["missing_run_ids"] == []
    assert _shape(late)[:2] == [
        (0, "airflow", "my_dag", "COMPLETE"),
        (1, "airflow", "my_dag.my_task", "COMPLETE"),
    ]
    assert [n["run_id"] for n in late["runs"]] == [dag_run, task_run, app_run, *job_runs]
    assert _tree(client, dag_run)["runs"] == late["runs"]


def test_marquez_full_event_names_a_parent_that_never_arrives(client: TestClient) -> None:
    event = _load(EVENTS_DIR / "marquez" / "open_lineage" / "event_full.json")
    ingest(client, event)
    run_id, parent = event["run"]["runId"], event["run"]["facets"]["parent"]["run"]["runId"]
    tree = _tree(client, run_id)
    assert tree["missing_run_ids"] == [parent]
    assert _shape(tree) == [
        (0, "my-scheduler-namespace", "myjob.mytask", None),
        (1, "my-scheduler-namespace", "myjob.mytask", "COMPLETE"),
    ]
    # The output's statistics are in the run answer.
    detail = client.get(f"{API}/runs/{run_id}").json()
    stats = [d["statistics"] for d in detail["outputs"]]
    facets = [d["outputFacets"]["outputStatistics"] for d in event["outputs"]]
    assert stats == [
        {"rows": f["rowCount"], "bytes": f["size"], "files": None, "facet": "outputStatistics"}
        for f in facets
    ]


def _event(state: str, run_id: str, job: dict[str, Any], t: float, facets: Any) -> dict[str, Any]:
    return {
        "eventType": state,
        "eventTime": at(t),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id, "facets": facets},
        "job": {"namespace": job["namespace"], "name": job["name"]},
        "inputs": [],
        "outputs": [],
    }
