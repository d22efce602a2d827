"""``GET /lineage/diff``: what changed between two instants, over HTTP (issue 40)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, facet, run_event, schema_facet
from tests.head_stores import HeadStores

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
