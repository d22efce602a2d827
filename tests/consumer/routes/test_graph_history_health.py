"""Health on ``as_of`` answers: an instant still to come is now, health included.

A future ``as_of`` is answered at now by the history reads (each node with its
``version``) and paints each node's ``state`` and ``health`` as the answer
without ``as_of`` does; a past one says ``unknown`` (health is as of now only).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest, subgraph_path
from tests.consumer.routes.test_problems import T0_US, US, feast_chain
from tests.factories import at

# Routes on SQLite, as tests/consumer/routes/test_graph_history.py.
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

FUTURE = "2999-01-01T00:00:00Z"
UPLOAD, RAW, FV = "job:airflow:upload", "dataset:warehouse:raw", "dataset:ml_team:driver_fv"
KEYS = {
    "type": "api_keys",
    "keys": [
        {"key": "key-ml", "projects": ["ml_team", "warehouse"]},
        {"key": "key-all", "projects": ["*"]},
    ],
}


def _clock(client: TestClient, seconds: float) -> None:
    """Health's now: ``seconds`` after T0 (the upload failed at 3600)."""
    client.app.state.consumer.clock = lambda: T0_US + int(seconds * US)  # type: ignore[attr-defined]


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    client = make_client()
    ingest(client, *feast_chain())
    _clock(client, 7200)
    return client


def _get(client: TestClient, path: str, as_of: str | None = None) -> Any:
    """``path`` (the node form's query parameters after its ``?``) with ``as_of``, if any."""
    base, _, query = path.partition("?")
    params = dict(item.split("=") for item in query.split("&")) if query else {}
    if as_of is not None:
        params["as_of"] = as_of
    return client.get(base, params=params)


def _nodes(client: TestClient, path: str, as_of: str | None = None) -> dict[str, dict[str, Any]]:
    response = _get(client, path, as_of)
    assert response.status_code == 200, response.text
    return {n["id"]: n for n in response.json()["nodes"]}


def _health(nodes: dict[str, dict[str, Any]]) -> dict[str, tuple[str, Any]]:
    return {key: (n["state"], n.get("health")) for key, n in nodes.items()}


PATHS = [
    f"{API}/graph",
    subgraph_path("dataset", "ml_team", "driver_fv"),
    f"{API}/graph/node?type=dataset&namespace=ml_team&name=driver_fv",
]


@pytest.mark.parametrize("path", PATHS)
def test_a_future_as_of_has_now_s_health_and_its_versions(client: TestClient, path: str) -> None:
    now = _nodes(client, path)
    future = _nodes(client, path, as_of=FUTURE)
    assert _health(future) == _health(now)
    assert future[UPLOAD]["state"] == "failed"
    assert future[UPLOAD]["health"]["error"] == now[UPLOAD]["health"]["error"] is not None
    assert future[FV]["state"] == "at_risk"
    assert [c["node"] for c in future[FV]["health"]["causes"]] == [UPLOAD]
    # Still the as_of answer: each node carries the version current then.
    assert all("version" in n for n in future.values())
    assert future[RAW]["version"] is not None
    assert all("version" not in n for n in now.values())


@pytest.mark.parametrize("path", PATHS)
def test_a_past_as_of_still_says_unknown(client: TestClient, path: str) -> None:
    then = _nodes(client, path, as_of=at(5000))  # after the failure: health is as of now only
    assert {n["state"] for n in then.values()} == {"unknown"}
    assert all(n.get("health") is None for n in then.values())
    assert then[RAW]["version"] is not None


@pytest.mark.parametrize("path", PATHS)
def test_a_scoped_key_s_future_as_of_names_no_hidden_node(
    make_client: AppFactory, path: str
) -> None:
    client = make_client(authorizer=KEYS)
    client.headers["X-API-Key"] = "key-all"
    ingest(client, *feast_chain("secret_airflow"))
    _clock(client, 7200)
    client.headers["X-API-Key"] = "key-ml"
    response = _get(client, path, FUTURE)
    assert response.status_code == 200, response.text
    assert "secret_airflow" not in response.text
    future = {n["id"]: n for n in response.json()["nodes"]}
    assert future[FV]["state"] == "at_risk"
    assert future[FV]["health"]["causes"] == [
        {"node": None, "state": "failed", "distance": 3, "label": "a hidden upstream"}
    ]
    assert _health(future) == _health(_nodes(client, path))
