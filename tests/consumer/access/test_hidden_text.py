"""No read endpoint lets a hidden dataset's name, or text about it, through raw facets.

The reproduction of issue 34: with the admin key, ingest an ``ml_team``
output whose field ``risk`` reads ``finance.salaries.salary`` and
``ml_team.users.id``, described as ``id * finance.salaries.salary / 1000``;
a key scoped to ``ml_team`` must see neither the description nor the name
``finance`` anywhere: not in ``/columns``, nor in the raw facets of
``/datasets``, ``/jobs``, ``/runs``, ``/graph``, the subgraphs and
``/events``, nor a dataset's versions. Every facet that can name another dataset is sent
(``columnLineage``, ``lineage`` on jobs and datasets, ``symlinks``,
``parent``, ``jobDependencies``), on RunEvents, DatasetEvents and JobEvents,
and every GET route of the OpenAPI document is read: a route this test does
not know how to call fails it, so a new endpoint gets checked too.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event

HIDDEN = "finance"  # the hidden namespace: its name must never show
TEXT = "id * finance.salaries.salary / 1000"
FILTER_TEXT = "where salary > 0"  # free text of a field whose dataset-level input is hidden
AUTHORIZER = {
    "type": "api_keys",
    "keys": [
        {"key": "key-ml", "projects": ["ml_team"]},
        {"key": "key-all", "projects": ["*"]},
    ],
}


def _input(namespace: str, name: str, field: str, text: str = TEXT) -> dict[str, Any]:
    return {
        "namespace": namespace,
        "name": name,
        "field": field,
        "transformations": [
            {"type": "DIRECT", "subtype": "TRANSFORMATION", "description": text, "masking": False}
        ],
    }


def _lineage_input(namespace: str, name: str, field: str) -> dict[str, Any]:
    return {**_input(namespace, name, field), "type": "DATASET"}


def _risk_facets() -> dict[str, Any]:
    """Every facet of the ``scores`` output that can name another dataset."""
    return {
        "columnLineage": facet(
            fields={
                "risk": {
                    "inputFields": [
                        _input(HIDDEN, "salaries", "salary"),
                        _input("ml_team", "users", "id"),
                    ],
                    "transformationDescription": TEXT,
                    "transformationType": "IDENTITY",
                },
                "user_id": {
                    "inputFields": [_input("ml_team", "users", "id", "copied")],
                    "transformationDescription": "copied",
                },
            }
        ),
        "symlinks": facet(
            identifiers=[
                {"namespace": HIDDEN, "name": "scores_mirror", "type": "TABLE"},
                {"namespace": "ml_team", "name": "scores_view", "type": "VIEW"},
            ]
        ),
        "lineage": facet(
            inputs=[{"namespace": HIDDEN, "name": "salaries", "type": "DATASET"}],
            fields={"risk": {"inputs": [_lineage_input("ml_team", "users", "id")]}},
        ),
    }


def _filtered_facets() -> dict[str, Any]:
    """An output whose only hidden input is dataset-level (a filter on salaries)."""
    return {
        "columnLineage": facet(
            fields={"score": {"inputFields": [_input("ml_team", "users", "id", FILTER_TEXT)]}},
            dataset=[_input(HIDDEN, "salaries", "salary", FILTER_TEXT)],
        )
    }


def _job_lineage() -> dict[str, Any]:
    return facet(
        entries=[
            {
                "namespace": "ml_team",
                "name": "scores",
                "type": "DATASET",
                "fields": {
                    "risk": {
                        "inputs": [
                            _lineage_input(HIDDEN, "salaries", "salary"),
                            _lineage_input("ml_team", "users", "id"),
                        ]
                    }
                },
            },
            {
                "namespace": "ml_team",
                "name": "scores_daily",
                "type": "DATASET",
                "inputs": [{"namespace": HIDDEN, "name": "salaries", "type": "DATASET"}],
                "fields": {"risk": {"inputs": [_lineage_input("ml_team", "users", "id")]}},
            },
            {"namespace": HIDDEN, "name": "payroll_job", "type": "JOB", "inputs": []},
        ]
    )


def seed(client: TestClient) -> str:
    """The reproduction and its relatives, ingested with the admin key; the visible run."""
    parent_run, run = str(uuid.uuid4()), str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=parent_run,
            job=(HIDDEN, "payroll_dag"),
            time=at(0),
            outputs=[dataset(HIDDEN, "salaries")],
        ),
        run_event(
            "COMPLETE",
            run_id=run,
            job=("ml_team", "train"),
            time=at(10),
            parent=(parent_run, (HIDDEN, "payroll_dag")),
            run_facets={
                "jobDependencies": facet(
                    upstream=[
                        {"job": {"namespace": HIDDEN, "name": "payroll_job"}},
                        {"job": {"namespace": "ml_team", "name": "prepare"}},
                    ],
                    downstream=[],
                )
            },
            job_facets={"lineage": _job_lineage()},
            inputs=[dataset(HIDDEN, "salaries"), dataset("ml_team", "users")],
            outputs=[
                dataset("ml_team", "scores", **_risk_facets()),
                dataset("ml_team", "scores_filtered", **_filtered_facets()),
            ],
        ),
        dataset_event("ml_team", "scores", time=at(20), **_risk_facets()),
        job_event(
            "ml_team",
            "train_declared",
            time=at(30),
            inputs=[dataset(HIDDEN, "salaries"), dataset("ml_team", "users")],
            outputs=[dataset("ml_team", "scores", **_risk_facets())],
            lineage=_job_lineage(),
        ),
    )
    return run


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    client = make_client(authorizer=AUTHORIZER, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    client.app.state.visible_run = seed(client)  # type: ignore[attr-defined]
    return client


_AS_OF = (at(15), at(25), at(1000))  # after the run, after the DatasetEvent, the future
# Column lineage windows: the run's, the DatasetEvent's and JobEvent's (run-less), every one.
_WINDOWS = ({"since": at(0), "until": at(15)}, {"since": at(15)}, {"until": at(1000)})


def _history(params: dict[str, Any]) -> list[dict[str, Any]]:
    """``params``, now, at every instant of :data:`_AS_OF` and over every window."""
    return [params, *({**params, "as_of": t} for t in _AS_OF), *({**params, **w} for w in _WINDOWS)]


def _calls(client: TestClient, path: str) -> list[tuple[str, dict[str, Any]]]:
    """The requests that read ``path`` (an OpenAPI path template) for every visible object."""
    graph = client.get(f"{API}/graph").json()
    nodes = [(n["type"], n["namespace"], n["name"]) for n in graph["nodes"]]
    datasets = [(ns, name) for kind, ns, name in nodes if kind == "dataset"]
    runs = [r["run_id"] for r in client.get(f"{API}/runs").json()["runs"]]
    q = quote
    match path.removeprefix(API).removeprefix("/api/v1/lineage"):
        case "/runs/{run_id}":
            return [(f"{API}/runs/{r}", {}) for r in runs]
        case "/runs/{run_id}/lineage":
            return [(f"{API}/runs/{r}/lineage", {"depth": 10}) for r in runs]
        case "/runs/{run_id}/tree":
            return [(f"{API}/runs/{r}/tree", {"facets": f}) for r in runs for f in (False, True)]
        case "/graph/node":
            return [
                (path, {"type": k, "namespace": ns, "name": n, "depth": d, **w})
                for k, ns, n in nodes
                for d, w in ((10, {}), *((0, {"as_of": t}) for t in _AS_OF))
            ]
        case "/graph/{node_type}/{namespace}/{name}":  # explicit lineage then, too
            return [
                (f"{API}/graph/{k}/{q(ns, safe='')}/{q(n, safe='')}", params)
                for k, ns, n in nodes
                for params in _history({"depth": 10})
            ]
        case "/columns":
            calls = [(path, {"namespace": ns, "name": n}) for ns, n in datasets] + [
                (path, {"namespace": "ml_team", "name": "scores", "field": "risk"}),
                (path, {"namespace": "ml_team", "name": "scores_filtered", "field": "score"}),
            ]
            return [(p, asked) for p, params in calls for asked in _history(params)]
        case "/datasets/{namespace}/{name}/columns":
            return [
                (f"{API}/datasets/{q(ns, safe='')}/{q(n, safe='')}/columns", params)
                for ns, n in datasets
                for params in _history({})
            ]
        case "/datasets/{namespace}/{name}/versions":
            return [
                (f"{API}/datasets/{q(ns, safe='')}/{q(n, safe='')}/versions", {})
                for ns, n in datasets
            ]
        case "/datasets/{namespace}/{name}/versions/{version_id}":
            calls = []
            for ns, n in datasets:
                listed = f"{API}/datasets/{q(ns, safe='')}/{q(n, safe='')}/versions"
                versions = client.get(listed).json()["versions"]
                calls.extend((f"{listed}/{v['id']}", {}) for v in versions)
            return calls
        case "/jobs/{namespace}/{name}/versions":
            return [
                (f"{API}/jobs/{q(ns, safe='')}/{q(n, safe='')}/versions", {})
                for k, ns, n in nodes
                if k == "job"
            ]
        case "/jobs/{namespace}/{name}/versions/{version_id}":
            return [
                (f"{API}/jobs/{q(ns, safe='')}/{q(n, safe='')}/versions/{v['id']}", {})
                for k, ns, n in nodes
                if k == "job"
                for v in client.get(f"{API}/jobs/{q(ns, safe='')}/{q(n, safe='')}/versions").json()[
                    "versions"
                ]
            ]
        case "/objects/{object_type}/{object_name}":
            return [(f"/api/v1/lineage/objects/feature_view/{n}", {}) for _ns, n in datasets]
        case "/facets/{name}.json":
            return [("/api/v1/lineage/facets/feast_featureView.json", {})]
        case "/events":
            return [(path, {})] + [(path, {"run_id": r}) for r in runs]
        case "/graph":
            return [(path, p) for p in (*_history({}), *_history({"namespace": "ml_team"}))]
        case "/jobs" | "/datasets":
            sorts = (
                ({}, {"sort": "-name"})
                if path.endswith("datasets")
                else ({}, {"sort": "-latest_started"})
            )
            return [(path, s) for s in sorts] + [
                (path, {**s, "as_of": t, **n})
                for s in sorts
                for t in _AS_OF
                for n in ({}, {"namespace": HIDDEN}, {"search": "sal"})
            ]
        case "/health":
            return [(path, {}), (path, {"kind": "failed"}), (path, {"namespace": HIDDEN})]
        case "/impact":
            return [
                (path, {"node_type": k, "namespace": ns, "name": n, "depth": 20})
                for k, ns, n in nodes
            ] + [(path, {"node_type": "dataset", "namespace": HIDDEN, "name": "salaries"})]
        case "/lineage/diff":
            whole = [(path, {"from": at(t0), "to": at(t1)}) for t0, t1 in ((-1, 99), (99, -1))]
            span = {"from": at(-1), "to": at(99), "depth": 10}
            around = [
                (path, span | {"node_type": k, "namespace": ns, "name": n}) for k, ns, n in nodes
            ]
            by_run = [(path, {"from_run": r, "to": at(99)}) for r in runs]
            return whole + around + by_run
        case _ if "{" not in path:
            return [(path, {})]
    raise AssertionError(f"{path}: this test does not know how to read it; teach it")


def read_every_endpoint(client: TestClient) -> int:
    """Read every GET route for every object ``client`` sees (with its own headers), check
    that nothing of :data:`HIDDEN` shows; the number of answers that were a ``200``."""
    paths = [p for p, ops in client.app.openapi()["paths"].items() if "get" in ops]  # type: ignore[attr-defined]
    assert len(paths) >= 18
    read = 0
    for path in paths:
        for url, params in _calls(client, path):
            response = client.get(url, params=params)
            assert response.status_code < 500, f"{url} {params}: {response.text}"
            for secret in (HIDDEN, TEXT, FILTER_TEXT, "payroll", "salar"):
                assert secret not in response.text, f"{url} {params} leaked {secret!r}"
            read += response.status_code == 200
    return read


def test_no_read_endpoint_shows_hidden_names_or_text_about_them(client: TestClient) -> None:
    client.headers["X-API-Key"] = "key-ml"
    assert read_every_endpoint(client) >= 30


def test_no_read_endpoint_shows_an_anonymous_caller_more_than_the_anonymous_projects(
    make_client: AppFactory,
) -> None:
    """``anonymous_projects``: a caller without a key reads ml_team, and nothing hidden."""
    authorizer = {**AUTHORIZER, "anonymous_projects": ["ml_team"]}
    client = make_client(authorizer=authorizer, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    seed(client)
    del client.headers["X-API-Key"]
    assert client.get(f"{API}/namespaces").json()["namespaces"] == ["ml_team"]
    assert read_every_endpoint(client) >= 30


def test_visible_parts_of_the_same_facets_stay(client: TestClient) -> None:
    """Redaction keeps what the caller may see: the test above is not passing by emptiness."""
    client.headers["X-API-Key"] = "key-ml"
    (event,) = [
        e["event"]
        for e in client.get(
            f"{API}/events", params={"run_id": client.app.state.visible_run}
        ).json()[  # type: ignore[attr-defined]
            "events"
        ]
    ]
    scores = event["outputs"][0]["facets"]
    risk = scores["columnLineage"]["fields"]["risk"]
    assert risk == {
        "inputFields": [
            {
                "namespace": "ml_team",
                "name": "users",
                "field": "id",
                "transformations": [
                    {"type": "DIRECT", "subtype": "TRANSFORMATION", "masking": False}
                ],
            }
        ],
        "transformationType": "IDENTITY",
    }
    user_id = scores["columnLineage"]["fields"]["user_id"]
    assert user_id["transformationDescription"] == "copied"  # every input visible: shown
    assert user_id["inputFields"][0]["transformations"][0]["description"] == "copied"
    assert [i["name"] for i in scores["symlinks"]["identifiers"]] == ["scores_view"]
    assert scores["lineage"]["fields"]["risk"]["inputs"][0]["name"] == "users"
    assert "parent" not in event["run"]["facets"]
    deps = event["run"]["facets"]["jobDependencies"]["upstream"]
    assert deps == [{"job": {"namespace": "ml_team", "name": "prepare"}}]
    entries = event["job"]["facets"]["lineage"]["entries"]
    assert [e["name"] for e in entries] == ["scores", "scores_daily"]
    assert entries[1]["inputs"] == []

    columns = client.get(
        f"{API}/columns", params={"namespace": "ml_team", "name": "scores", "field": "risk"}
    ).json()
    assert columns["edges"], "the visible input of risk is walked"

    client.headers["X-API-Key"] = "key-all"
    everything = client.get(f"{API}/events").text
    for secret in (TEXT, FILTER_TEXT, HIDDEN):
        assert secret in everything
    datasets = client.get(f"{API}/datasets", params={"search": "scores"}).json()["datasets"]
    assert any(TEXT in json.dumps(d["facets_json"]) for d in datasets)
