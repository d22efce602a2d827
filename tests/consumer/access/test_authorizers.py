"""Access filtering: the authorizers, and no endpoint leaking another team's lineage."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.requests import HTTPConnection

from feast_lineage.config import ConsumerSettings
from feast_lineage.config.authorizer import ApiKeysAuthorizerSettings
from feast_lineage.consumer.access.authorizers import ApiKeysAuthorizer, build_authorizer
from feast_lineage.consumer.access.scope import Scope, project_namespaces
from feast_lineage.consumer.errors import Unauthorized
from feast_lineage.consumer.settings import AppSettings
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest, subgraph_path
from tests.factories import at, dataset, facet, job_event, lineage_facet, run_event

SECRET = "bbsecret"  # every name of team B contains it
MAPPING = {"spark://team-a": "team_a", f"airflow://{SECRET}-prod": SECRET}
AUTHORIZER = {
    "type": "api_keys",
    "keys": [
        {"key": "key-a", "projects": ["team_a"]},
        {"key": "key-b", "projects": [SECRET]},
        {"key": "key-all", "projects": ["*"]},
    ],
}


def connection(headers: dict[str, str] | None = None) -> HTTPConnection:
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return HTTPConnection({"type": "http", "headers": raw, "path": "/", "query_string": b""})


# --- the pieces ----------------------------------------------------------------


def test_project_namespaces_are_the_project_its_prefixed_form_and_mapped_keys() -> None:
    mapping = {"spark://ml-team": "ml_team", "airflow://prod": "ml_team", "ray://x": "other"}
    assert project_namespaces(["ml_team"], mapping, "feast") == {
        "ml_team",
        "spark://ml-team",
        "airflow://prod",
    }
    assert "custom/ml_team" in project_namespaces(["ml_team"], mapping, "custom")
    # A producer namespace that already names the project is the project's as it is.
    assert project_namespaces(["ml_team"], {}, "custom/ml_team") == {"ml_team", "custom/ml_team"}
    assert project_namespaces([], mapping, "feast") == frozenset()


def test_scope_narrowing_never_widens() -> None:
    scope = Scope.of(["a", "b"])
    assert scope.narrow("a").namespaces == {"a"}
    assert scope.narrow("c").namespaces == frozenset()
    assert Scope.everything().narrow("c").namespaces == {"c"}
    assert not Scope.of([]).allows("a")
    assert Scope.everything().allows("anything")


def test_api_keys_authorizer_maps_keys_to_scopes_and_refuses_others() -> None:
    settings = ApiKeysAuthorizerSettings.model_validate(AUTHORIZER)
    authz = ApiKeysAuthorizer(
        settings, namespace_mapping=MAPPING, producer_namespace="feast", admin_key="admin"
    )
    assert authz.scope(connection({"X-API-Key": "key-a"})).namespaces == {
        "team_a",
        "spark://team-a",
    }
    assert authz.scope(connection({"Authorization": "Bearer key-b"})).namespaces == {
        SECRET,
        f"airflow://{SECRET}-prod",
    }
    assert authz.scope(connection({"X-API-Key": "key-all"})).is_everything
    assert authz.scope(connection({"X-API-Key": "admin"})).is_everything
    with pytest.raises(Unauthorized, match="required"):
        authz.scope(connection())
    with pytest.raises(Unauthorized, match="not valid"):
        authz.scope(connection({"X-API-Key": "key-c"}))


def test_anonymous_projects_apply_without_a_key() -> None:
    settings = ApiKeysAuthorizerSettings.model_validate(
        {"type": "api_keys", "anonymous_projects": ["public"]}
    )
    authz = ApiKeysAuthorizer(
        settings, namespace_mapping={}, producer_namespace="feast", admin_key=None
    )
    assert authz.scope(connection()).namespaces == {"public"}


def test_a_key_sees_at_least_what_anonymous_callers_see() -> None:
    settings = ApiKeysAuthorizerSettings.model_validate(
        {**AUTHORIZER, "anonymous_projects": ["public"]}
    )
    authz = ApiKeysAuthorizer(
        settings, namespace_mapping=MAPPING, producer_namespace="feast", admin_key="admin"
    )
    assert authz.scope(connection({"X-API-Key": "key-a"})).namespaces == {
        "team_a",
        "spark://team-a",
        "public",
    }
    assert authz.scope(connection({"X-API-Key": "key-all"})).is_everything
    with pytest.raises(Unauthorized, match="not valid"):
        authz.scope(connection({"X-API-Key": "key-c"}))


def test_open_is_the_default_and_sees_everything() -> None:
    settings = AppSettings(consumer=ConsumerSettings(), database_url="sqlite://")
    assert build_authorizer(settings).scope(connection()).is_everything


def test_authorizer_config_errors_name_the_option() -> None:
    with pytest.raises(ValueError, match="type"):
        ConsumerSettings.model_validate({"authorizer": {"type": "ldap"}})
    with pytest.raises(ValueError, match="projects"):
        ConsumerSettings.model_validate(
            {"authorizer": {"type": "api_keys", "keys": [{"key": "k", "projects": []}]}}
        )
    with pytest.raises(ValueError, match="keys"):
        ConsumerSettings.model_validate({"authorizer": {"keys": []}})


# --- two teams, every endpoint -----------------------------------------------


def _clean() -> dict[str, Any]:
    b_prod = f"airflow://{SECRET}-prod"
    """Team A's output, whose facets name team B's datasets."""
    return dataset(
        "spark://team-a",
        "clean",
        symlinks=facet(
            identifiers=[
                {"namespace": b_prod, "name": f"{SECRET}_alias", "type": "TABLE"},
                {"namespace": "team_a", "name": "raw", "type": "TABLE"},
            ]
        ),
        columnLineage=facet(
            fields={
                "id": {
                    "inputFields": [
                        {"namespace": "team_a", "name": "raw", "field": "id"},
                        {"namespace": SECRET, "name": "f", "field": "id"},
                    ]
                }
            },
            dataset=[{"namespace": SECRET, "name": "f", "field": "id"}],
        ),
    )


def seed(client: TestClient) -> dict[str, str]:
    runs = {"a": str(uuid.uuid4()), "b_dag": str(uuid.uuid4()), "b_job": str(uuid.uuid4())}
    b_prod = f"airflow://{SECRET}-prod"
    ingest(
        client,
        run_event("START", run_id=runs["b_dag"], job=(b_prod, f"{SECRET}_dag"), time=at(0)),
        run_event(
            "COMPLETE",
            run_id=runs["a"],
            job=("spark://team-a", "etl"),
            time=at(10),
            parent=(runs["b_dag"], (b_prod, f"{SECRET}_dag")),
            # A custom facet naming a hidden dataset: dropped however it is shaped.
            run_facets={"upstream": facet(source={"namespace": SECRET, "name": "x"}, n=1)},
            inputs=[dataset("team_a", "raw"), dataset(SECRET, f"{SECRET}_features")],
            outputs=[_clean()],
        ),
        run_event(
            "COMPLETE",
            run_id=runs["b_job"],
            job=(SECRET, f"{SECRET}_job"),
            time=at(20),
            inputs=[dataset("spark://team-a", "clean")],
            outputs=[dataset(SECRET, f"{SECRET}_features")],
        ),
        run_event(
            "COMPLETE",
            run_id=runs["b_dag"],
            job=(b_prod, f"{SECRET}_dag"),
            time=at(30),
            outputs=[dataset(b_prod, f"{SECRET}_alias")],
        ),
    )
    return runs


def team_client(make_client: AppFactory) -> tuple[TestClient, dict[str, str]]:
    client = make_client(namespace_mapping=MAPPING, authorizer=AUTHORIZER, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    runs = seed(client)
    client.headers["X-API-Key"] = "key-a"
    return client, runs


def get(client: TestClient, url: str, **params: Any) -> Any:
    response = client.get(url, params=params)
    assert SECRET not in response.text, f"{url} {params} leaked: {response.text}"
    return response


def test_no_endpoint_shows_team_b_to_team_a(make_client: AppFactory) -> None:
    client, runs = team_client(make_client)
    hidden_runs = {runs["b_dag"], runs["b_job"]}

    def clean(response: Any) -> Any:
        assert not any(r in response.text for r in hidden_runs), response.text
        return response.json()

    graph = clean(get(client, f"{API}/graph"))
    assert {n["id"] for n in graph["nodes"]} == {
        "dataset:team_a:raw",
        "dataset:spark://team-a:clean",
        "job:spark://team-a:etl",
    }
    assert graph["total_nodes"] == 3
    assert graph["total_edges"] == 3  # raw -> etl -> clean, clean -symlink-> raw
    for n in graph["nodes"]:
        for other in ("facets",):
            assert SECRET not in str(n[other])
    assert [s["alias_namespace"] for s in graph["symlinks"]] == ["team_a"]
    (clean_node,) = (n for n in graph["nodes"] if n["name"] == "clean")
    lineage = clean_node["facets"]["columnLineage"]
    assert lineage["fields"]["id"]["inputFields"] == [
        {"namespace": "team_a", "name": "raw", "field": "id"}
    ]
    assert lineage["dataset"] == []
    assert clean(get(client, f"{API}/graph", namespace=SECRET))["total_nodes"] == 0
    assert clean(get(client, f"{API}/graph", namespace=f"airflow://{SECRET}-prod"))["nodes"] == []

    for kind, ns, name in (
        ("dataset", "spark://team-a", "clean"),
        ("job", "spark://team-a", "etl"),
        ("dataset", "team_a", "raw"),
    ):
        sub = clean(get(client, subgraph_path(kind, ns, name), depth=10))
        assert {n["namespace"] for n in sub["nodes"]} <= {"team_a", "spark://team-a"}
        query_form = get(client, f"{API}/graph/node", type=kind, namespace=ns, name=name, depth=10)
        assert clean(query_form) == sub

    hidden = client.get(subgraph_path("job", SECRET, f"{SECRET}_job"))
    missing = client.get(subgraph_path("job", SECRET, f"{SECRET}_nope"))
    assert hidden.status_code == missing.status_code == 404
    assert (
        hidden.json()["error"]["message"].replace("_job", "_nope")
        == missing.json()["error"]["message"]
    )

    namespaces = clean(get(client, f"{API}/namespaces"))
    assert namespaces["namespaces"] == ["spark://team-a", "team_a"]
    jobs = clean(get(client, f"{API}/jobs"))
    assert jobs["total"] == 1
    datasets = clean(get(client, f"{API}/datasets"))
    assert datasets["total"] == 2
    assert clean(get(client, f"{API}/datasets", search=SECRET))["total"] == 0
    assert clean(get(client, f"{API}/jobs", namespace=SECRET))["total"] == 0

    events = clean(get(client, f"{API}/events"))
    assert events["total"] == 1
    event = events["events"][0]["event"]
    assert json.loads(events["events"][0]["event_json"]) == event  # redacted the same way
    assert [d["name"] for d in event["inputs"]] == ["raw"]
    assert "parent" not in event["run"]["facets"]
    assert event["run"]["facets"]["upstream"]["n"] == 1
    assert "source" not in event["run"]["facets"]["upstream"]
    (output,) = event["outputs"]
    assert output["facets"]["columnLineage"]["fields"]["id"]["inputFields"] == [
        {"namespace": "team_a", "name": "raw", "field": "id"}
    ]
    for params in (
        {"namespace": SECRET},
        {"job_name": f"{SECRET}_job"},
        {"run_id": runs["b_job"]},
        {"event_type": "START"},
    ):
        assert clean(get(client, f"{API}/events", **params))["total"] == 0

    run_list = clean(get(client, f"{API}/runs"))
    assert [r["run_id"] for r in run_list["runs"]] == [runs["a"]]
    assert run_list["total"] == 1
    assert run_list["runs"][0]["parent_run_id"] is None
    assert run_list["runs"][0]["root_run_id"] is None
    assert "parent" not in json.loads(run_list["runs"][0]["facets_json"])
    assert clean(get(client, f"{API}/runs", job_namespace=SECRET))["total"] == 0
    detail = clean(get(client, f"{API}/runs/{runs['a']}"))
    assert detail["parent_run_id"] is None
    assert "parent" not in detail["facets"]
    assert [d["name"] for d in detail["inputs"]] == ["raw"]
    for hidden_run in hidden_runs:
        response = client.get(f"{API}/runs/{hidden_run}")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == f"no run with run_id {hidden_run}; " + (
            "list them with GET /api/v1/lineage/openlineage/runs"
        )

    retention = clean(get(client, f"{API}/retention"))
    rows = retention["storage_stats"]["rows"]
    assert rows == {"events": 1, "runs": 1, "jobs": 1, "datasets": 2, "edges": 2, "symlinks": 1}
    assert retention["last_prune"] is None


def test_team_b_sees_its_own_lineage_and_the_edge_to_a_only_with_both_ends(
    make_client: AppFactory,
) -> None:
    client, runs = team_client(make_client)
    client.headers["X-API-Key"] = "key-b"
    graph = client.get(f"{API}/graph").json()
    assert "team-a" not in str(graph)
    assert graph["total_nodes"] == 4  # dag, job, features, alias
    client.headers["X-API-Key"] = "key-all"
    everything = client.get(f"{API}/graph").json()
    assert everything["total_nodes"] == 7
    parent = (f"job:airflow://{SECRET}-prod:{SECRET}_dag", "job:spark://team-a:etl", "parent")
    assert parent in [(e["source"], e["target"], e["type"]) for e in everything["edges"]]
    detail = client.get(f"{API}/runs/{runs['a']}").json()
    assert detail["parent_run_id"] == runs["b_dag"]


def test_keys_see_the_anonymous_projects_too_but_nothing_else(make_client: AppFactory) -> None:
    """A key sees its projects and the anonymous ones; never a project neither grants."""
    authorizer = {**AUTHORIZER, "anonymous_projects": ["public"]}
    client = make_client(namespace_mapping=MAPPING, authorizer=authorizer, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    seed(client)
    ingest(client, run_event("COMPLETE", job=("public", "open_job"), time=at(40)))
    expected = {
        None: ["public"],
        "key-a": ["public", "spark://team-a", "team_a"],
        "key-b": [f"airflow://{SECRET}-prod", SECRET, "public"],
    }
    for key, namespaces in expected.items():
        headers = {"X-API-Key": key} if key else {}
        del client.headers["X-API-Key"]
        listed = client.get(f"{API}/namespaces", headers=headers)
        assert listed.json()["namespaces"] == namespaces, key
        jobs = client.get(f"{API}/jobs", headers=headers).json()["jobs"]
        assert "open_job" in {j["job_name"] for j in jobs}, key
        if key != "key-b":
            assert SECRET not in client.get(f"{API}/graph", headers=headers).text, key
        client.headers["X-API-Key"] = "admin"


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}])
def test_queries_without_a_valid_read_key_are_401_with_no_data(
    make_client: AppFactory, headers: dict[str, str]
) -> None:
    client, _ = team_client(make_client)
    del client.headers["X-API-Key"]
    for path in ("/graph", "/namespaces", "/jobs", "/datasets", "/events", "/runs", "/retention"):
        response = client.get(API + path, headers=headers)
        assert response.status_code == 401, path
        assert set(response.json()) == {"error", "detail"}
        assert "team" not in response.text


class _Broken:
    def scope(self, request: HTTPConnection) -> Scope:
        raise RuntimeError("registry down: team_a, bbsecret")


class _Wrong:
    def scope(self, request: HTTPConnection) -> Any:
        return None


@pytest.mark.parametrize("authorizer", [_Broken(), _Wrong()])
def test_a_failing_authorizer_gives_500_and_nothing_else(
    make_client: AppFactory, authorizer: Any
) -> None:
    client = make_client()
    seed(client)
    client.app.state.consumer.authorizer = authorizer  # type: ignore[attr-defined]
    for path in ("/graph", "/events", "/runs", "/namespaces", "/retention"):
        response = client.get(API + path)
        assert response.status_code == 500
        assert response.json()["error"]["code"] == "authorization_failed"
        assert SECRET not in response.text
        assert "team" not in response.text


def test_admin_endpoints_fail_closed_when_reads_are_restricted_but_no_key_is_set(
    make_client: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Without an api_key prune and reset are open, but not under a restrictive authorizer."""
    client = make_client(namespace_mapping=MAPPING, authorizer=AUTHORIZER)
    assert "prune and reset are refused" in caplog.text
    seed(client)  # ingest stays open without a key, as the spec says
    client.headers["X-API-Key"] = "key-all"
    before = client.get(f"{API}/events").json()["total"]
    assert before > 0
    for response in (
        client.post(f"{API}/retention/prune", params={"days": 1}),
        client.delete(f"{API}/reset"),
        client.delete(f"{API}/reset", params={"namespace": "team_a"}),
    ):
        assert response.status_code == 403, response.text
        error = response.json()["error"]
        assert error["code"] == "admin_key_required"
        assert "openlineage.consumer.api_key" in error["message"]
    assert client.get(f"{API}/events").json()["total"] == before


def test_admin_endpoints_stay_open_without_a_key_when_reads_are_open(
    make_client: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    client = make_client()
    assert "so are prune and reset" in caplog.text
    seed(client)
    assert client.delete(f"{API}/reset", params={"namespace": "team_a"}).status_code == 200


def test_as_of_and_windows_show_team_b_to_team_a_nowhere(make_client: AppFactory) -> None:
    client, runs = team_client(make_client)
    hidden_runs = {runs["b_dag"], runs["b_job"]}
    visible = {"dataset:team_a:raw", "dataset:spark://team-a:clean", "job:spark://team-a:etl"}
    times = ({"as_of": at(100)}, {"as_of": at(15)}, {"since": at(0)}, {"until": at(100)})
    for when in times:
        for params in ({}, {"namespace": SECRET}, {"namespace": f"airflow://{SECRET}-prod"}):
            page = get(client, f"{API}/graph", **when, **params)
            assert page.status_code == 200, page.text
            assert not any(r in page.text for r in hidden_runs)
            body = page.json()
            assert {n["id"] for n in body["nodes"]} <= (visible if not params else set())
            assert body["total_nodes"] == len(body["nodes"])
        whole = get(client, f"{API}/graph", **when).json()
        if "as_of" in when:  # raw -> etl -> clean, clean -symlink-> raw (current then)
            assert whole["total_edges"] == 3
            assert [s["alias_namespace"] for s in whole["symlinks"]] == ["team_a"]
        else:  # a window counts the input and output edges its runs observed
            assert whole["total_edges"] == 2
        assert SECRET not in str(whole["symlinks"])
        for kind, ns, name in (
            ("dataset", "spark://team-a", "clean"),
            ("job", "spark://team-a", "etl"),
            ("dataset", "team_a", "raw"),
        ):
            sub = get(client, subgraph_path(kind, ns, name), depth=10, **when)
            assert sub.status_code == 200, sub.text
            assert {n["id"] for n in sub.json()["nodes"]} <= visible
            query_form = get(
                client, f"{API}/graph/node", type=kind, namespace=ns, name=name, depth=10, **when
            )
            assert query_form.json() == sub.json()
        if "as_of" in when:  # the catalog as of then: team A's own, in every order
            for kind, sort in (("jobs", "-latest_started"), ("datasets", "kind"), ("jobs", "")):
                for params in ({}, {"namespace": SECRET}, {"search": SECRET}):
                    ordered = {"sort": sort} if sort else {}
                    listed = get(client, f"{API}/{kind}", **when, **params, **ordered)
                    assert listed.status_code == 200, listed.text
                    assert SECRET not in listed.text
                    assert not any(r in listed.text for r in hidden_runs)
                    names = {
                        f"{kind[:-1]}:{i[kind[:-1] + '_namespace']}:{i[kind[:-1] + '_name']}"
                        for i in listed.json()[kind]
                    }
                    assert names <= (visible if not params else set())
                    assert listed.json()["total"] == len(names)
        hidden = client.get(subgraph_path("job", SECRET, f"{SECRET}_job"), params=when)
        missing = client.get(subgraph_path("job", SECRET, f"{SECRET}_nope"), params=when)
        assert hidden.status_code == missing.status_code == 404
        message = hidden.json()["error"]["message"]
        assert message.replace("_job", "_nope") == missing.json()["error"]["message"]


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # a route: SQLite only
def test_the_diff_shows_team_b_to_team_a_nowhere(make_client: AppFactory) -> None:
    client, runs = team_client(make_client)
    client.headers["X-API-Key"] = "admin"
    # etl stops reading team B's features: a job change to the admin, none to team A.
    later = run_event(
        "COMPLETE",
        run_id=str(uuid.uuid4()),
        job=("spark://team-a", "etl"),
        time=at(40),
        inputs=[dataset("team_a", "raw")],
        outputs=[_clean()],
    )
    ingest(client, later)
    diff = f"{API}/lineage/diff"
    everything = client.get(diff, params={"from": at(15), "to": at(100)}).json()
    # (Team B's DAG run was under way at 15: its outputs came with its COMPLETE at 30.)
    assert {j["node"]: j["changed"] for j in everything["job_changes"]} == {
        f"job:airflow://{SECRET}-prod:{SECRET}_dag": ["outputs"],
        "job:spark://team-a:etl": ["inputs"],
    }
    assert everything["edges_removed"]  # the input edge from team B's features
    client.headers["X-API-Key"] = "key-a"
    hidden_runs = {runs["b_dag"], runs["b_job"]}
    visible = {"dataset:team_a:raw", "dataset:spark://team-a:clean", "job:spark://team-a:etl"}
    asks: list[dict[str, Any]] = [
        {"from": at(-1), "to": at(100)},
        {"from": at(100), "to": at(-1)},
        {"from": at(15), "to": at(100)},
        {"from_run": runs["a"], "to": at(100)},
    ]
    centres = [
        {"node_type": k, "namespace": ns, "name": n, "depth": 10}
        for k, ns, n in (("dataset", "spark://team-a", "clean"), ("job", "spark://team-a", "etl"))
    ]
    narrowed = [a | {"within": ns} for a in asks for ns in ("team_a", "spark://team-a")]
    for ask in asks + [a | c for a in asks for c in centres] + narrowed:
        response = get(client, diff, **ask)
        assert response.status_code == 200, response.text
        assert not any(r in response.text for r in hidden_runs)
        body = response.json()
        ids = {n["id"] for n in body["nodes_added"] + body["nodes_removed"]}
        assert ids <= visible
        assert body["job_changes"] == [], [
            j["changed"] for j in body["job_changes"]
        ]  # only team B's input changed
    for hidden_run in hidden_runs:
        refused = get(client, diff, from_run=hidden_run, to=at(100))
        missing = get(client, diff, from_run=str(uuid.uuid4()), to=at(100))
        assert refused.status_code == missing.status_code == 404
    # Narrowed to a hidden namespace: what a namespace that does not exist answers, nothing.
    apart = {"from": at(-1), "to": at(100)}
    secret = client.get(diff, params=apart | {"within": SECRET})
    nowhere = client.get(diff, params=apart | {"within": "no-such-namespace"})
    assert secret.status_code == nowhere.status_code == 200
    narrowed_to = secret.json()
    assert narrowed_to.pop("within") == SECRET  # the caller's own ask, echoed
    assert SECRET not in json.dumps(narrowed_to)
    assert not any(r in secret.text for r in hidden_runs)
    assert narrowed_to == {k: v for k, v in nowhere.json().items() if k != "within"}
    assert set(narrowed_to["totals"].values()) == {0}
    centre = {"from": at(-1), "to": at(100), "node_type": "job", "namespace": SECRET}
    hidden = client.get(diff, params=centre | {"name": f"{SECRET}_job"})
    nope = client.get(diff, params=centre | {"name": f"{SECRET}_nope"})
    assert hidden.status_code == nope.status_code == 404
    assert (
        hidden.json()["error"]["message"].replace("_job", "_nope")
        == nope.json()["error"]["message"]
    )


def test_a_runs_lineage_and_column_lineage_as_of_show_team_b_to_team_a_nowhere(
    make_client: AppFactory,
) -> None:
    client, runs = team_client(make_client)
    visible = {"dataset:team_a:raw", "dataset:spark://team-a:clean", "job:spark://team-a:etl"}
    lineage = get(client, f"{API}/runs/{runs['a']}/lineage", depth=10)
    assert lineage.status_code == 200, lineage.text
    assert {n["id"] for n in lineage.json()["nodes"]} <= visible
    assert runs["b_dag"] not in lineage.text
    # Depth 1 has the aliases of what the run wrote (at its depth): team_a's, never team B's.
    for depth in (1, 10):
        body = get(client, f"{API}/runs/{runs['a']}/lineage", depth=depth).json()
        nodes = {n["id"] for n in body["nodes"]}
        assert "dataset:team_a:raw" in nodes
        assert nodes <= visible
        assert {end for s in body["symlinks"] for end in (s["dataset"], s["alias"])} <= nodes
        assert f"{SECRET}_alias" not in json.dumps(body)
    for hidden in (runs["b_dag"], runs["b_job"], str(uuid.uuid4())):
        response = get(client, f"{API}/runs/{hidden}/lineage")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == f"no run with run_id {hidden}; " + (
            "list them with GET /api/v1/lineage/openlineage/runs"
        )
    for when in ({"as_of": at(100)}, {"as_of": at(15)}):
        for ns, name in (("spark://team-a", "clean"), ("team_a", "raw")):
            cols = get(client, f"{API}/columns", namespace=ns, name=name, **when)
            assert cols.status_code in (200, 404), cols.text
        hidden = client.get(f"{API}/columns", params={"namespace": SECRET, "name": "x", **when})
        missing = client.get(f"{API}/columns", params={"namespace": "nope", "name": "x", **when})
        assert hidden.status_code == missing.status_code == 404  # told apart by nothing
        assert hidden.text.replace(SECRET, "nope") == missing.text


def test_a_hidden_table_never_names_the_alias_group_of_a_visible_location(
    make_client: AppFactory,
) -> None:
    """Team A reads a path whose TABLE symlink names team B's table: a table's name wins
    an alias group's, but team A's group holds only what it may see, so its path."""
    client = make_client(namespace_mapping=MAPPING, authorizer=AUTHORIZER, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    b_prod, a_ns = f"airflow://{SECRET}-prod", "spark://team-a"
    table = {"namespace": b_prod, "name": f"{SECRET}_orders", "type": "TABLE"}
    path = dataset(a_ns, "/data/orders", symlinks=facet(identifiers=[table]))
    report = dataset(
        "team_a",
        "report",
        columnLineage=facet(
            fields={
                "id": {"inputFields": [{"namespace": a_ns, "name": "/data/orders", "field": "id"}]}
            }
        ),
    )
    ingest(
        client,
        run_event(
            "COMPLETE", job=(b_prod, f"{SECRET}_dag"), outputs=[dataset(b_prod, table["name"])]
        ),
        run_event("COMPLETE", job=(a_ns, "load"), inputs=[path], outputs=[report]),
    )
    ask = {"namespace": "team_a", "name": "report", "field": "id", "direction": "upstream"}
    client.headers["X-API-Key"] = "key-all"
    (seen,) = (n for n in client.get(f"{API}/columns", params=ask).json()["nodes"] if n["depth"])
    assert (seen["namespace"], seen["name"]) == (b_prod, table["name"])  # the table's name
    client.headers["X-API-Key"] = "key-a"
    body = get(client, f"{API}/columns", **ask).json()
    (node,) = (n for n in body["nodes"] if n["depth"])
    assert (node["namespace"], node["name"], node["aliases"]) == (a_ns, "/data/orders", [])
    for when in ({}, {"as_of": at(100)}, {"since": at(-100)}):
        assert get(client, f"{API}/columns", **ask, **when).status_code == 200
        graph = get(client, subgraph_path("dataset", a_ns, "/data/orders"), **when).json()
        assert graph["symlinks"] == []


def _declared(time: int, sources: list[tuple[str, str, str]], *jobs: str) -> dict[str, Any]:
    """Team A's etl declares what feeds clean, and (``jobs``) the team B jobs it feeds."""
    entries: list[Any] = [("DATASET", "spark://team-a", "clean", sources)]
    entries += [("JOB", SECRET, job, [("JOB", "spark://team-a", "etl")]) for job in jobs]
    return job_event("spark://team-a", "etl", time=at(time), lineage=lineage_facet(*entries))


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # a route: SQLite only
def test_explicit_lineage_then_shows_team_b_to_team_a_nowhere(make_client: AppFactory) -> None:
    client, _runs = team_client(make_client)
    client.headers["X-API-Key"] = "admin"
    both = [("DATASET", "team_a", "raw"), ("DATASET", SECRET, f"{SECRET}_src")]
    hidden_only = [("DATASET", SECRET, f"{SECRET}_src")]
    # A (raw and B's source feed clean; etl feeds B's job), B (only B's source), A again.
    ingest(
        client,
        _declared(60, both, f"{SECRET}_job"),
        _declared(40, both, f"{SECRET}_job"),
        _declared(50, hidden_only),
    )
    client.headers["X-API-Key"] = "key-a"
    visible = {"dataset:team_a:raw", "dataset:spark://team-a:clean", "job:spark://team-a:etl"}
    etl, clean = "job:spark://team-a:etl", "dataset:spark://team-a:clean"
    declared_a = {("dataset:team_a:raw", etl, "input"), (etl, clean, "output")}
    # as_of: the 3 lineage edges then, and the visible declared edges of the payload then
    for when, declared in (
        ({"as_of": at(35)}, set()),
        ({"as_of": at(45)}, declared_a),
        ({"as_of": at(55)}, {(etl, clean, "output")}),
        ({"as_of": at(65)}, declared_a),
        ({"since": at(45), "until": at(55)}, {(etl, clean, "output")}),
        ({"since": at(40)}, declared_a),
    ):
        page = get(client, f"{API}/graph", **when)
        assert page.status_code == 200, page.text
        body = page.json()
        assert {n["id"] for n in body["nodes"]} <= visible
        got = {(e["source"], e["target"], e["type"]) for e in body["edges"] if e["origin"]}
        assert got == declared, when
        if "as_of" in when:
            assert body["total_edges"] == 3 + len(declared)
        else:  # no run overlapped these windows
            assert body["total_edges"] == len(declared)
        hidden_page = get(client, f"{API}/graph", namespace=SECRET, **when).json()
        assert hidden_page["nodes"] == []
        assert hidden_page["total_edges"] == 0
        for kind, ns, name in (("job", "spark://team-a", "etl"), ("dataset", "team_a", "raw")):
            sub = get(client, subgraph_path(kind, ns, name), depth=10, **when)
            assert sub.status_code == 200, sub.text
            assert {n["id"] for n in sub.json()["nodes"]} <= visible
    for ask in ({"from": at(45), "to": at(55)}, {"from": at(55), "to": at(65)}):
        centred = {"node_type": "job", "namespace": "spark://team-a", "name": "etl", "depth": 5}
        for params in (ask, ask | centred):
            diff = get(client, f"{API}/lineage/diff", **params)
            assert diff.status_code == 200, diff.text
            moved = diff.json()["edges_removed"] + diff.json()["edges_added"]
            assert {(e["source"], e["target"], e["type"]) for e in moved if e["origin"]} == {
                ("dataset:team_a:raw", etl, "input")
            }


def test_a_window_counts_no_parent_edge_to_a_hidden_child(make_client: AppFactory) -> None:
    """A visible parent job whose child is hidden: the window neither lists nor counts the
    edge for a caller who may not see the child (only total_edges could tell)."""
    client, runs = team_client(make_client)
    client.headers["X-API-Key"] = "admin"
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=(SECRET, f"{SECRET}_child"),
            time=at(12),
            parent=(runs["a"], ("spark://team-a", "etl")),
        ),
    )
    every = client.get(f"{API}/graph", params={"since": at(0)}).json()
    assert any(
        e["type"] == "parent" and e["source"] == "job:spark://team-a:etl" for e in every["edges"]
    )
    client.headers["X-API-Key"] = "key-a"
    for when in ({"since": at(0)}, {"until": at(100)}):
        for params in ({}, {"namespace": "team_a"}):
            body = get(client, f"{API}/graph", **when, **params).json()
            assert "parent" not in {e["type"] for e in body["edges"]}
        assert get(client, f"{API}/graph", **when).json()["total_edges"] == 2
        sub = get(client, subgraph_path("job", "spark://team-a", "etl"), depth=10, **when).json()
        assert "parent" not in {e["type"] for e in sub["edges"]}


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # a route: SQLite only
def test_a_column_edge_a_hidden_job_stated_between_visible_datasets_names_no_job_or_run(
    make_client: AppFactory,
) -> None:
    """Team B's job reads and writes team A's datasets with column lineage: team A sees the
    edge between its own columns, never the job that stated it, its namespace or its run."""
    client = make_client(namespace_mapping=MAPPING, authorizer=AUTHORIZER, api_key="admin")
    client.headers["X-API-Key"] = "admin"
    b_prod = f"airflow://{SECRET}-prod"
    hidden_run = str(uuid.uuid4())
    report = dataset(
        "team_a",
        "report",
        columnLineage=facet(
            fields={"id": {"inputFields": [{"namespace": "team_a", "name": "raw", "field": "id"}]}}
        ),
    )
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=hidden_run,
            job=(b_prod, f"{SECRET}_copy"),
            inputs=[dataset("team_a", "raw")],
            outputs=[report],
        ),
    )
    ask = {"namespace": "team_a", "name": "report", "field": "id", "direction": "upstream"}
    client.headers["X-API-Key"] = "admin"
    every = client.get(f"{API}/columns", params=ask).json()
    (seen,) = every["edges"]
    assert seen["job"] == {"namespace": b_prod, "name": f"{SECRET}_copy"}
    assert seen["run_id"] == hidden_run
    # Feast's row of the edge is dated by the hidden job's event: its time is not team A's to see.
    (row,) = every["column_lineage"]
    assert row["updated_at"] > 0
    client.headers["X-API-Key"] = "key-a"
    for when in ({}, {"as_of": at(100)}, {"since": at(-100)}):
        body = get(client, f"{API}/columns", **ask, **when)
        assert body.status_code == 200, body.text
        (edge,) = body.json()["edges"]
        assert (edge["job"], edge["run_id"]) == (None, None)
        (row,) = body.json()["column_lineage"]
        assert (row["run_id"], row["updated_at"]) == (None, 0)
        assert SECRET not in body.text
        assert hidden_run not in body.text
    # The diff's column edges alike: the edge is added, by no job or run the caller may know.
    diff = get(client, f"{API}/lineage/diff", **{"from": at(-100), "to": at(100)}).json()
    (added,) = diff["column_edges_added"]
    assert (added["job"], added["run_id"]) == (None, None)
    assert hidden_run not in json.dumps(diff)
