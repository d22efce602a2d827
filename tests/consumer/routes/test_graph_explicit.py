"""Explicit lineage in the graph answers: edge kinds, origins, walks and access filtering."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from feast_lineage.consumer.schemas import ColumnLineage, GraphPage, Subgraph
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest, subgraph_path
from tests.factories import at, dataset_event, facet, job_event, run_event
from tests.test_explicit_lineage import example

AF = "airflow://production"


def edge_set(body: dict) -> set[tuple[str, str, str, str | None]]:
    """The edges stored or stated (not derived through a job)."""
    return {
        (e["source"], e["target"], e["type"], e["origin"])
        for e in body["edges"]
        if e["type"] != "derived"
    }


def test_job_to_job_edges_carry_their_origin_in_the_graph(client: TestClient) -> None:
    ingest(
        client,
        job_event(AF, "own.job", lineage=example("job-to-job")),
        run_event(
            "COMPLETE",
            job=(AF, "daily.load"),
            time=at(1),
            run_facets={
                "jobDependencies": facet(upstream=[{"job": {"namespace": AF, "name": "extract"}}])
            },
        ),
    )
    body = client.get(f"{API}/graph").json()
    TypeAdapter(GraphPage).validate_python(body)
    assert edge_set(body) == {
        (f"job:{AF}:daily.transform", f"job:{AF}:daily.load", "job_to_job", "declared"),
        (f"job:{AF}:extract", f"job:{AF}:daily.load", "job_to_job", "observed"),
    }
    assert body["total_edges"] == 2
    feast_side = {(e["source_name"], e["target_name"], e["edge_type"]) for e in body["edges"]}
    assert ("daily.transform", "daily.load", "job_to_job") in feast_side


def test_observed_and_declared_edges_both_show_and_the_walk_follows_them(
    client: TestClient,
) -> None:
    lineage = example("mixed-sources")
    ingest(
        client,
        job_event(AF, "own.job", lineage=lineage),
        run_event("COMPLETE", job=(AF, "own.job"), job_facets={"lineage": lineage}),
        job_event(AF, "daily.load", lineage=example("job-to-job")),
    )
    wh = "postgresql://warehouse:5432"
    body = client.get(
        subgraph_path("dataset", wh, "public.enriched_orders"),
        params={"direction": "upstream", "depth": 3},
    ).json()
    TypeAdapter(Subgraph).validate_python(body)
    own = f"job:{AF}:own.job"
    target = f"dataset:{wh}:public.enriched_orders"
    assert {e for e in edge_set(body) if e[1] == target} == {
        (own, target, "output", "declared"),
        (own, target, "output", "observed"),
        (f"job:{AF}:daily.enrichment", target, "output", "declared"),
        (f"job:{AF}:daily.enrichment", target, "output", "observed"),
    }
    depths = {n["id"]: n["depth"] for n in body["nodes"]}
    assert depths[f"dataset:{wh}:public.orders"] == 2
    assert f"job:{AF}:daily.load" not in depths  # not upstream of the target
    derived = {(d["source"], d["target"], d["via"]) for d in body["derived_edges"]}
    assert (f"dataset:{wh}:public.orders", target, own) in derived
    down = client.get(
        subgraph_path("job", AF, "daily.transform"), params={"direction": "downstream"}
    ).json()
    assert {n["id"]: n["depth"] for n in down["nodes"]} == {
        f"job:{AF}:daily.transform": 0,
        f"job:{AF}:daily.load": 1,
    }


KEY = "key-seen"
AUTHORIZER = {"type": "api_keys", "keys": [{"key": KEY, "projects": ["seen"]}]}


@pytest.fixture
def scoped(make_client: AppFactory) -> TestClient:
    client = make_client(api_key="admin-key", authorizer=AUTHORIZER)
    deps = facet(
        upstream=[{"job": {"namespace": "hidden", "name": "secret"}}],
        downstream=[{"job": {"namespace": "seen", "name": "after"}}],
    )
    ingest(
        client,
        run_event("COMPLETE", job=("seen", "mid"), run_facets={"jobDependencies": deps}),
        headers={"X-API-Key": "admin-key"},
    )
    return client


def test_a_job_to_job_edge_to_a_hidden_namespace_never_appears(scoped: TestClient) -> None:
    headers = {"X-API-Key": KEY}
    page = scoped.get(f"{API}/graph", headers=headers).json()
    assert edge_set(page) == {("job:seen:mid", "job:seen:after", "job_to_job", "observed")}
    assert page["total_edges"] == 1
    assert "hidden" not in str(page)
    walked = scoped.get(
        subgraph_path("job", "seen", "mid"), params={"direction": "both"}, headers=headers
    ).json()
    assert {n["id"] for n in walked["nodes"]} == {"job:seen:mid", "job:seen:after"}
    assert "hidden" not in str(walked)
    everything = scoped.get(f"{API}/graph", headers={"X-API-Key": "admin-key"}).json()
    assert ("job:hidden:secret", "job:seen:mid", "job_to_job", "observed") in edge_set(everything)
    assert everything["total_edges"] == 2


def test_field_entries_are_column_edges_with_their_origin(client: TestClient) -> None:
    wh = "postgresql://warehouse:5432"
    ingest(
        client,
        dataset_event(wh, "public.customer_summary", lineage=example("dataset-to-dataset")),
        run_event(
            "COMPLETE", job=(AF, "own.job"), job_facets={"lineage": example("mixed-sources")}
        ),
    )
    summary = client.get(
        f"{API}/columns", params={"namespace": wh, "name": "public.customer_summary"}
    ).json()
    TypeAdapter(ColumnLineage).validate_python(summary)
    assert [(e["source"], e["target"], e["origin"], e["job"]) for e in summary["edges"]] == [
        (
            f"field:{wh}:public.customers:id",
            f"field:{wh}:public.customer_summary:customer_id",
            "declared",
            None,
        )
    ]
    enriched = client.get(
        f"{API}/columns", params={"namespace": wh, "name": "public.enriched_orders"}
    ).json()
    assert [(e["origin"], e["job"]) for e in enriched["edges"]] == [
        ("observed", {"namespace": AF, "name": "own.job"})
    ]
