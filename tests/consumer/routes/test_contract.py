"""The query API's contract: responses match their documented models, errors one shape."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from feast_lineage.consumer import schemas
from tests.consumer.lineage import API, cross_producer, ingest, subgraph_path

READS: list[tuple[str, type[object]]] = [
    ("/graph", schemas.GraphPage),
    ("/graph?namespace=ml_team&limit=2&offset=1", schemas.GraphPage),
    (subgraph_path("dataset", "ml_team", "driver_fv").removeprefix(API), schemas.Subgraph),
    ("/graph/node?type=job&namespace=spark://ml-team&name=build", schemas.Subgraph),
    ("/namespaces", schemas.NamespaceList),
    ("/jobs", schemas.JobPage),
    ("/datasets?search=driver", schemas.DatasetPage),
    ("/events", schemas.EventPage),
    ("/runs", schemas.RunPage),
    ("/retention", schemas.RetentionInfo),
]


@pytest.mark.parametrize(("path", "model"), READS)
def test_responses_match_their_models(client: TestClient, path: str, model: type[object]) -> None:
    ingest(client, *cross_producer())
    response = client.get(API + path)
    assert response.status_code == 200, response.text
    body = response.json()
    # A model or a TypedDict (the graph's answers): pydantic validates either.
    adapter: TypeAdapter[object] = TypeAdapter(model)
    parsed = adapter.validate_python(body)
    # Nothing outside the model: the documented shape is the whole shape.
    assert adapter.dump_python(parsed, mode="json", by_alias=True) == body


def test_run_detail_matches_its_model(client: TestClient) -> None:
    ingest(client, *cross_producer())
    run_id = client.get(f"{API}/runs").json()["runs"][0]["run_id"]
    body = client.get(f"{API}/runs/{run_id}").json()
    assert schemas.RunDetail.model_validate(body).model_dump(mode="json") == body


ERRORS: list[tuple[str, str, int]] = [
    ("GET", "/graph?limit=abc", 400),
    ("GET", "/graph/dataset/ns/missing", 404),
    ("GET", "/graph/node?type=job", 400),
    ("GET", "/namespaces/extra", 404),
    ("GET", "/jobs?offset=-5", 400),
    ("GET", "/datasets?limit=0", 400),
    ("GET", "/events?since=never", 400),
    ("GET", "/runs?state=nope", 400),
    ("GET", "/runs/0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f", 404),
    ("GET", "/runs/xyz", 400),
    ("POST", "/retention/prune?days=0", 400),
    ("DELETE", "/reset?namespace=", 400),
    ("POST", "/graph", 405),
]


@pytest.mark.parametrize(("method", "path", "status"), ERRORS)
def test_every_error_has_the_one_shape(
    client: TestClient, method: str, path: str, status: int
) -> None:
    response = client.request(method, API + path)
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    schemas.ErrorResponse.model_validate(body)
    assert set(body) == {"error", "detail"}
    assert body["error"]["status"] == status
    assert body["error"]["message"]


def test_openapi_documents_every_query_and_admin_response(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    wanted = {
        ("get", "/graph"): "GraphPage",
        ("get", "/graph/node"): "Subgraph",
        ("get", "/graph/{node_type}/{namespace}/{name}"): "Subgraph",
        ("get", "/namespaces"): "NamespaceList",
        ("get", "/jobs"): "JobPage",
        ("get", "/datasets"): "DatasetPage",
        ("get", "/events"): "EventPage",
        ("get", "/runs"): "RunPage",
        ("get", "/runs/{run_id}"): "RunDetail",
        ("get", "/retention"): "RetentionInfo",
        ("post", "/retention/prune"): "PruneResult",
        ("delete", "/reset"): "ResetResult",
    }
    for (method, path), model in wanted.items():
        operation = spec["paths"][API + path][method]
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok == {"$ref": f"#/components/schemas/{model}"}, (path, ok)
        error = operation["responses"]["400"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/ErrorResponse"}
    node = spec["components"]["schemas"]["GraphNode"]["properties"]
    assert {"facets", "schema", "feast", "producer"} <= set(node)
