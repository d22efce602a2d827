"""The ``feast`` authorizer: reads follow Feast's own auth and permissions.

Real parts: a Feast registry with two projects and their Permission
objects, Feast's own OIDC token parser, and an OpenID Connect issuer on
localhost (``tests/oidc.py``) that it asks over HTTP. Only the identity
provider is a stand-in: Keycloak cannot run here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from feast_lineage.config.authorizer import FeastAuthorizerSettings
from feast_lineage.config.errors import ConfigError
from feast_lineage.config.loader import load_config
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.consumer.access import test_hidden_text as hidden
from tests.consumer.lineage import API, ingest
from tests.factories import run_event
from tests.oidc import CLIENT_ID, Issuer, new_key, running_issuer

ADMIN = "admin-key"  # pragma: allowlist secret
MAPPING = {"spark://team-a": "alpha"}


def fs_yaml(root: Path, project: str, auth: dict[str, Any] | None, **consumer: Any) -> Path:
    data: dict[str, Any] = {
        "project": project,
        "registry": str(root / "data" / "registry.db"),
        "provider": "local",
        "online_store": {"type": "sqlite", "path": str(root / "data" / f"{project}.db")},
        "entity_key_serialization_version": 3,
        "openlineage": {
            "consumer": {
                "enabled": True,
                "connection_string": f"sqlite:///{root / 'lineage.db'}",
                "api_key": ADMIN,
                "namespace_mapping": MAPPING,
                **consumer,
            }
        },
    }
    if auth is not None:
        data["auth"] = auth
    path = root / f"{project}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def populate_registry(root: Path) -> None:
    """Projects alpha and beta, each readable by its own role (Feast with auth off)."""
    from feast import Entity, FeatureStore, ValueType
    from feast.permissions.action import AuthzedAction
    from feast.permissions.permission import Permission
    from feast.permissions.policy import RoleBasedPolicy
    from feast.project import Project

    (root / "data").mkdir(exist_ok=True)
    for project in ("alpha", "beta"):
        store = FeatureStore(repo_path=str(root), fs_yaml_file=fs_yaml(root, project, None))
        store.apply(
            [
                Entity(
                    name=f"{project}_id",
                    join_keys=[f"{project}_id"],
                    value_type=ValueType.INT64,
                ),
                Permission(
                    name=f"{project}-readers",
                    types=[Project],
                    policy=RoleBasedPolicy(roles=[f"{project}-reader", "everyone"]),
                    actions=[AuthzedAction.DESCRIBE],
                ),
            ]
        )


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with running_issuer() as running:
        yield running


@contextmanager
def started(
    root: Path, issuer: Issuer, seed: Callable[[TestClient], object], **consumer: Any
) -> Iterator[TestClient]:
    """A server of project alpha's feature_store.yaml (Feast auth on), ``seed`` ingested."""
    populate_registry(root)
    auth = {"type": "oidc", "client_id": CLIENT_ID, "auth_discovery_url": issuer.discovery_url}
    yaml_file = fs_yaml(root, "alpha", auth, **consumer)
    config = load_config(root, yaml_file)
    assert isinstance(config.consumer.authorizer, FeastAuthorizerSettings)  # chosen by default
    settings = AppSettings.from_config(config, standalone=True, fs_yaml_file=yaml_file)
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["X-API-Key"] = ADMIN
        seed(test_client)
        del test_client.headers["X-API-Key"]
        yield test_client


def three_teams(client: TestClient) -> None:
    ingest(
        client,
        run_event("COMPLETE", job=("alpha", "train")),
        run_event("COMPLETE", job=("spark://team-a", "etl")),
        run_event("COMPLETE", job=("beta", "score")),
    )


@pytest.fixture
def client(tmp_path: Path, issuer: Issuer) -> Iterator[TestClient]:
    with started(tmp_path, issuer, three_teams) as test_client:
        yield test_client


def job_names(client: TestClient, token: str) -> list[str]:
    response = client.get(f"{API}/jobs", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return sorted(job["job_name"] for job in response.json()["jobs"])


def test_a_caller_sees_the_projects_feast_lets_it_describe(
    client: TestClient, issuer: Issuer
) -> None:
    assert job_names(client, issuer.token("ana", ["alpha-reader"])) == ["etl", "train"]
    assert job_names(client, issuer.token("bo", ["beta-reader"])) == ["score"]
    assert job_names(client, issuer.token("cy", ["everyone"])) == ["etl", "score", "train"]
    assert job_names(client, issuer.token("di", ["unrelated"])) == []
    admin = client.get(f"{API}/jobs", headers={"X-API-Key": ADMIN})
    assert admin.json()["total"] == 3


def test_no_token_or_a_bad_one_gets_401_and_no_data(client: TestClient, issuer: Issuer) -> None:
    missing = client.get(f"{API}/jobs")
    assert missing.status_code == 401
    assert "Authorization: Bearer" in missing.json()["error"]["message"]
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    forged = issuer.token("ana", ["alpha-reader"], key=new_key())
    expired = issuer.token("ana", ["alpha-reader"], expires_in=-120)
    for token in (forged, expired, "not-a-jwt"):
        response = client.get(f"{API}/jobs", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, response.text
        assert response.json()["error"]["code"] == "invalid_token"
        assert "train" not in response.text


@pytest.mark.parametrize("anonymous", [False, True])
def test_a_wrong_key_on_a_read_endpoint_is_told_it_is_not_valid_and_what_reads_take(
    tmp_path: Path, issuer: Issuer, anonymous: bool
) -> None:
    """As under ``api_keys``: a key that is not the api_key is ``invalid_api_key``.

    It was ``unauthorized`` ("a Feast access token is required"), as if no key had been
    sent. The answer is the same for every wrong key (it tells nothing of the api_key), and
    says what reads take instead.
    """
    feast: dict[str, Any] = {"type": "feast"}
    if anonymous:
        feast["anonymous_projects"] = ["beta"]
    with started(tmp_path, issuer, three_teams, authorizer=feast) as client:
        answers = []
        for key in ("not-the-api-key", ADMIN[:-1], ADMIN + "x"):
            response = client.get(f"{API}/jobs", headers={"X-API-Key": key})
            assert response.status_code == 401, response.text
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
            assert "score" not in response.text
            answers.append(response.json())
    assert answers[1:] == answers[:-1]  # one answer for every wrong key
    error = answers[0]["error"]
    assert error["code"] == "invalid_api_key", error
    message = error["message"]
    assert message.startswith("the API key (X-API-Key) is not valid; "), message
    assert "a Feast access token, sent as Authorization: Bearer <token>" in message, message
    assert ("no credential" in message) is anonymous, message
    assert ADMIN not in message


def test_a_wrong_key_beside_a_valid_token_is_refused_not_ignored(
    client: TestClient, issuer: Issuer
) -> None:
    # Fails closed: a wrong credential is never passed over for another. The read was
    # served with the token's projects, the key ignored (a write with both was refused).
    token = issuer.token("ana", ["alpha-reader"])
    both = {"Authorization": f"Bearer {token}", "X-API-Key": "not-the-api-key"}
    response = client.get(f"{API}/jobs", headers=both)
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert "etl" not in response.text
    assert job_names(client, token) == ["etl", "train"]  # the token alone still reads


def test_a_token_is_checked_once_then_remembered(client: TestClient, issuer: Issuer) -> None:
    token = issuer.token("ana", ["alpha-reader"])
    assert job_names(client, token) == ["etl", "train"]
    asked = len(issuer.requests)
    for _ in range(3):
        assert job_names(client, token) == ["etl", "train"]
    assert len(issuer.requests) == asked  # neither the keys nor the discovery again


def test_registry_and_graph_endpoints_follow_the_same_scope(
    client: TestClient, issuer: Issuer
) -> None:
    bearer = {"Authorization": f"Bearer {issuer.token('bo', ['beta-reader'])}"}
    graph = client.get(f"{API}/graph", headers=bearer).json()
    assert {n["namespace"] for n in graph["nodes"]} == {"beta"}
    refused = client.get("/api/v1/lineage/registry", params={"project": "alpha"}, headers=bearer)
    assert refused.status_code == 403
    allowed = client.get("/api/v1/lineage/registry", params={"project": "beta"}, headers=bearer)
    assert allowed.status_code == 200, allowed.text


def test_feast_authorizer_needs_feast_auth(tmp_path: Path) -> None:
    yaml_file = fs_yaml(tmp_path, "alpha", None, authorizer={"type": "feast"})
    with pytest.raises(ConfigError, match=r"openlineage.consumer.authorizer: is feast"):
        load_config(tmp_path, yaml_file)


def test_an_explicit_authorizer_wins_over_feast_auth_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    auth = {"type": "oidc", "client_id": CLIENT_ID, "auth_discovery_url": "http://127.0.0.1:9"}
    yaml_file = fs_yaml(tmp_path, "alpha", auth, authorizer={"type": "open"})
    config = load_config(tmp_path, yaml_file)
    assert config.consumer.authorizer.type == "open"
    settings = AppSettings.from_config(config, standalone=True, fs_yaml_file=yaml_file)
    with caplog.at_level("WARNING"), TestClient(create_app(settings)) as client:
        assert client.get(f"{API}/jobs").status_code == 200  # open, as configured
    assert "Feast auth on (oidc), but openlineage.consumer.authorizer is open" in caplog.text


WRITES = [
    ("POST", "/api/v1/lineage", run_event("COMPLETE", job=("alpha", "sneaky"))),
    ("POST", "/api/v1/lineage/batch", [run_event("COMPLETE", job=("alpha", "sneaky"))]),
    ("POST", f"{API}/retention/prune", None),
    ("DELETE", f"{API}/reset", None),
]


def test_a_valid_token_sent_to_a_write_endpoint_is_403_not_invalid(
    client: TestClient, issuer: Issuer
) -> None:
    """A Feast token may read; writing takes the api_key, and the answer says so (not 401)."""
    valid = issuer.token("cy", ["everyone"])
    forged = issuer.token("cy", ["everyone"], key=new_key())
    for method, path, body in WRITES:
        response = client.request(
            method, path, json=body, headers={"Authorization": f"Bearer {valid}"}
        )
        assert response.status_code == 403, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == "feast_token_cannot_write", error
        assert "Feast access token grants reads only" in error["message"], error
        assert "api_key" in error["message"], error
        # A token that is not valid is still a wrong credential: 401.
        for token in (forged, "not-a-jwt"):
            wrong = client.request(
                method, path, json=body, headers={"Authorization": f"Bearer {token}"}
            )
            assert wrong.status_code == 401, (path, wrong.text)
            assert wrong.json()["error"]["code"] == "invalid_api_key"
    jobs = client.get(f"{API}/jobs", headers={"X-API-Key": ADMIN}).json()["jobs"]
    assert sorted(job["job_name"] for job in jobs) == ["etl", "score", "train"]


def test_anonymous_projects_are_read_without_a_token_and_by_every_token(
    tmp_path: Path, issuer: Issuer
) -> None:
    """As under ``api_keys``: no token sees the anonymous projects; a token, its own and them."""
    feast = {"type": "feast", "anonymous_projects": ["beta"]}
    with started(tmp_path, issuer, three_teams, authorizer=feast) as client:
        anonymous = client.get(f"{API}/jobs")
        assert anonymous.status_code == 200, anonymous.text
        assert [job["job_name"] for job in anonymous.json()["jobs"]] == ["score"]
        assert client.get(f"{API}/namespaces").json()["namespaces"] == ["beta"]
        assert "train" not in client.get(f"{API}/graph").text
        assert job_names(client, issuer.token("di", ["unrelated"])) == ["score"]
        assert job_names(client, issuer.token("bo", ["beta-reader"])) == ["score"]
        assert job_names(client, issuer.token("ana", ["alpha-reader"])) == ["etl", "score", "train"]
        registry = "/api/v1/lineage/registry"
        assert client.get(registry, params={"project": "beta"}).status_code == 200
        assert client.get(registry, params={"project": "alpha"}).status_code == 403
        # A wrong credential is refused, not taken for none (fails closed).
        forged = issuer.token("ana", ["alpha-reader"], key=new_key())
        for headers in (
            {"Authorization": f"Bearer {forged}"},
            {"Authorization": "Bearer not-a-jwt"},
            {"X-API-Key": "not-the-api-key"},
        ):
            refused = client.get(f"{API}/jobs", headers=headers)
            assert refused.status_code == 401, (headers, refused.text)
            assert "score" not in refused.text
        assert client.get("/metrics").status_code == 401  # store-wide: never anonymous
        security = client.get("/openapi.json").json()["paths"][f"{API}/jobs"]["get"]["security"]
        assert {} in security  # a credential is optional


def test_no_read_endpoint_shows_an_anonymous_caller_more_than_the_anonymous_projects(
    tmp_path: Path, issuer: Issuer
) -> None:
    feast = {"type": "feast", "anonymous_projects": ["ml_team"]}
    with started(tmp_path, issuer, hidden.seed, authorizer=feast) as client:
        assert client.get(f"{API}/namespaces").json()["namespaces"] == ["ml_team"]
        assert hidden.read_every_endpoint(client) >= 30
        client.headers["Authorization"] = f"Bearer {issuer.token('di', ['unrelated'])}"
        assert client.get(f"{API}/namespaces").json()["namespaces"] == ["ml_team"]
        assert hidden.read_every_endpoint(client) >= 30
