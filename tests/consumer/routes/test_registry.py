"""Registry lineage endpoints: the Feast-only lineage, read from a real registry."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.producer.feast_repo import feast_objects, load_module, write_config, write_repo

R = "/api/v1/lineage"
READ_KEY = "reader-of-other"  # pragma: allowlist secret

NODES = {
    "demo:entity:driver": "entity",
    "demo:entity:customer": "entity",
    "demo:data_source:driver_stats_source": "data_source",
    "demo:data_source:driver_stats_push": "data_source",
    "demo:data_source:driver_stream": "data_source",
    "demo:data_source:customer_source": "data_source",
    "demo:data_source:trip_request": "data_source",
    "demo:feature_view:driver_hourly_stats": "feature_view",
    "demo:feature_view:driver_fresh_stats": "feature_view",
    "demo:feature_view:driver_daily": "feature_view",
    "demo:feature_view:customer_profile": "feature_view",
    "demo:feature_view:driver_stream_stats": "stream_feature_view",
    "demo:feature_view:expected_trips": "on_demand_feature_view",
    "demo:feature_service:driver_activity": "feature_service",
    "demo:feature_service:customer_overview": "feature_service",
}
EDGES = {
    ("demo:data_source:driver_stats_source", "demo:feature_view:driver_hourly_stats"),
    ("demo:entity:driver", "demo:feature_view:driver_hourly_stats"),
    ("demo:data_source:driver_stats_push", "demo:feature_view:driver_fresh_stats"),
    ("demo:data_source:driver_stats_source", "demo:feature_view:driver_fresh_stats"),
    ("demo:entity:driver", "demo:feature_view:driver_fresh_stats"),
    ("demo:data_source:driver_stats_source", "demo:feature_view:driver_daily"),
    ("demo:entity:driver", "demo:feature_view:driver_daily"),
    ("demo:data_source:driver_stream", "demo:feature_view:driver_stream_stats"),
    ("demo:data_source:driver_stats_source", "demo:feature_view:driver_stream_stats"),
    ("demo:entity:driver", "demo:feature_view:driver_stream_stats"),
    ("demo:data_source:customer_source", "demo:feature_view:customer_profile"),
    ("demo:entity:customer", "demo:feature_view:customer_profile"),
    ("demo:feature_view:driver_hourly_stats", "demo:feature_view:expected_trips"),
    ("demo:data_source:trip_request", "demo:feature_view:expected_trips"),
    ("demo:feature_view:driver_hourly_stats", "demo:feature_service:driver_activity"),
    ("demo:feature_view:expected_trips", "demo:feature_service:driver_activity"),
    ("demo:feature_view:customer_profile", "demo:feature_service:customer_overview"),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("registry")
    root, base = write_repo(root, streams=True)
    from feast import FeatureStore

    objects = feast_objects(load_module(root, base))
    objects += feast_objects(load_module(root, f"{base}_streams"))
    FeatureStore(repo_path=str(root)).apply(objects)
    return root


def client_for(repo: Path | None, tmp_path: Path, **consumer: Any) -> TestClient:
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True, **consumer),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
        repo_path=repo,
        project="demo" if repo else None,
    )
    return TestClient(create_app(settings))


@pytest.fixture
def api(repo: Path, tmp_path: Path) -> Iterator[TestClient]:
    with client_for(repo, tmp_path) as client:
        yield client


def edges_of(body: dict[str, Any]) -> set[tuple[str, str]]:
    return {(e["source"], e["target"]) for e in body["edges"]}


def test_registry_lineage_of_the_project(api: TestClient) -> None:
    response = api.get(f"{R}/registry")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["projects"] == ["demo"]
    assert {n["id"]: n["type"] for n in body["nodes"]} == NODES
    assert edges_of(body) == EDGES
    assert all(n["object"] is None and not n["missing"] for n in body["nodes"])
    typed = {(e["source_type"], e["target_type"]) for e in body["edges"]}
    assert ("on_demand_feature_view", "feature_service") in typed
    assert ("data_source", "stream_feature_view") in typed
    # Deterministic: the same ids and order every time.
    assert api.get(f"{R}/registry", params={"project": "demo"}).json() == body


def test_registry_lineage_of_every_project(api: TestClient) -> None:
    body = api.get(f"{R}/registry/all").json()
    assert body["projects"] == ["demo"]
    assert {n["id"] for n in body["nodes"]} == set(NODES)
    assert edges_of(body) == EDGES


def test_complete_lineage_carries_every_definition(api: TestClient) -> None:
    for path in ("/complete", "/complete/all"):
        body = api.get(R + path).json()
        assert {n["id"] for n in body["nodes"]} == set(NODES)
        definitions = {n["id"]: n["object"] for n in body["nodes"]}
        view = definitions["demo:feature_view:driver_hourly_stats"]
        assert view["spec"]["name"] == "driver_hourly_stats"
        assert view["spec"]["ttl"] == "86400s"
        assert definitions["demo:entity:driver"]["spec"]["join_key"] == "driver_id"
        odfv = definitions["demo:feature_view:expected_trips"]["spec"]
        udf = odfv["feature_transformation"]["user_defined_function"]
        assert "body_text" in udf
        assert "body" not in udf  # the pickled function is left out


def test_one_object_with_its_direct_lineage(api: TestClient) -> None:
    body = api.get(f"{R}/objects/feature_view/driver_hourly_stats").json()
    assert body["project"] == "demo"
    assert body["node"]["id"] == "demo:feature_view:driver_hourly_stats"
    assert body["node"]["object"]["spec"]["description"] == "Driver statistics per hour"
    assert [n["id"] for n in body["upstream"]] == [
        "demo:data_source:driver_stats_source",
        "demo:entity:driver",
    ]
    assert [n["id"] for n in body["downstream"]] == [
        "demo:feature_service:driver_activity",
        "demo:feature_view:expected_trips",
    ]
    assert len(body["edges"]) == 4
    odfv = api.get(f"{R}/objects/on_demand_feature_view/expected_trips").json()
    assert [n["type"] for n in odfv["upstream"]] == ["data_source", "feature_view"]


def test_feasts_own_camel_case_object_types_work_too(api: TestClient) -> None:
    # Feast's registry REST API says featureView for every kind of feature view.
    odfv = api.get(f"{R}/objects/featureView/expected_trips").json()
    assert odfv["node"]["type"] == "on_demand_feature_view"
    source = api.get(f"{R}/objects/dataSource/driver_stats_source").json()
    assert source["node"]["id"] == "demo:data_source:driver_stats_source"
    service = api.get(f"{R}/objects/featureService/driver_activity")
    assert service.status_code == 200
    assert api.get(f"{R}/objects/featureView/driver_activity").status_code == 404


def test_unknown_objects_and_types_are_errors_in_the_one_error_shape(api: TestClient) -> None:
    missing = api.get(f"{R}/objects/feature_view/nope")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert missing.json()["error"]["message"] == (
        "project 'demo' has no feature_view named 'nope'; "
        "list them with GET /api/v1/lineage/registry?project=demo"
    )
    wrong_kind = api.get(f"{R}/objects/stream_feature_view/driver_hourly_stats")
    assert wrong_kind.status_code == 404
    bogus = api.get(f"{R}/objects/bogus/driver")
    assert bogus.status_code == 400
    assert bogus.json()["error"]["code"] == "invalid_object_type"
    assert "feature_service" in bogus.json()["error"]["message"]


def test_an_unknown_project_is_not_found(api: TestClient) -> None:
    for path in ("/registry", "/complete", "/objects/entity/driver"):
        response = api.get(R + path, params={"project": "nope"})
        assert response.status_code == 404, path
        error = response.json()["error"]
        assert error["code"] == "not_found"
        assert error["message"].startswith("the registry has no project 'nope'")
        assert "projects you may see: demo" in error["message"]


def test_the_repositorys_own_project_has_an_empty_graph_before_any_apply(
    repo: Path, tmp_path: Path
) -> None:
    """The configured project is known though the registry has no objects of it yet."""
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
        repo_path=repo,
        project="elsewhere",
    )
    with TestClient(create_app(settings)) as api:
        for path in ("/registry", "/complete"):
            body = api.get(R + path).json()
            assert body == {"projects": ["elsewhere"], "nodes": [], "edges": []}
            assert api.get(R + path, params={"project": "elsewhere"}).json() == body
        # A project of the registry other than the configured one is found too.
        demo = api.get(f"{R}/registry", params={"project": "demo"})
        assert demo.status_code == 200
        assert {n["id"] for n in demo.json()["nodes"]} == set(NODES)
        assert api.get(f"{R}/registry", params={"project": "nope"}).status_code == 404


def test_without_a_repository_the_endpoints_say_so(tmp_path: Path) -> None:
    with client_for(None, tmp_path) as api:
        response = api.get(f"{R}/registry")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "no_registry"


def test_projects_the_caller_may_not_see_are_refused(repo: Path, tmp_path: Path) -> None:
    authorizer = {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["other"]}]}
    with client_for(repo, tmp_path, authorizer=authorizer) as api:
        headers = {"X-API-Key": READ_KEY}
        refused = api.get(f"{R}/registry", headers=headers)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "forbidden"
        assert api.get(f"{R}/registry/all", headers=headers).json()["projects"] == []
        assert api.get(f"{R}/objects/entity/driver", headers=headers).status_code == 403
        assert api.get(f"{R}/registry").status_code == 401


def test_a_hidden_default_project_is_refused_without_its_name(repo: Path, tmp_path: Path) -> None:
    """Without ?project the default is the repository's: refused, but never named."""
    authorizer = {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["other"]}]}
    with client_for(repo, tmp_path, authorizer=authorizer) as api:
        headers = {"X-API-Key": READ_KEY}
        for path in ("/registry", "/complete", "/objects/entity/driver"):
            refused = api.get(R + path, headers=headers)
            assert refused.status_code == 403, path
            assert "demo" not in refused.text, path
            message = refused.json()["error"]["message"]
            assert "?project=" in message, message
            assert "/registry/all" in message, message


def test_an_unknown_project_is_refused_not_revealed_when_not_visible(
    repo: Path, tmp_path: Path
) -> None:
    """Hidden projects answer 403 whether or not they exist; visible unknown ones 404."""
    authorizer = {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["other"]}]}
    with client_for(repo, tmp_path, authorizer=authorizer) as api:
        headers = {"X-API-Key": READ_KEY}
        for path in ("/registry", "/complete"):
            exists = api.get(R + path, params={"project": "demo"}, headers=headers)
            missing = api.get(R + path, params={"project": "nope"}, headers=headers)
            assert exists.status_code == missing.status_code == 403
            assert exists.json()["error"]["code"] == missing.json()["error"]["code"]
            visible = api.get(R + path, params={"project": "other"}, headers=headers)
            assert visible.status_code == 404
            message = visible.json()["error"]["message"]
            assert "'other'" in message
            assert "demo" not in message  # the projects listed are the visible ones


def _corrupt_rows(registry: Path) -> None:
    """Every stored object undecodable: Feast's reads fail with a protobuf DecodeError."""
    with closing(sqlite3.connect(registry)) as db, db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for column in [r[1] for r in db.execute(f"PRAGMA table_info({table})")]:
                if column.endswith("_proto"):
                    db.execute(f"UPDATE {table} SET {column} = x'ffffffff0102'")


def _corrupt_file(registry: Path) -> None:
    registry.write_bytes(b"not a registry " * 1000)


@pytest.mark.parametrize("corrupt", [_corrupt_rows, _corrupt_file], ids=["rows", "file"])
def test_a_corrupt_registry_is_registry_unavailable_on_every_route(
    repo: Path, tmp_path: Path, corrupt: Callable[[Path], None]
) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(repo, copy)
    write_config(copy)  # the copy's own registry (the path in the config is absolute)
    with client_for(copy, tmp_path) as api:
        assert api.get(f"{R}/registry/all").status_code == 200  # the registry is open
        corrupt(copy / "data" / "registry.db")
        for path in ("/registry/all", "/complete/all", "/registry", "/complete"):
            response = api.get(R + path)
            assert response.status_code == 503, (path, response.text)
            assert response.json()["error"]["code"] == "registry_unavailable"
        unknown = api.get(f"{R}/registry", params={"project": "nope"})
        assert unknown.status_code == 503


def test_the_server_reads_the_registry_of_its_feature_store_yaml(repo: Path) -> None:
    """serve_lineage's settings: the repository and feature_store.yaml it was started with."""
    from feast_lineage.config import load_config

    config = load_config(repo)
    settings = AppSettings.from_config(
        config.__class__(
            project=config.project,
            repo_path=config.repo_path,
            producer=config.producer,
            consumer=ConsumerSettings(enabled=True),
            registry_type=config.registry_type,
            registry_path=config.registry_path,
        ),
        standalone=True,
        fs_yaml_file=repo / "feature_store.yaml",
    )
    assert (settings.repo_path, settings.project) == (repo.resolve(), "demo")
    with TestClient(create_app(settings)) as api:
        body = api.get(f"{R}/registry").json()
    assert {n["id"] for n in body["nodes"]} == set(NODES)


def test_the_registry_is_open_before_the_first_request(repo: Path, tmp_path: Path) -> None:
    """The app opens it as it starts (importing Feast takes seconds): no request waits for it."""
    client = client_for(repo, tmp_path)
    source = client.app.state.registry_source  # type: ignore[attr-defined]
    assert not source.is_open
    with client as api:  # the lifespan has run: what a worker does before it accepts
        assert source.is_open
        assert api.get(f"{R}/registry").status_code == 200


def test_a_registry_that_cannot_be_opened_does_not_stop_the_server(
    repo: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(repo, copy)
    write_config(copy)
    (copy / "data" / "registry.db").write_bytes(b"not a registry " * 1000)
    (copy / "feature_store.yaml").write_text("project: [unclosed")
    with client_for(copy, tmp_path) as api:
        assert not api.app.state.registry_source.is_open  # type: ignore[attr-defined]
        assert api.get("/healthz").status_code == 200
        assert api.get(f"{R}/registry").json()["error"]["code"] == "registry_unavailable"
