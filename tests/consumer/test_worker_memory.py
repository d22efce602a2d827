"""A real worker's peak memory stays within the stated formula (docs/deployment.md, "Memory").

The gate's scale of bench/memory.py: a budget of 4 MiB of bodies, 4 clients
sending 2 MiB batches of small events (the worst case per byte) at once to
one ``serve_lineage --workers 1`` process. Its peak RSS (``VmHWM``, reset
after a warm-up) must stay within ``BASELINE_BYTES + EXPANSION ×
max(body_budget_bytes, max_request_bytes)``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from feast_lineage.consumer.intake.memory import peak_bytes
from tests.server_process import ServerProcess, lineage_server, write_repo

MiB = 1024 * 1024
MAX_REQUEST = 2 * MiB
BUDGET = 4 * MiB
PRODUCER = "https://github.com/feast-lineage/tests/worker-memory"


def status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {key} for process {pid}")


def small_events(salt: str, count: int) -> bytes:
    def schema(prefix: str, i: int) -> dict[str, Any]:
        return {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
            "fields": [{"name": f"{prefix}_{j}", "type": "BIGINT"} for j in range(8 + i % 5)],
        }

    return orjson.dumps(
        [
            {
                "eventType": "COMPLETE",
                "eventTime": datetime.now(tz=UTC).isoformat(),
                "run": {"runId": str(uuid.uuid4())},
                "job": {"namespace": "spark://mem", "name": f"job.{salt}.{i % 50}"},
                "inputs": [
                    {
                        "namespace": "s3://m",
                        "name": f"in/{salt}/{i}",
                        "facets": {"schema": schema("c", i)},
                    }
                ],
                "outputs": [
                    {
                        "namespace": "s3://m",
                        "name": f"out/{salt}/{i}",
                        "facets": {"schema": schema("d", i)},
                    }
                ],
                "producer": PRODUCER,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
            }
            for i in range(count)
        ]
    )


def post_until_taken(url: str, body: bytes) -> int:
    with httpx.Client(timeout=120) as client:
        for _ in range(240):
            answer = client.post(
                url + "/api/v1/lineage/batch",
                content=body,
                headers={"Content-Type": "application/json"},
            )
            if answer.status_code != 503:
                return answer.status_code
            time.sleep(0.25)  # the OpenLineage client retries a 503 the same way
    return 503


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    consumer = {
        "connection_string": "sqlite:///data/lineage.db",
        "max_request_bytes": MAX_REQUEST,
        "body_budget_bytes": BUDGET,
    }
    repo = write_repo(tmp_path_factory.mktemp("memory"), consumer=consumer)
    with lineage_server(repo, extra_args=["--workers", "1"]) as process:
        yield process


def test_peak_memory_stays_within_the_formula(worker: ServerProcess) -> None:
    pid = worker.process.pid
    for i in range(3):  # warm-up: every path of ingest once, caches in use
        assert post_until_taken(worker.url, small_events(f"warm{i}", 50)) == 204
    time.sleep(0.5)
    bodies = [small_events(f"spike{i}", 1400) for i in range(4)]
    assert all(1.5 * MiB < len(body) <= MAX_REQUEST for body in bodies)
    idle = status_mb(pid, "VmRSS")
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM starts again from here
    statuses: list[int] = []
    threads = [
        threading.Thread(target=lambda b=body: statuses.append(post_until_taken(worker.url, b)))
        for body in bodies
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [204] * 4
    peak = status_mb(pid, "VmHWM")
    allowed = peak_bytes(max(BUDGET, MAX_REQUEST)) / MiB
    assert peak <= allowed, f"peak {peak:.1f} MiB (idle {idle:.1f}), formula {allowed:.1f} MiB"
