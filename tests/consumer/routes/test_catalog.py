from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, chain, cross_producer, ingest
from tests.factories import at, dataset, facet, run_event, schema_facet


def test_namespaces_list_every_namespace_with_counts(client: TestClient) -> None:
    ingest(client, *cross_producer())
    body = client.get(f"{API}/namespaces").json()
    assert body["total"] == 4
    assert body["namespaces"] == [n["namespace"] for n in body["counts"]]
    assert body["counts"] == [
        {"namespace": "ml_team", "jobs": 1, "datasets": 2},
        {"namespace": "postgres://db:5432", "jobs": 0, "datasets": 1},
        {"namespace": "s3://bucket", "jobs": 0, "datasets": 2},
        {"namespace": "spark://ml-team", "jobs": 2, "datasets": 0},
    ]


def test_jobs_and_datasets_are_paged_by_namespace_and_name(client: TestClient) -> None:
    ingest(client, *chain("b", 3), *chain("a", 3))
    names = []
    for offset in range(0, 8, 3):
        page = client.get(f"{API}/datasets", params={"limit": 3, "offset": offset}).json()
        assert page["total"] == 8
        names.extend((d["dataset_namespace"], d["dataset_name"]) for d in page["datasets"])
    assert names == sorted(names)
    assert len(names) == 8
    last = client.get(f"{API}/datasets", params={"limit": 3, "offset": 7}).json()
    assert [(d["dataset_namespace"], d["dataset_name"]) for d in last["datasets"]] == [("b", "d3")]
    jobs = client.get(f"{API}/jobs", params={"namespace": "a"}).json()
    assert [j["id"] for j in jobs["jobs"]] == ["job:a:j1", "job:a:j2", "job:a:j3"]
    assert jobs["total"] == 3


def test_search_is_a_case_insensitive_substring_and_literal(client: TestClient) -> None:
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("ns", "Load_Orders"),
            outputs=[
                dataset("ns", "Sales_Orders"),
                dataset("ns", "salesXorders"),
                dataset("ns", "100%_done"),
            ],
        ),
    )
    found = client.get(f"{API}/datasets", params={"search": "S_ORD"}).json()
    assert [d["dataset_name"] for d in found["datasets"]] == ["Sales_Orders"]
    assert found["total"] == 1
    assert client.get(f"{API}/datasets", params={"search": "%"}).json()["total"] == 1
    assert client.get(f"{API}/jobs", params={"search": "load"}).json()["total"] == 1


def test_an_empty_search_is_no_filter(client: TestClient) -> None:
    ingest(client, *chain("a", 2))
    for endpoint in ("jobs", "datasets"):
        everything = client.get(f"{API}/{endpoint}").json()
        empty = client.get(f"{API}/{endpoint}?search=")
        assert empty.status_code == 200, empty.text
        assert empty.json() == everything


def test_datasets_carry_their_feast_object(client: TestClient) -> None:
    ingest(client, *cross_producer())
    items = client.get(f"{API}/datasets", params={"namespace": "ml_team"}).json()["datasets"]
    assert [d["feast"] for d in items] == [
        {"project": "ml_team", "type": "feature_view", "name": "driver_fv"},
        {"project": "ml_team", "type": "data_source", "name": "driver_source"},
    ]


def test_namespace_mapping_names_the_feast_project_of_external_datasets(
    make_client: object,
) -> None:
    client = make_client(namespace_mapping={"spark://ml-team": "ml_team", "bucket": "lake"})  # type: ignore[operator]
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("spark://ml-team", "x"),
            outputs=[dataset("spark://ml-team", "t"), dataset("s3://bucket", "u")],
        ),
    )
    items = client.get(f"{API}/datasets").json()["datasets"]
    assert {d["dataset_name"]: d["feast"] for d in items} == {
        "u": {"project": "lake", "type": None, "name": "u"},
        "t": {"project": "ml_team", "type": None, "name": "t"},
    }


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # refused before SQL
@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("/jobs?limit=0", "limit"),
        ("/datasets?limit=5000", "limit"),
        ("/datasets?offset=-1", "offset"),
        ("/jobs?search=" + "x" * 201, "search"),  # an empty one is no filter
    ],
)
def test_bad_catalog_parameters_are_400(client: TestClient, path: str, needle: str) -> None:
    response = client.get(API + path)
    assert response.status_code == 400
    assert needle in response.json()["error"]["message"]


def test_jobs_and_datasets_carry_feasts_fields(client: TestClient) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    job_facets = {
        "jobType": facet(processingType="BATCH", integration="SPARK", jobType="JOB"),
        "documentation": facet(description="builds orders"),
    }
    orders = dataset(
        "s3://lake",
        "orders",
        dataSource=facet(name="s3", uri="s3://lake"),
        ownership=facet(owners=[{"name": "team:data", "type": "TEAM"}]),
        schema=schema_facet("id"),
    )
    ingest(
        client,
        run_event(
            "COMPLETE", run_id=first, time=at(0), job=("spark", "build"), job_facets=job_facets
        ),
        run_event("START", run_id=second, time=at(60), job=("spark", "build"), outputs=[orders]),
    )
    (job,) = client.get(f"{API}/jobs").json()["jobs"]
    assert (job["job_namespace"], job["job_name"]) == ("spark", "build")
    assert (job["job_type"], job["description"]) == ("BATCH", "builds orders")
    assert json.loads(job["facets_json"])["jobType"]["integration"] == "SPARK"
    assert job["latest_run_id"] == second
    assert job["updated_at"] == 1_767_268_860_000
    assert job["updated_at_iso"] == at(60)
    (ds,) = client.get(f"{API}/datasets").json()["datasets"]
    assert (ds["dataset_namespace"], ds["dataset_name"], ds["source_type"]) == (
        "s3://lake",
        "orders",
        "s3",
    )
    assert (ds["owner_name"], ds["owner_type"]) == ("team:data", "TEAM")
    assert [f["name"] for f in json.loads(ds["schema_json"])["fields"]] == ["id"]
    assert set(json.loads(ds["facets_json"])) == {"dataSource", "ownership", "schema"}
    assert ds["current_version"] is None


def test_as_of_lists_what_existed_then_with_the_run_of_then(client: TestClient) -> None:
    """/jobs and /datasets as of T: the store of the events until T (issue 39)."""
    run = str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "START", run_id=run, job=("asof", "j"), time=at(10), inputs=[dataset("asof", "in")]
        ),
    )
    ingest(
        client,
        run_event(
            "COMPLETE", run_id=run, job=("asof", "j"), time=at(20), outputs=[dataset("asof", "out")]
        ),
    )
    ingest(client, run_event("START", job=("asof", "later"), time=at(30)))

    def jobs(**params: str) -> dict[str, Any]:
        response = client.get(f"{API}/jobs", params={"namespace": "asof", **params})
        assert response.status_code == 200, response.text
        return {j["job_name"]: j["latest_run"] for j in response.json()["jobs"]}

    assert jobs(as_of=at(5)) == {}
    assert jobs(as_of=at(15))["j"]["state"] == "RUNNING"  # it completed after then
    assert jobs(as_of=at(15))["j"]["ended_at_iso"] is None
    assert jobs(as_of=at(25))["j"]["state"] == "COMPLETE"
    assert set(jobs(as_of=at(25))) == {"j"}
    assert jobs(as_of=at(10_000)) == jobs()  # the future is now
    assert list(jobs(as_of=at(35), sort="-latest_started")) == ["later", "j"]
    assert list(jobs(as_of=at(35), sort="updated")) == ["j", "later"]  # null then: tied

    def datasets(**params: str) -> list[str]:
        response = client.get(f"{API}/datasets", params={"namespace": "asof", **params})
        assert response.status_code == 200, response.text
        return [d["dataset_name"] for d in response.json()["datasets"]]

    assert datasets(as_of=at(15)) == ["in"]
    assert datasets(as_of=at(25)) == ["in", "out"]


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # a route: SQLite only
def test_as_of_a_dataset_whose_schema_changed_since_has_the_schema_of_then(
    client: TestClient,
) -> None:
    """The schema facet stated again later is the version then's, as on the graph's node;
    the list answered no schema at all (the quickstart's feature view after its type change)."""

    def write(time: int, kind: str) -> None:
        fields = [{"name": "conv_rate", "type": kind}]
        out = dataset("asof", "fv", schema=facet(fields=fields))
        ingest(client, run_event(job=("asof", "apply"), time=at(time), outputs=[out]))

    write(10, "FLOAT")
    write(20, "DOUBLE")

    def schema(**params: str) -> Any:
        response = client.get(f"{API}/datasets", params={"namespace": "asof", **params})
        assert response.status_code == 200, response.text
        text = response.json()["datasets"][0]["schema_json"]
        return None if text is None else json.loads(text)["fields"][0]["type"]

    assert schema(as_of=at(15)) == "FLOAT"
    assert schema(as_of=at(25)) == "DOUBLE"
    assert schema() == "DOUBLE"


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # a route: SQLite only
@pytest.mark.parametrize("path", ["/jobs", "/datasets"])
@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"as_of": at(1), "since": at(0)}, "as_of"),
        ({"as_of": at(1), "until": at(2)}, "as_of"),
        ({"since": at(0)}, "as_of"),
        ({"as_of": "Tuesday"}, "as_of"),
    ],
)
def test_bad_as_of_on_the_catalog_is_400(
    client: TestClient, path: str, params: dict[str, str], needle: str
) -> None:
    response = client.get(API + path, params=params)
    assert response.status_code == 400, response.text
    assert needle in response.json()["error"]["message"]
