"""The container image: the real openlineage-python client sends to it, the graph reads back.

The image is built by ``scripts/image.sh build`` (the gate builds it before
the tests); FEAST_LINEAGE_IMAGE names another. The container runs on the
host's network (the only kind this machine allows) on a free port of
loopback, configured by a mounted feature_store.yaml and FEAST_OPENLINEAGE_*
variables, as in production.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import schema_dataset
from openlineage.client.transport.http import (
    ApiKeyTokenProvider,
    HttpCompression,
    HttpConfig,
    HttpTransport,
)
from prometheus_client.parser import text_string_to_metric_families

from tests.postgres import free_port

IMAGE = os.environ.get("FEAST_LINEAGE_IMAGE", "localhost/feast-lineage:dev")
KEY = "container-smoke-key-7d21"  # pragma: allowlist secret
PRODUCER = "https://github.com/feast-lineage/tests/container"
READS = "/api/v1/lineage/openlineage"
# This machine allows no cgroup v2 controllers and no raised limits.
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager=cgroupfs"]
LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"]
MAX_IMAGE_BYTES = 1_000_000_000


def podman(
    *args: str, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PODMAN, *args], capture_output=True, text=True, check=check, timeout=timeout
    )


@pytest.fixture(scope="module")
def image() -> dict[str, Any]:
    if shutil.which("podman") is None:
        pytest.fail("podman is missing: run ./scripts/system-deps.sh (as root)")
    found = podman("image", "inspect", IMAGE, check=False)
    if found.returncode != 0:
        pytest.fail(f"no image {IMAGE}: build it with ./scripts/image.sh build")
    inspected: list[dict[str, Any]] = json.loads(found.stdout)
    return inspected[0]


@dataclass
class Container:
    name: str
    url: str

    def logs(self) -> str:
        result = podman("logs", self.name, check=False)
        return result.stdout + result.stderr


@pytest.fixture(scope="module")
def container(
    image: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Container]:
    repo = tmp_path_factory.mktemp("repo")
    config = {
        "project": "smoke",
        "registry": "/var/lib/feast-lineage/registry.db",
        "provider": "local",
        "entity_key_serialization_version": 3,
        "openlineage": {
            "consumer": {
                "enabled": True,
                "connection_string": "sqlite:////var/lib/feast-lineage/smoke.db",
                "retention_days": 90,
            }
        },
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))
    port = free_port()
    name = f"feast-lineage-smoke-{uuid.uuid4().hex[:8]}"
    podman(
        "run",
        "--detach",
        "--name",
        name,
        "--network=host",
        *LIMITS,
        "--volume",
        f"{repo / 'feature_store.yaml'}:/feature_repo/feature_store.yaml:ro",
        "--env",
        "FEAST_LINEAGE_HOST=127.0.0.1",
        "--env",
        f"FEAST_LINEAGE_PORT={port}",
        "--env",
        f"FEAST_OPENLINEAGE_CONSUMER_API_KEY={KEY}",
        "--env",
        "FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS=30",
        IMAGE,
    )
    running = Container(name, f"http://127.0.0.1:{port}")
    try:
        wait_healthy(running)
        yield running
    finally:
        podman("rm", "--force", "--time", "5", name, check=False)


def wait_healthy(container: Container, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = podman("inspect", container.name, "--format", "{{.State.Status}}", check=False)
        if state.stdout.strip() in ("exited", "stopped"):
            raise AssertionError(f"the container exited:\n{container.logs()}")
        try:
            if httpx.get(container.url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"the container did not become ready:\n{container.logs()}")


def ol_client(container: Container) -> OpenLineageClient:
    config = HttpConfig(
        url=container.url,
        endpoint="api/v1/lineage",
        auth=ApiKeyTokenProvider({"apiKey": KEY}),
        compression=HttpCompression.GZIP,
        timeout=10,
    )
    return OpenLineageClient(transport=HttpTransport(config))


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read(container: Container, path: str, **params: Any) -> Any:
    response = httpx.get(container.url + READS + path, params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


# --- the image ---------------------------------------------------------------------


def test_the_image_is_small_enough_and_runs_as_a_user_with_a_health_check(
    image: dict[str, Any],
) -> None:
    assert image["Size"] <= MAX_IMAGE_BYTES, f"the image is {image['Size'] / 1e6:.0f} MB"
    config = image["Config"]
    assert config["User"] == "10001:10001"
    assert config["Entrypoint"] == ["feast-lineage"]
    assert config["Cmd"] == ["serve_lineage"]
    # Kept by the Docker format (OCI drops it), and needing no curl.
    assert "docker" in image["ManifestType"]
    test = image["Healthcheck"]["Test"]
    assert test[:2] == ["CMD", "python3"]
    assert "/healthz" in test[-1]


def test_the_server_runs_as_the_image_user_with_the_web_ui_and_a_passing_health_check(
    container: Container,
) -> None:
    ids = podman("exec", container.name, "id", "-u").stdout.strip()
    assert ids == "10001"
    # The web UI that bootstrap.sh built is in the image (`feast-lineage ui` serves it).
    built = podman(
        "exec",
        container.name,
        "python3",
        "-c",
        "from feast_lineage.consumer.routes.ui import web_ui_built; print(web_ui_built())",
    )
    assert built.stdout.strip() == "True"
    # And the health check of the image passes against the running server.
    check = podman("healthcheck", "run", container.name, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


# --- events in, graph out ------------------------------------------------------------


def test_events_of_the_python_client_come_back_as_a_graph(container: Container) -> None:
    client = ol_client(container)
    start = datetime.now(tz=UTC).replace(microsecond=0)
    raw = InputDataset(
        namespace="postgres://db:5432",
        name="shop.public.orders",
        facets={
            "schema": schema_dataset.SchemaDatasetFacet(
                fields=[schema_dataset.SchemaDatasetFacetFields(name="amount", type="NUMERIC")]
            )
        },
    )
    daily = OutputDataset(namespace="s3://lake", name="marts/daily_revenue")
    job = Job(namespace="airflow://prod", name="revenue.daily")
    run_id = str(uuid.uuid4())
    for state, at in ((RunState.START, start), (RunState.COMPLETE, start + timedelta(minutes=2))):
        client.emit(
            RunEvent(
                eventType=state,
                eventTime=iso(at),
                producer=PRODUCER,
                run=Run(runId=run_id),
                job=job,
                inputs=[raw],
                outputs=[daily],
            )
        )
    report = Job(namespace="airflow://prod", name="revenue.report")
    client.emit(
        RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=iso(start + timedelta(minutes=5)),
            producer=PRODUCER,
            run=Run(runId=str(uuid.uuid4())),
            job=report,
            inputs=[InputDataset(namespace="s3://lake", name="marts/daily_revenue")],
            outputs=[OutputDataset(namespace="s3://lake", name="reports/revenue")],
        )
    )
    client.emit(
        DatasetEvent(
            eventTime=iso(start),
            producer=PRODUCER,
            dataset=StaticDataset(namespace="s3://lake", name="reference/calendar"),
        )
    )

    # The raw table, two jobs and three datasets downstream, in order.
    sub = read(
        container,
        "/graph/node",
        type="dataset",
        namespace="postgres://db:5432",
        name="shop.public.orders",
        direction="downstream",
        depth=10,
    )
    names = {node["name"] for node in sub["nodes"]}
    assert names == {
        "shop.public.orders",
        "revenue.daily",
        "marts/daily_revenue",
        "revenue.report",
        "reports/revenue",
    }, sub
    edges = {(edge["source"], edge["target"]) for edge in sub["edges"]}
    ids = {node["name"]: node["id"] for node in sub["nodes"]}
    assert (ids["shop.public.orders"], ids["revenue.daily"]) in edges
    assert (ids["revenue.daily"], ids["marts/daily_revenue"]) in edges
    assert (ids["marts/daily_revenue"], ids["revenue.report"]) in edges
    orders = next(node for node in sub["nodes"] if node["name"] == "shop.public.orders")
    assert [field["name"] for field in orders["schema_fields"]] == ["amount"]
    datasets = read(container, "/datasets", namespace="s3://lake")
    assert {d["dataset_name"] for d in datasets["datasets"]} >= {
        "reference/calendar",
        "reports/revenue",
    }
    run = read(container, f"/runs/{run_id}")
    assert run["state"] == "COMPLETE"

    # The figures saw the four events (and no refusal).
    metrics = httpx.get(container.url + "/metrics", timeout=10)
    assert metrics.status_code == 200
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(metrics.text)
        for sample in family.samples
        if not sample.labels
    }
    assert samples["feast_lineage_events_ingested_total"] == 4


def test_the_environment_wins_over_the_mounted_file(container: Container) -> None:
    # retention_days is 90 in the mounted file and 30 in the environment.
    assert read(container, "/retention")["config"]["retention_days"] == 30
    # The key of the environment guards ingest.
    response = httpx.post(
        container.url + "/api/v1/lineage/batch", json=[], headers={"X-API-Key": "wrong"}, timeout=10
    )
    assert response.status_code == 401


def test_sigterm_stops_the_container_cleanly(image: dict[str, Any], tmp_path: Path) -> None:
    port = free_port()
    name = f"feast-lineage-stop-{uuid.uuid4().hex[:8]}"
    podman(
        "run", "--detach", "--name", name, "--network=host", *LIMITS,
        "--env", "FEAST_LINEAGE_HOST=127.0.0.1", "--env", f"FEAST_LINEAGE_PORT={port}", IMAGE,
    )  # fmt: skip
    try:
        wait_healthy(Container(name, f"http://127.0.0.1:{port}"))
        podman("stop", "--time", "20", name)
        code = podman("inspect", name, "--format", "{{.State.ExitCode}}").stdout.strip()
        assert code == "0", Container(name, "").logs()
    finally:
        podman("rm", "--force", name, check=False)
