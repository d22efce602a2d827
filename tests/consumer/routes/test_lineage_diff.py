"""``GET /lineage/diff``: what changed between two instants, over HTTP (issue 40)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.event_time import parse_us
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, facet, run_event, schema_facet
from tests.head_stores import HeadStores
from tests.store_helpers import Store

JOB = ("spark://prod", "etl")
DIFF = f"{API}/lineage/diff"
ETL = "job:spark://prod:etl"
OLD, NEW, OUT = ("dataset:s3://b:" + n for n in ("old", "new", "out"))


@pytest.fixture
def head_store_url(tmp_path: Path, head_stores: HeadStores) -> str:
    """Route tests on SQLite only (the store-level property test covers the three databases)."""
    return head_stores.sqlite(tmp_path / "lineage.db")


def _sql(query: str) -> dict[str, Any]:
    return {"sql": facet(query=query)}


def _history(client: TestClient) -> tuple[str, str]:
    """etl read old, wrote out (schema a) by 10; read new, wrote out (a, b), new SQL at 20."""
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
            job_facets=_sql("select a, b from new"),
        ),
        run_event(
            "START",
            run_id=first,
            job=JOB,
            time=at(5),
            inputs=[dataset("s3://b", "old")],
            job_facets=_sql("select a from old"),
        ),
        run_event(
            "COMPLETE",
            run_id=first,
            job=JOB,
            time=at(10),
            inputs=[dataset("s3://b", "old")],
            outputs=[dataset("s3://b", "out", schema=schema_facet("a"))],
            job_facets=_sql("select a from old"),
        ),
    )
    return first, second


def _edges(edges: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(e["source"], e["target"], e["type"]) for e in edges if e["type"] != "derived"}


def test_the_diff_names_what_was_added_removed_and_changed(client: TestClient) -> None:
    _history(client)
    body = client.get(DIFF, params={"from": at(12), "to": at(30)}).json()
    assert (body["from"], body["to"], body["center"], body["depth"]) == (at(12), at(30), None, None)
    assert [n["id"] for n in body["nodes_added"]] == [NEW]
    assert body["nodes_removed"] == []
    assert _edges(body["edges_added"]) == {(NEW, ETL, "input")}
    assert _edges(body["edges_removed"]) == {(OLD, ETL, "input")}
    [change] = body["schema_changes"]
    assert (change["node"], change["namespace"], change["name"]) == (OUT, "s3://b", "out")
    assert [f["name"] for f in change["diff"]["added"]] == ["b"]
    versions = client.get(f"{API}/datasets/s3%3A%2F%2Fb/out/versions").json()["versions"]
    assert (change["from_version"], change["to_version"]) == (versions[1]["id"], versions[0]["id"])
    assert change["diff"]["previous_id"] == versions[1]["id"]
    [job] = body["job_changes"]
    assert (job["node"], set(job["changed"])) == (ETL, {"sql", "inputs"})
    jobs = client.get(f"{API}/jobs/spark%3A%2F%2Fprod/etl/versions").json()["versions"]
    assert (job["from_version"], job["to_version"]) == (jobs[1]["id"], jobs[0]["id"])
    assert body["totals"] == {
        "nodes_added": 1,
        "nodes_removed": 0,
        "edges_added": len(body["edges_added"]),
        "edges_removed": len(body["edges_removed"]),
        "schema_changes": 1,
        "column_edges_added": 0,
        "column_edges_removed": 0,
        "job_changes": 1,
    }
    early = client.get(DIFF, params={"from": at(1), "to": at(30)}).json()
    assert "nodes_added" in early, early
    out = next(n for n in early["nodes_added"] if n["id"] == OUT)
    assert [f["name"] for f in out["schema"]["fields"]] == ["a", "b"]  # as of `to`
    assert out["version"] == versions[0]["id"]
    back = client.get(DIFF, params={"from": at(30), "to": at(12)}).json()
    assert [n["id"] for n in back["nodes_removed"]] == [NEW]
    assert _edges(back["edges_added"]) == _edges(body["edges_removed"])
    assert [f["name"] for f in back["schema_changes"][0]["diff"]["removed"]] == ["b"]


def test_within_narrows_the_whole_graph_diff_as_the_graph_page_narrows(
    client: TestClient,
) -> None:
    first, _ = _history(client)
    ingest(  # and in another namespace: a job that starts writing a table at 25
        client,
        run_event(
            "COMPLETE",
            job=("airflow://x", "load"),
            time=at(25),
            inputs=[dataset("airflow://x", "src")],
            outputs=[dataset("airflow://x", "dst")],
        ),
    )
    whole = client.get(DIFF, params={"from": at(12), "to": at(30)}).json()
    assert whole["within"] is None
    assert {n["namespace"] for n in whole["nodes_added"]} == {"s3://b", "airflow://x"}

    def graph(ns: str, t: str) -> tuple[set[str], set[tuple[str, str, str]]]:
        page = client.get(f"{API}/graph", params={"namespace": ns, "as_of": t}).json()
        return {n["id"] for n in page["nodes"]}, _edges(page["edges"])

    for ns in ("s3://b", "spark://prod", "airflow://x"):
        body = client.get(DIFF, params={"from": at(12), "to": at(30), "within": ns}).json()
        assert body["within"] == ns
        (old_nodes, old_edges), (new_nodes, new_edges) = graph(ns, at(12)), graph(ns, at(30))
        assert {n["id"] for n in body["nodes_added"]} == new_nodes - old_nodes
        assert {n["id"] for n in body["nodes_removed"]} == old_nodes - new_nodes
        assert _edges(body["edges_added"]) == new_edges - old_edges
        assert _edges(body["edges_removed"]) == old_edges - new_edges
        changed = {c["node"] for c in body["schema_changes"] + body["job_changes"]}
        assert changed == {c["node"] for c in whole["schema_changes"] + whole["job_changes"]} & (
            old_nodes | new_nodes
        )
    airflow = client.get(DIFF, params={"from": at(12), "to": at(30), "within": "airflow://x"})
    assert _edges(airflow.json()["edges_added"])  # the namespace's own edges are there
    # A run of another namespace still names the instant.
    by_run = client.get(DIFF, params={"from_run": first, "to": at(30), "within": "airflow://x"})
    assert by_run.status_code == 200, by_run.text
    assert by_run.json()["from"] == at(10)


def test_within_narrows_which_nodes_not_what_the_caller_sees_of_them(
    client: TestClient,
) -> None:
    # out's symlinks and column lineage name another namespace the caller may see.
    links = {"identifiers": [{"namespace": "hive://wh", "name": "db.tbl", "type": "TABLE"}]}
    copied = {"type": "DIRECT", "subtype": "IDENTITY", "description": "copied"}
    source = {"namespace": "hive://wh", "name": "db.src", "field": "a", "transformations": [copied]}
    columns = {"fields": {"a": {"inputFields": [source], "transformationDescription": "copied a"}}}
    out = dataset("s3://b", "out", symlinks=links, columnLineage=columns, schema=schema_facet("a"))
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("s3://b", "etl"),
            time=at(20),
            inputs=[dataset("hive://wh", "db.src")],
            outputs=[out],
        ),
    )
    diff = client.get(DIFF, params={"from": at(10), "to": at(30), "within": "s3://b"}).json()
    page = client.get(f"{API}/graph", params={"namespace": "s3://b", "as_of": at(30)}).json()
    added = {n["id"]: n for n in diff["nodes_added"]}
    shown = {n["id"]: n for n in page["nodes"]}
    assert added.keys() == shown.keys()
    assert added["dataset:s3://b:out"] == shown["dataset:s3://b:out"]
    assert added["dataset:s3://b:out"]["facets"]["symlinks"]["identifiers"]


def test_runs_stand_for_their_end_and_a_centre_bounds_the_walk(client: TestClient) -> None:
    first, second = _history(client)
    body = client.get(DIFF, params={"from_run": first, "to_run": second}).json()
    assert (body["from"], body["to"]) == (at(10), at(20))
    assert [n["id"] for n in body["nodes_added"]] == [NEW]
    centred = client.get(
        DIFF,
        params={
            "from": at(12),
            "to": at(30),
            "node_type": "dataset",
            "namespace": "s3://b",
            "name": "out",
            "depth": 1,
            "direction": "upstream",
        },
    ).json()
    assert (centred["center"], centred["depth"], centred["direction"]) == (OUT, 1, "upstream")
    assert centred["nodes_added"] == []
    assert centred["edges_added"] == []
    assert len(centred["schema_changes"]) == 1
    assert len(centred["job_changes"]) == 1
    new = client.get(
        DIFF,
        params={"from": at(12), "to": at(30), "node_type": "dataset"}
        | {"namespace": "s3://b", "name": "new", "depth": 1},
    ).json()
    assert [n["id"] for n in new["nodes_added"]] == [
        NEW,
        ETL,
    ]  # new did not exist at 12 (sorted by id)


def test_bad_asks_are_400s_naming_the_parameters(client: TestClient) -> None:
    first, _ = _history(client)

    def error(**params: Any) -> tuple[int, str]:
        response = client.get(DIFF, params=params)
        return response.status_code, response.json()["error"]["message"]

    code, message = error(to=at(3))
    assert code == 400
    assert "'from'" in message
    assert "'from_run'" in message
    code, message = error(**{"from": at(1), "from_run": first, "to": at(3)})
    assert code == 400
    assert "exactly one" in message
    code, message = error(**{"from": at(1)})
    assert code == 400
    assert "'to_run'" in message
    code, message = error(**{"from": "yesterday", "to": at(3)})
    assert code == 400
    assert "'from'" in message
    code, message = error(**{"from": at(1), "to": at(3), "node_type": "job"})
    assert code == 400
    assert "namespace, name missing" in message
    code, message = error(**{"from": at(1), "to": at(3), "depth": 2})
    assert code == 400
    assert "centre" in message
    centred = {"node_type": "job", "namespace": "spark://prod", "name": "etl"}
    code, message = error(**{"from": at(1), "to": at(3), "within": "s3://b"} | centred)
    assert code == 400
    assert "within" in message
    assert "not both" in message
    code, message = error(**{"from": at(1), "to": at(3), "within": ""} | centred)
    assert code == 400
    assert "not both" in message
    missing = str(uuid.uuid4())
    code, message = error(from_run=missing, to=at(3))
    assert code == 404
    assert "from_run" in message
    assert missing in message
    code, message = error(
        **{"from": at(1), "to": at(3), "node_type": "job", "namespace": "x", "name": "y"}
    )
    assert code == 404
    assert "either instant" in message


def test_a_running_run_stands_for_now(client: TestClient) -> None:
    running = str(uuid.uuid4())
    ingest(client, run_event("START", run_id=running, job=JOB, time=at(5)))
    body = client.get(DIFF, params={"from": at(1), "to_run": running}).json()
    assert body["to"] > at(5)
    assert body["to"] > "2026"
    assert [n["id"] for n in body["nodes_added"]] == [ETL]


def _column_lineage(field: str) -> dict[str, Any]:
    return facet(
        fields={"a": {"inputFields": [{"namespace": "s3://b", "name": "src", "field": field}]}}
    )


def test_column_edges_added_and_removed(client: TestClient) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for run, time, field in ((first, 10, "x"), (second, 20, "y")):
        out = dataset("s3://b", "out", columnLineage=_column_lineage(field))
        ingest(
            client,
            run_event(
                "COMPLETE",
                run_id=run,
                job=JOB,
                time=at(time),
                inputs=[dataset("s3://b", "src")],
                outputs=[out],
            ),
        )
    body = client.get(DIFF, params={"from": at(12), "to": at(30)}).json()
    added = [(e["source"], e["target"]) for e in body["column_edges_added"]]
    removed = [(e["source"], e["target"]) for e in body["column_edges_removed"]]
    assert added == [("field:s3://b:src:y", "field:s3://b:out:a")]
    assert removed == [("field:s3://b:src:x", "field:s3://b:out:a")]
    assert body["column_edges_added"][0]["job"] == {"namespace": "spark://prod", "name": "etl"}
    assert (body["totals"]["column_edges_added"], body["totals"]["column_edges_removed"]) == (1, 1)


def test_from_before_the_retention_horizon_is_a_400_whose_details_name_the_horizon(
    client: TestClient, head_store_url: str
) -> None:
    _history(client)
    store = Store(head_store_url)
    try:
        prune(store.engine, parse_us(at(15)))
    finally:
        store.close()
    answer = client.get(DIFF, params={"from": at(12), "to": at(30)})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_parameter"
    assert error["details"] == [
        {
            "path": "from",
            "code": "before_retention_horizon",
            "message": error["message"],
            "horizon": at(15),
        }
    ]


def test_two_jobs_whose_names_join_alike_keep_a_column_edge_each(client: TestClient) -> None:
    # Keyed by "{namespace}:{name}" unescaped, (a:b, c) and (a, b:c) were one job: one edge of
    # the two was added, the other lost.
    jobs = [("a:b", "c"), ("a", "b:c")]
    for job in jobs:
        out = dataset("s3://b", "out", columnLineage=_column_lineage("y"))
        ingest(
            client,
            run_event(
                "COMPLETE", job=job, time=at(20), inputs=[dataset("s3://b", "src")], outputs=[out]
            ),
        )
    body = client.get(DIFF, params={"from": at(12), "to": at(30)}).json()
    added = body["column_edges_added"]
    assert sorted((e["job"]["namespace"], e["job"]["name"]) for e in added) == sorted(jobs)
    assert {(e["source"], e["target"]) for e in added} == {
        ("field:s3://b:src:y", "field:s3://b:out:a")
    }
    assert body["totals"]["column_edges_added"] == 2
