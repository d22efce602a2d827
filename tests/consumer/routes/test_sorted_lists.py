"""Jobs with their latest run, and the job and run lists sorted and filtered on the server."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, run_event


def _fill(client: TestClient) -> list[str]:
    """Jobs a/load (COMPLETE, 5 s), a/train (FAIL after 2 s, latest), b/load (RUNNING), a/idle."""
    ids = [str(uuid.uuid4()) for _ in range(5)]
    ingest(
        client,
        run_event("START", run_id=ids[0], job=("a", "load"), time=at(0)),
        run_event("COMPLETE", run_id=ids[0], job=("a", "load"), time=at(5)),
        run_event("START", run_id=ids[1], job=("a", "train"), time=at(10)),
        run_event("FAIL", run_id=ids[1], job=("a", "train"), time=at(12)),
        run_event("START", run_id=ids[2], job=("b", "load"), time=at(20)),
        run_event("START", run_id=ids[3], job=("a", "train"), time=at(1)),
        run_event("COMPLETE", run_id=ids[3], job=("a", "train"), time=at(9)),
        run_event("OTHER", run_id=ids[4], job=("a", "load_daily"), time=at(30)),
    )
    return ids


def _get(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"{API}/{path}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_each_job_carries_its_latest_run(client: TestClient) -> None:
    ids = _fill(client)
    jobs = {j["job_name"] + "@" + j["job_namespace"]: j for j in _get(client, "jobs")["jobs"]}
    train = jobs["train@a"]["latest_run"]
    assert train["run_id"] == ids[1]
    assert train["state"] == "FAIL"
    assert train["duration_ms"] == 2000
    assert train["started_at_iso"] == "2026-01-01T12:00:10Z"
    assert jobs["train@a"]["latest_run_id"] == ids[1]
    running = jobs["load@b"]["latest_run"]
    assert running["state"] == "RUNNING"
    assert running["ended_at"] is None
    assert running["duration_ms"] is None


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        (None, ["a/load", "a/load_daily", "a/train", "b/load"]),
        ("name", ["a/load", "b/load", "a/load_daily", "a/train"]),
        ("-name", ["a/train", "a/load_daily", "b/load", "a/load"]),
        ("latest_started", ["a/load", "a/train", "b/load", "a/load_daily"]),
        ("-latest_started", ["a/load_daily", "b/load", "a/train", "a/load"]),
        # Jobs whose latest run has not ended come last either way.
        ("latest_duration", ["a/train", "a/load", "a/load_daily", "b/load"]),
        ("-latest_duration", ["a/load", "a/train", "b/load", "a/load_daily"]),
        ("latest_state", ["a/load", "a/train", "a/load_daily", "b/load"]),
    ],
)
def test_jobs_sort_on_the_server_and_page_stably(
    client: TestClient, sort: str | None, expected: list[str]
) -> None:
    _fill(client)
    seen: list[str] = []
    for offset in range(4):
        params: dict[str, Any] = {"limit": 1, "offset": offset}
        if sort:
            params["sort"] = sort
        page = _get(client, "jobs", **params)
        assert page["total"] == 4
        seen.extend(f"{j['job_namespace']}/{j['job_name']}" for j in page["jobs"])
    assert seen == expected


def test_ties_are_broken_by_namespace_and_name_on_every_page(client: TestClient) -> None:
    ingest(
        client, *(run_event("COMPLETE", job=(f"n{i % 3}", f"j{i}"), time=at(0)) for i in range(7))
    )
    names = []
    for offset in range(0, 7, 2):
        page = _get(client, "jobs", sort="-latest_state", limit=2, offset=offset)
        names.extend((j["job_namespace"], j["job_name"]) for j in page["jobs"])
    assert names == sorted(names, reverse=True)
    assert len(set(names)) == 7


def test_datasets_sort_on_the_server(client: TestClient) -> None:
    ingest(
        client,
        run_event("COMPLETE", job=("j", "w"), time=at(3), outputs=[dataset("b", "x")]),
        run_event("COMPLETE", job=("j", "w2"), time=at(1), outputs=[dataset("a", "y")]),
        run_event("COMPLETE", job=("j", "w3"), time=at(2), outputs=[dataset("c", "a")]),
    )

    def names(sort: str) -> list[str]:
        return [d["dataset_name"] for d in _get(client, "datasets", sort=sort)["datasets"]]

    assert names("name") == ["a", "x", "y"]
    assert names("-updated") == ["x", "a", "y"]
    assert names("namespace") == ["y", "x", "a"]
    bad = client.get(f"{API}/datasets", params={"sort": "rows"})
    assert bad.status_code == 400
    assert "'sort'" in bad.json()["error"]["message"]


def test_runs_filter_by_job_substring_and_time_range(client: TestClient) -> None:
    ids = _fill(client)

    def run_ids(**params: Any) -> list[str]:
        return [r["run_id"] for r in _get(client, "runs", **params)["runs"]]

    assert run_ids(job_search="LOAD") == [ids[4], ids[2], ids[0]]
    assert run_ids(job_search="oad_d") == [ids[4]]
    assert run_ids(job_search="load", job_namespace="b") == [ids[2]]
    assert run_ids(job_search="nothing") == []
    assert run_ids(since=at(10)) == [ids[4], ids[2], ids[1]]
    assert run_ids(until=at(10)) == [ids[3], ids[0]]
    assert run_ids(since=at(1), until=at(20)) == [ids[1], ids[3]]
    assert run_ids(state="FAIL", job_search="rain", since=at(5)) == [ids[1]]


@pytest.mark.parametrize(
    ("sort", "groups"),
    [
        ("started", [[0], [3], [1], [2], [4]]),
        ("-started", [[4], [2], [1], [3], [0]]),
        ("duration", [[1], [0], [3], [2, 4]]),  # runs not ended last, by run id
        ("-duration", [[3], [0], [1], [2, 4]]),
        ("ended", [[0], [3], [1], [2, 4]]),
        ("state", [[0, 3], [1], [4], [2]]),
        ("-state", [[2], [4], [1], [0, 3]]),
    ],
)
def test_runs_sort_on_the_server_and_page_stably(
    client: TestClient, sort: str, groups: list[list[int]]
) -> None:
    ids = _fill(client)
    seen = []
    for offset in range(0, 5, 2):
        page = _get(client, "runs", sort=sort, limit=2, offset=offset)
        assert page["total"] == 5
        seen.extend(r["run_id"] for r in page["runs"])
    descending = sort.startswith("-")
    expected = [
        run for group in groups for run in sorted((ids[i] for i in group), reverse=descending)
    ]
    assert seen == expected


def test_run_ties_are_broken_by_run_id(client: TestClient) -> None:
    ingest(client, *(run_event("COMPLETE", job=("n", f"j{i}"), time=at(0)) for i in range(5)))
    seen = []
    for offset in range(0, 5, 2):
        page = _get(client, "runs", sort="-state", limit=2, offset=offset)
        seen.extend(r["run_id"] for r in page["runs"])
    assert seen == sorted(seen, reverse=True)


def test_events_filter_by_job_substring(client: TestClient) -> None:
    _fill(client)
    events = _get(client, "events", job_search="TRAIN")["events"]
    assert {e["job_name"] for e in events} == {"train"}
    assert len(events) == 4
    assert _get(client, "events", job_search="zzz")["total"] == 0


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # refused before SQL
@pytest.mark.parametrize(
    ("path", "params", "names"),
    [
        ("jobs", {"sort": "size"}, ["'sort'", "latest_state", "'-'"]),
        ("runs", {"sort": "-size"}, ["'sort'", "duration", "'-'"]),
        ("runs", {"since": "yesterday"}, ["'since'"]),
        ("runs", {"until": "2026-13-01"}, ["'until'"]),
        ("runs", {"since": at(5), "until": at(1)}, ["'since'", "'until'", "swap"]),
        ("runs", {"job_search": ""}, ["job_search"]),
        ("events", {"job_search": ""}, ["job_search"]),
    ],
)
def test_bad_sort_and_times_are_a_400_naming_the_parameter(
    client: TestClient, path: str, params: dict[str, str], names: list[str]
) -> None:
    response = client.get(f"{API}/{path}", params=params)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    for name in names:
        assert name in message


def test_graph_job_nodes_carry_their_latest_run_state(client: TestClient) -> None:
    run = str(uuid.uuid4())
    ingest(
        client,
        run_event("START", run_id=run, job=("a", "w"), time=at(0), outputs=[dataset("a", "t")]),
        run_event("FAIL", run_id=run, job=("a", "w"), time=at(1), outputs=[dataset("a", "t")]),
        run_event("START", job=("a", "r"), time=at(2), inputs=[dataset("a", "t")]),
    )
    nodes = {n["id"]: n for n in _get(client, "graph")["nodes"]}
    assert nodes["job:a:w"]["latest_run_state"] == "FAIL"
    assert nodes["job:a:r"]["latest_run_state"] == "RUNNING"
    assert nodes["dataset:a:t"]["latest_run_state"] is None
    sub = _get(client, "graph/node", type="job", namespace="a", name="w", depth=1)
    assert {n["id"]: n["latest_run_state"] for n in sub["nodes"]}["job:a:w"] == "FAIL"
