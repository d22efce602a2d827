"""``as_of`` and ``since``/``until`` on the graph page and the subgraph, over HTTP."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.event_time import parse_us
from tests.consumer.lineage import API, ingest, subgraph_path
from tests.factories import (
    at,
    dataset,
    facet,
    job_event,
    lineage_facet,
    run_event,
    schema_facet,
)
from tests.store_helpers import Store

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/read/test_as_of.py, test_window.py and test_as_of_property.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

JOB = ("spark://prod", "etl")


def _history(client: TestClient) -> tuple[str, str]:
    """etl read old and wrote out (schema a) at 10; read new and wrote out (schema a, b) at 20."""
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=second,
            job=JOB,
            time=at(20),
            inputs=[dataset("s3://b", "new")],
            outputs=[dataset("s3://b", "out", schema=schema_facet("a", "b"))],
        ),
        run_event("START", run_id=first, job=JOB, time=at(5), inputs=[dataset("s3://b", "old")]),
        run_event(
            "COMPLETE",
            run_id=first,
            job=JOB,
            time=at(10),
            inputs=[dataset("s3://b", "old")],
            outputs=[dataset("s3://b", "out", schema=schema_facet("a"))],
        ),
    )
    return first, second


def _edges(body: dict) -> set[tuple[str, str, str]]:
    return {(e["source"], e["target"], e["type"]) for e in body["edges"] if e["type"] != "derived"}


ETL = "job:spark://prod:etl"
OLD, NEW, OUT = ("dataset:s3://b:" + n for n in ("old", "new", "out"))


def test_subgraph_as_of_answers_the_lineage_then_with_versions(client: TestClient) -> None:
    _history(client)
    path = subgraph_path("dataset", "s3://b", "out")
    then = client.get(path, params={"as_of": at(12), "direction": "upstream"}).json()
    assert _edges(then) == {(OLD, ETL, "input"), (ETL, OUT, "output")}
    assert (then["as_of"], then["since"]) == (at(12), None)
    nodes = {n["id"]: n for n in then["nodes"]}
    out = nodes[OUT]
    versions = client.get(f"{API}/datasets/s3%3A%2F%2Fb/out/versions").json()["versions"]
    assert out["version"] == versions[-1]["id"]  # the oldest: written at 10
    assert [f["name"] for f in out["schema_fields"]] == ["a"]
    assert out["facets"].keys() == {"schema"}
    assert nodes[ETL]["version"] is not None
    now = client.get(path, params={"as_of": "2999-01-01T00:00:00Z", "direction": "upstream"})
    assert _edges(now.json()) == {(NEW, ETL, "input"), (ETL, OUT, "output")}
    assert now.json()["nodes"][0]["version"] == versions[0]["id"]
    current = client.get(path, params={"direction": "upstream"}).json()
    assert _edges(current) == _edges(now.json())
    assert "version" not in current["nodes"][0]
    assert current["as_of"] is None


def test_a_node_not_yet_named_then_is_404_and_the_page_counts_what_existed(
    client: TestClient,
) -> None:
    _history(client)
    early = client.get(subgraph_path("dataset", "s3://b", "new"), params={"as_of": at(12)})
    assert early.status_code == 404
    assert f"at {at(12)}" in early.json()["error"]["message"]
    page = client.get(f"{API}/graph", params={"as_of": at(7)}).json()
    assert [n["id"] for n in page["nodes"]] == [OLD, ETL]
    assert (page["total_nodes"], page["total_edges"]) == (2, 1)
    assert page["edges"][0]["type"] == "input"


def test_windows_count_the_runs_that_listed_each_edge(client: TestClient) -> None:
    _history(client)
    week = client.get(f"{API}/graph", params={"since": at(0), "until": at(30)}).json()
    edges = {(e["source"], e["target"], e["type"]): e for e in week["edges"]}
    assert edges[(ETL, OUT, "output")]["run_count"] == 2
    assert edges[(ETL, OUT, "output")]["first_seen"] == at(10)
    assert edges[(ETL, OUT, "output")]["last_seen"] == at(20)
    assert edges[(OLD, ETL, "input")]["run_count"] == 1
    assert edges[(OLD, ETL, "input")]["first_seen"] == at(5)
    assert (week["since"], week["until"], week["as_of"]) == (at(0), at(30), None)
    assert week["total_edges"] == 3
    # The first run ended at 10: a window from 15 sees the second alone.
    late = client.get(subgraph_path("job", *JOB), params={"since": at(15)}).json()
    assert _edges(late) == {(NEW, ETL, "input"), (ETL, OUT, "output")}
    assert {e["run_count"] for e in late["edges"] if e["type"] != "derived"} == {1}
    empty = client.get(f"{API}/graph", params={"until": at(1)}).json()
    assert (empty["nodes"], empty["total_nodes"], empty["total_edges"]) == ([], 0, 0)


def test_a_running_run_counts_through_until(client: TestClient) -> None:
    ingest(
        client,
        run_event("START", job=JOB, time=at(0), inputs=[dataset("s3://b", "stream")]),
    )
    body = client.get(subgraph_path("job", *JOB), params={"since": at(50), "until": at(60)}).json()
    assert _edges(body) == {("dataset:s3://b:stream", ETL, "input")}


def test_as_of_with_a_window_or_a_bad_instant_is_a_400_naming_it(client: TestClient) -> None:
    _history(client)
    for url in (f"{API}/graph", subgraph_path("job", *JOB)):
        both = client.get(url, params={"as_of": at(1), "since": at(0)})
        assert both.status_code == 400
        assert both.json()["error"]["code"] == "invalid_parameter"
        assert "as_of" in both.json()["error"]["message"]
        bad = client.get(url, params={"as_of": "last tuesday"})
        assert bad.status_code == 400
        assert "as_of" in bad.json()["error"]["message"]


def _documented_out(doc: str, uri: str) -> dict:
    source = facet(name="s3", uri=uri)
    return dataset("s3://b", "out", documentation=facet(description=doc), dataSource=source)


def _read_documented(seconds: float, doc: str, uri: str) -> dict:
    """A reader's run that documents and locates ``out`` at ``seconds``."""
    out = _documented_out(doc, uri)
    return run_event("COMPLETE", job=("spark://prod", "read"), time=at(seconds), inputs=[out])


def _out_as_of(client: TestClient, seconds: float) -> tuple[dict, dict]:
    """``out`` as of ``seconds``: its details, and its node in the graph's page."""
    node = {"type": "dataset", "namespace": "s3://b", "name": "out", "as_of": at(seconds)}
    details = client.get(f"{API}/graph/node", params={**node, "depth": 0}).json()
    (then,) = details["nodes"]
    page = client.get(f"{API}/graph", params={"as_of": at(seconds)}).json()
    (listed,) = [n for n in page["nodes"] if n["id"] == OUT]
    return then, listed


def test_a_datasets_details_then_hold_its_facets_then_a_page_those_the_store_knows(
    client: TestClient,
) -> None:
    """The reader documents and locates ``out`` at 10; the writer states them again at 20.
    As of 15 "a" is the only payload either facet had been stated with: details and page
    both hold it. A reader's statement at 5 ("z") makes two by then: the page leaves both
    out (the rows cannot tell which was last), the details read them from the events."""
    ingest(
        client,
        _read_documented(10, "a", "s3://b/1"),
        run_event("COMPLETE", job=JOB, time=at(20), outputs=[_documented_out("b", "s3://b/2")]),
    )
    then, listed = _out_as_of(client, 15)
    assert then["facets"]["documentation"]["description"] == "a"
    assert then["datasource_uri"] == "s3://b/1"
    assert listed["facets"] == then["facets"]
    assert listed["datasource_uri"] == "s3://b/1"
    ingest(client, _read_documented(5, "z", "s3://b/0"))
    then, listed = _out_as_of(client, 15)
    assert then["facets"]["documentation"]["description"] == "a"
    assert then["datasource_uri"] == "s3://b/1"
    assert "documentation" not in listed["facets"]  # "z" or "a": left out, never "b"
    assert listed["datasource_uri"] is None
    now_params = {"type": "dataset", "namespace": "s3://b", "name": "out", "depth": 0}
    now = client.get(f"{API}/graph/node", params=now_params).json()
    assert now["nodes"][0]["datasource_uri"] == "s3://b/2"


DAG = ("airflow://prod", "dag")
TASK = ("airflow://prod", "dag.task")


def _dag_runs(client: TestClient) -> None:
    """The DAG ran at 10 (its task too, naming it) and again at 50 (its task naming a run of
    the DAG the store never got); the task is a Feast definition job."""
    feast_kind = {"feast_job_kind": facet(kind="definition", feast_project="ml_team")}
    dag_run, lost_run = str(uuid.uuid4()), str(uuid.uuid4())
    ingest(
        client,
        run_event("COMPLETE", run_id=dag_run, job=DAG, time=at(10)),
        run_event(
            "COMPLETE",
            job=TASK,
            time=at(11),
            parent=(dag_run, DAG),
            job_facets=feast_kind,
            inputs=[dataset("s3://b", "raw")],
        ),
        run_event("COMPLETE", job=DAG, time=at(50)),
        run_event("COMPLETE", job=TASK, time=at(51), parent=(lost_run, DAG), job_facets=feast_kind),
    )


def test_a_windows_nodes_are_as_stored_and_its_parent_edges_those_its_runs_named(
    client: TestClient,
) -> None:
    _dag_runs(client)
    dag, task = "job:airflow://prod:dag", "job:airflow://prod:dag.task"
    window = client.get(f"{API}/graph", params={"since": at(0), "until": at(30)}).json()
    nodes = {n["id"]: n for n in window["nodes"]}
    # The task's Feast kind, as the current graph has it: what the UI's Jobs filter reads.
    assert nodes[task]["feast"] == {
        "project": "ml_team",
        "type": "definition_job",
        "name": "dag.task",
    }
    assert nodes[task]["facets"].keys() == {"feast_job_kind"}
    parent = next(e for e in window["edges"] if e["type"] == "parent")
    assert (parent["source"], parent["target"], parent["run_count"]) == (dag, task, 1)
    assert (parent["first_seen"], parent["last_seen"]) == (at(11), at(11))
    assert window["total_edges"] == 2  # the task's input, its parent edge
    focused = client.get(subgraph_path("job", *TASK), params={"since": at(0), "until": at(30)})
    assert "parent" not in {e["type"] for e in focused.json()["edges"]}  # the walk: inputs only
    # The later window: the task's run names a run of the DAG the store lacks, no parent edge.
    later = client.get(f"{API}/graph", params={"since": at(40)}).json()
    assert {n["id"] for n in later["nodes"]} == {dag, task}
    assert later["edges"] == []
    assert later["total_edges"] == 0


def _listed_is_counted(client: TestClient, **params: str) -> dict[str, Any]:
    body = client.get(f"{API}/graph", params={"limit": 5000, **params}).json()
    assert body["total_edges"] == len(body["edges"]), body
    return body


def test_a_windows_parent_edges_are_counted_as_listed(client: TestClient) -> None:
    """A run naming a run of its own job makes no parent edge, in a window as now; a parent
    that did not run in the window is listed no more than counted, though explicit lineage
    makes it a node; a parent run that ended before since counts in no later window."""
    own = str(uuid.uuid4())
    ingest(
        client,
        run_event("COMPLETE", run_id=own, job=("self", "loop"), time=at(5)),
        run_event("COMPLETE", job=("self", "loop"), time=at(6), parent=(own, ("self", "loop"))),
    )
    assert _listed_is_counted(client, since=at(0))["total_edges"] == 0
    dag_run = str(uuid.uuid4())
    ingest(
        client,
        run_event("COMPLETE", run_id=dag_run, job=DAG, time=at(10)),
        run_event("START", job=TASK, time=at(11), parent=(dag_run, DAG)),
        job_event(*TASK, time=at(60), lineage=lineage_facet(("JOB", *TASK, [("JOB", *DAG)]))),
    )
    late = _listed_is_counted(client, since=at(50))
    assert "parent" not in {e["type"] for e in late["edges"]}  # the DAG ran at 10 only
    early = _listed_is_counted(client, since=at(0))
    assert "parent" in {e["type"] for e in early["edges"]}


def test_a_time_before_the_retention_horizon_is_a_400_whose_details_name_the_horizon(
    client: TestClient, head_store_url: str
) -> None:
    """The message names the oldest instant answered; a client (the UI) reads it from the
    ``details`` item, code ``before_retention_horizon``, without parsing the message."""
    _history(client)
    store = Store(head_store_url)
    try:
        prune(store.engine, parse_us(at(15)))
    finally:
        store.close()
    etl = subgraph_path("job", *JOB)
    node = {"type": "job", "namespace": JOB[0], "name": JOB[1], "depth": 0}
    asks = [
        (f"{API}/graph", {"as_of": at(12)}, "as_of"),
        (f"{API}/graph", {"since": at(12)}, "since"),
        (etl, {"as_of": at(12)}, "as_of"),
        (etl, {"since": at(12), "until": at(30)}, "since"),
        (f"{API}/graph/node", {**node, "as_of": at(12)}, "as_of"),
        (f"{API}/jobs", {"as_of": at(12)}, "as_of"),
        (f"{API}/datasets", {"as_of": at(12)}, "as_of"),
    ]
    for path, params, parameter in asks:
        answer = client.get(path, params=params)
        assert answer.status_code == 400, (path, params, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "invalid_parameter"
        assert at(15) in error["message"]
        assert error["details"] == [
            {
                "path": parameter,
                "code": "before_retention_horizon",
                "message": error["message"],
                "horizon": at(15),
            }
        ], (path, params)
    # At the horizon, it answers.
    assert client.get(f"{API}/graph", params={"as_of": at(15)}).status_code == 200
