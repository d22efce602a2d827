from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, chain, cross_producer, ingest, subgraph_path
from tests.factories import dataset, facet, run_event


def ids(nodes: list[dict]) -> set[str]:
    return {n["id"] for n in nodes}


def test_graph_page_has_nodes_facets_edges_symlinks_and_totals(client: TestClient) -> None:
    ingest(client, *cross_producer())
    body = client.get(f"{API}/graph").json()
    assert body["total_nodes"] == len(body["nodes"]) == 8
    nodes = {n["id"]: n for n in body["nodes"]}
    fv = nodes["dataset:ml_team:driver_fv"]
    assert fv["feast"] == {"project": "ml_team", "type": "feature_view", "name": "driver_fv"}
    assert fv["schema_fields"] == [{"name": "trips", "type": "INT64", "description": "the trips"}]
    assert "feast_feature_view" in fv["facets"]
    assert fv["producer"].startswith("https://")
    assert nodes["job:spark://ml-team:build"]["kind"] == "job"
    assert nodes["dataset:postgres://db:5432:public.trips"]["feast"] is None
    edges = {(e["source"], e["target"], e["type"]) for e in body["edges"]}
    assert ("job:spark://ml-team:build", "dataset:s3://bucket:features/driver", "output") in edges
    assert ("dataset:s3://bucket:features/driver", "job:spark://ml-team:audit", "input") in edges
    link = ("dataset:ml_team:driver_source", "dataset:s3://bucket:features/driver", "symlink")
    assert link in edges
    stored = {e for e in edges if e[2] != "derived"}
    assert body["total_edges"] == len(stored) == 7  # 6 input/output + 1 symlink
    assert body["symlinks"] == [
        {
            "dataset_namespace": "ml_team",
            "dataset_name": "driver_source",
            "linked_namespace": "s3://bucket",
            "linked_name": "features/driver",
            "link_type": "FILE",
            "updated_at": body["symlinks"][0]["updated_at"],
            "dataset": "dataset:ml_team:driver_source",
            "alias": "dataset:s3://bucket:features/driver",
            "alias_namespace": "s3://bucket",
            "alias_name": "features/driver",
            "alias_type": "FILE",
            "source": "symlink",
        }
    ]
    derived = {(d["source"], d["target"], d["via"]) for d in body["derived_edges"]}
    assert (
        "dataset:postgres://db:5432:public.trips",
        "dataset:s3://bucket:features/driver",
        "job:spark://ml-team:build",
    ) in derived
    assert len(derived) == 3
    # Feast's shape of them, in edges: one per pair of datasets, typed derived.
    assert {e[:2] for e in edges - stored} == {d[:2] for d in derived}
    assert {e[2] for e in edges - stored} == {"derived"}
    feast_shaped = [e for e in body["edges"] if e["edge_type"] == "derived"]
    assert all(
        (e["source_type"], e["target_type"], e["origin"]) == ("dataset", "dataset", None)
        for e in feast_shaped
    )


def test_graph_pages_cover_every_node_once_with_exactly_their_edges(client: TestClient) -> None:
    ingest(client, *cross_producer())
    full = client.get(f"{API}/graph").json()
    # Derived edges go through a job: on a page only with the job (below).
    all_edges = {(e["source"], e["target"], e["type"]) for e in full["edges"]}
    all_edges = {e for e in all_edges if e[2] != "derived"}
    seen: list[str] = []
    for offset in range(0, 8, 3):
        page = client.get(f"{API}/graph", params={"limit": 3, "offset": offset}).json()
        assert page["total_nodes"] == 8
        assert page["total_edges"] == full["total_edges"]
        page_ids = ids(page["nodes"])
        seen.extend(page_ids)
        expected = {e for e in all_edges if e[0] in page_ids and e[1] in page_ids}
        edges = {(e["source"], e["target"], e["type"]) for e in page["edges"]}
        assert {e for e in edges if e[2] != "derived"} == expected
        for d in page["derived_edges"]:
            assert {d["source"], d["target"], d["via"]} <= page_ids
        derived = {(d["source"], d["target"], "derived") for d in page["derived_edges"]}
        assert {e for e in edges if e[2] == "derived"} == derived
    assert sorted(seen) == sorted(ids(full["nodes"]))
    order = [(n["namespace"], n["name"], n["kind"]) for n in full["nodes"]]
    assert order == sorted(order)
    beyond = client.get(f"{API}/graph", params={"offset": 100}).json()
    assert beyond["nodes"] == []
    assert beyond["total_nodes"] == 8


def test_graph_namespace_filter_counts_only_that_namespace(client: TestClient) -> None:
    ingest(client, *cross_producer())
    body = client.get(f"{API}/graph", params={"namespace": "spark://ml-team"}).json()
    assert ids(body["nodes"]) == {"job:spark://ml-team:build", "job:spark://ml-team:audit"}
    assert body["total_nodes"] == 2
    assert body["edges"] == []
    assert body["total_edges"] == 0
    empty = client.get(f"{API}/graph", params={"namespace": "nope"}).json()
    assert empty["nodes"] == []
    assert empty["total_nodes"] == 0


def test_subgraph_depth_is_exact(client: TestClient) -> None:
    ingest(client, *chain("team", 4))
    one = client.get(subgraph_path("dataset", "team", "d2"), params={"depth": 1}).json()
    assert ids(one["nodes"]) == {"dataset:team:d2", "job:team:j2", "job:team:j3"}
    depths = {n["id"]: n["depth"] for n in one["nodes"]}
    assert depths == {"dataset:team:d2": 0, "job:team:j2": 1, "job:team:j3": 1}
    up = client.get(
        subgraph_path("dataset", "team", "d3"), params={"depth": 2, "direction": "upstream"}
    ).json()
    assert ids(up["nodes"]) == {"dataset:team:d3", "job:team:j3", "dataset:team:d2"}
    down = client.get(
        subgraph_path("job", "team", "j1"), params={"depth": 3, "direction": "downstream"}
    ).json()
    assert ids(down["nodes"]) == {
        "job:team:j1",
        "dataset:team:d1",
        "job:team:j2",
        "dataset:team:d2",
    }
    assert down["center"] == "job:team:j1"
    assert down["truncated"] is False
    edges = {(e["source"], e["target"]) for e in down["edges"] if e["type"] != "derived"}
    assert edges == {
        ("job:team:j1", "dataset:team:d1"),
        ("dataset:team:d1", "job:team:j2"),
        ("job:team:j2", "dataset:team:d2"),
    }
    zero = client.get(subgraph_path("job", "team", "j1"), params={"depth": 0}).json()
    assert ids(zero["nodes"]) == {"job:team:j1"}


def test_subgraph_limit_keeps_the_nearest(client: TestClient) -> None:
    ingest(client, *chain("team", 4))
    body = client.get(
        subgraph_path("dataset", "team", "d0"),
        params={"depth": 10, "direction": "downstream", "limit": 3},
    ).json()
    assert body["truncated"] is True
    assert ids(body["nodes"]) == {"dataset:team:d0", "job:team:j1", "dataset:team:d1"}


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        ("postgres://db:5432", "public.orders"),
        ("s3://bucket", "path/to/my table: 2024"),
        ("ünï://cödé", "名前/with%percent?and#hash"),
    ],
)
def test_subgraph_path_and_query_forms_take_any_name(
    client: TestClient, namespace: str, name: str
) -> None:
    ingest(
        client,
        run_event("COMPLETE", job=("spark://x", "writer"), outputs=[dataset(namespace, name)]),
    )
    by_path = client.get(subgraph_path("dataset", namespace, name), params={"depth": 1})
    assert by_path.status_code == 200, by_path.text
    # The name's ":" and "%" are escaped in the id (one node, one id: lineage_model).
    escaped = name.replace("%", "%25").replace(":", "%3A")
    assert by_path.json()["center"] == f"dataset:{namespace}:{escaped}"
    assert ids(by_path.json()["nodes"]) == {
        f"dataset:{namespace}:{escaped}",
        "job:spark://x:writer",
    }
    by_query = client.get(
        f"{API}/graph/node",
        params={"type": "dataset", "namespace": namespace, "name": name, "depth": 1},
    )
    assert by_query.status_code == 200, by_query.text
    assert by_query.json() == by_path.json()


def test_unknown_node_is_404_with_a_message(client: TestClient) -> None:
    response = client.get(subgraph_path("dataset", "s3://bucket", "missing"))
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "not_found"
    assert "missing" in error["message"]
    assert "s3://bucket" in error["message"]


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # refused before SQL
@pytest.mark.parametrize(
    ("url", "needle"),
    [
        (f"{API}/graph/table/ns/name", "path parameter 'node_type'"),
        (f"{API}/graph/dataset/s3://bucket/a/b", "percent-encoded"),
        (f"{API}/graph/dataset/ns/name?direction=sideways", "direction"),
        (f"{API}/graph/dataset/ns/name?depth=-1", "depth"),
        (f"{API}/graph/dataset/ns/name?depth=51", "depth"),
        (f"{API}/graph?limit=10001", "limit"),
        (f"{API}/graph?limit=-1", "limit"),
        (f"{API}/graph/node?type=dataset&namespace=ns", "name"),
    ],
)
def test_bad_graph_parameters_are_400_naming_them(
    client: TestClient, url: str, needle: str
) -> None:
    response = client.get(url)
    assert response.status_code == 400, response.text
    assert needle in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("params", "limit", "clamped"),
    [
        ({"limit": 0}, 5000, [("limit", 0, 5000)]),
        ({"limit": 10_000}, 5000, [("limit", 10_000, 5000)]),
        ({"limit": 5000}, 5000, []),
        ({}, 500, []),
    ],
)
def test_a_graph_page_feast_takes_is_served_clamped_and_says_so(
    client: TestClient, params: dict, limit: int, clamped: list
) -> None:
    """Feast's limit 0 (every node) and up to 10,000: our most, named under clamped."""
    ingest(client, *cross_producer())
    response = client.get(f"{API}/graph", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["limit"] == limit
    assert [(c["parameter"], c["requested"], c["used"]) for c in body["clamped"]] == clamped
    assert all("5000" in c["reason"] for c in body["clamped"])
    assert len(body["nodes"]) == body["total_nodes"] == 8


def test_a_subgraph_as_deep_as_feast_walks_is_clamped_and_says_so(client: TestClient) -> None:
    ingest(client, *chain("team", 3))
    deep = client.get(subgraph_path("job", "team", "j1"), params={"depth": 50})
    assert deep.status_code == 200, deep.text
    body = deep.json()
    assert body["depth"] == 20
    assert body["clamped"] == [
        {
            "parameter": "depth",
            "requested": 50,
            "used": 20,
            "reason": body["clamped"][0]["reason"],
        }
    ]
    exact = client.get(subgraph_path("job", "team", "j1"), params={"depth": 20}).json()
    assert exact["clamped"] == []
    assert ids(exact["nodes"]) == ids(body["nodes"])


def test_aliases_are_one_dataset_and_upstream_never_turns_downstream(client: TestClient) -> None:
    ingest(client, *cross_producer())
    up = client.get(
        subgraph_path("dataset", "ml_team", "driver_fv"),
        params={"depth": 10, "direction": "upstream"},
    ).json()
    assert ids(up["nodes"]) == {
        "dataset:ml_team:driver_fv",
        "job:ml_team:feast_apply_feature_view_driver_fv",
        "dataset:ml_team:driver_source",
        "dataset:s3://bucket:features/driver",
        "job:spark://ml-team:build",
        "dataset:postgres://db:5432:public.trips",
    }
    depth = {n["id"]: n["depth"] for n in up["nodes"]}
    # The alias is the same dataset: same distance, and its writer one step further.
    assert depth["dataset:s3://bucket:features/driver"] == depth["dataset:ml_team:driver_source"]
    assert depth["job:spark://ml-team:build"] == depth["dataset:ml_team:driver_source"] + 1
    # Spark's audit job reads the alias: it is downstream, never upstream.
    assert "job:spark://ml-team:audit" not in ids(up["nodes"])
    down = client.get(
        subgraph_path("dataset", "postgres://db:5432", "public.trips"),
        params={"depth": 10, "direction": "downstream"},
    ).json()
    assert {"job:spark://ml-team:audit", "dataset:ml_team:driver_fv"} <= ids(down["nodes"])
    assert "job:spark://ml-team:build" in ids(down["nodes"])


def test_parent_edges_are_shown_and_followed(client: TestClient) -> None:
    import uuid

    parent_run = str(uuid.uuid4())
    ingest(
        client,
        run_event("START", run_id=parent_run, job=("airflow://prod", "dag")),
        run_event(
            "COMPLETE",
            job=("airflow://prod", "dag.task"),
            parent=(parent_run, ("airflow://prod", "dag")),
            outputs=[dataset("s3://bucket", "out")],
        ),
    )
    body = client.get(
        f"{API}/graph/node",
        params={"type": "job", "namespace": "airflow://prod", "name": "dag", "depth": 2},
    ).json()
    assert ids(body["nodes"]) == {
        "job:airflow://prod:dag",
        "job:airflow://prod:dag.task",
        "dataset:s3://bucket:out",
    }
    edges = [(e["source"], e["target"], e["type"]) for e in body["edges"]]
    assert ("job:airflow://prod:dag", "job:airflow://prod:dag.task", "parent") in edges


def test_raw_slashes_in_a_quoted_name_do_not_split_segments(client: TestClient) -> None:
    ingest(client, run_event("COMPLETE", job=("ns", "a/b/c")))
    response = client.get(f"{API}/graph/job/ns/{quote('a/b/c', safe='')}", params={"depth": 0})
    assert response.status_code == 200, response.text
    assert response.json()["center"] == "job:ns:a/b/c"


def test_feast_jobs_name_their_project_and_kind(client: TestClient) -> None:
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("custom/ml_team", "feast_apply_entities"),
            job_facets={"feast_job_kind": facet(kind="definition", feast_project="ml_team")},
        ),
    )
    node = client.get(f"{API}/graph").json()["nodes"][0]
    assert node["feast"] == {
        "project": "ml_team",
        "type": "definition_job",
        "name": "feast_apply_entities",
    }


def test_a_name_known_only_as_an_alias_answers_as_the_dataset_that_lists_it(
    client: TestClient,
) -> None:
    """Feast's own name of an imported object (a symlink) finds our node, not a 404."""
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("demo", "feast_materialize"),
            outputs=[
                dataset(
                    "demo",
                    "feature_view/driver_hourly_stats",
                    symlinks=facet(
                        identifiers=[
                            {
                                "namespace": "demo",
                                "name": "driver_hourly_stats",
                                "type": "FEAST_BUILTIN_LINEAGE",
                            }
                        ]
                    ),
                )
            ],
        ),
    )
    ours = client.get(subgraph_path("dataset", "demo", "feature_view/driver_hourly_stats"))
    by_alias = client.get(subgraph_path("dataset", "demo", "driver_hourly_stats"))
    assert by_alias.status_code == 200, by_alias.text
    assert ids(by_alias.json()["nodes"]) == ids(ours.json()["nodes"])
    assert "dataset:demo:feature_view/driver_hourly_stats" in ids(by_alias.json()["nodes"])
    # A name that nothing lists is still unknown.
    assert client.get(subgraph_path("dataset", "demo", "nothing_here")).status_code == 404


def test_datasets_whose_names_would_join_alike_are_two_nodes(client: TestClient) -> None:
    # (x:y, z) and (x, y:z) joined with ":" alike; each is a node of its own, with its edges.
    first, second = dataset("x:y", "z"), dataset("x", "y:z")
    ingest(
        client,
        run_event("COMPLETE", job=("coll", "writer1"), outputs=[first]),
        run_event("COMPLETE", job=("coll", "writer2"), outputs=[second]),
        run_event("COMPLETE", job=("coll", "reader"), inputs=[first]),
    )
    body = client.get(f"{API}/graph", params={"limit": 100}).json()
    nodes = {n["id"]: (n["namespace"], n["name"]) for n in body["nodes"]}
    assert len(nodes) == len(body["nodes"]) == 5
    assert nodes["dataset:x:y:z"] == ("x:y", "z")
    assert nodes["dataset:x:y%3Az"] == ("x", "y:z")
    edges = {(e["source"], e["target"]) for e in body["edges"] if e["type"] != "derived"}
    assert edges == {
        ("job:coll:writer1", "dataset:x:y:z"),
        ("job:coll:writer2", "dataset:x:y%3Az"),
        ("dataset:x:y:z", "job:coll:reader"),
    }
