"""End to end with real processes: `feast-lineage apply` and `materialize` report to a
real `feast-lineage serve_lineage` over openlineage-python's http transport."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.producer.feast_repo import write_repo
from tests.producer.olschema import problems
from tests.server_process import lineage_server
from tests.server_process import write_repo as write_server_repo

KEY = "e2e-key"  # pragma: allowlist secret


def feast_lineage(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "feast_lineage.cli", "-c", str(root), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )


@pytest.mark.slow
def test_apply_and_materialize_in_real_processes(tmp_path: Path) -> None:
    server_root = write_server_repo(tmp_path / "server", consumer={"api_key": KEY})
    with lineage_server(server_root) as server:
        root, _ = write_repo(
            tmp_path / "repo",
            openlineage={
                "enabled": True,
                "transport_type": "http",
                "transport_url": server.url,
                "api_key": KEY,
            },
        )
        applied = feast_lineage(root, "apply")
        assert applied.returncode == 0, applied.stderr
        assert "Created feature service driver_activity" in applied.stdout
        materialized = feast_lineage(root, "materialize", "2026-01-08T00:00:00", "2026-01-11")
        assert materialized.returncode == 0, materialized.stderr

        with httpx.Client(base_url=server.url, headers={"X-API-Key": KEY}) as api:
            jobs = api.get(
                "/api/v1/lineage/openlineage/jobs", params={"namespace": "demo", "limit": 100}
            ).json()
            names = {job["job_name"] for job in jobs["jobs"]}
            assert {
                "feast_apply_entities",
                "feast_apply_feature_view_driver_hourly_stats",
                "feast_apply_odfv_expected_trips",
                "feast_apply_feature_service_driver_activity",
                "feast_materialize",
                "feast_materialize_feature_view_driver_hourly_stats",
            } <= names
            runs = api.get(
                "/api/v1/lineage/openlineage/runs",
                params={"job_namespace": "demo", "job_name": "feast_materialize"},
            ).json()
            assert [run["state"] for run in runs["runs"]] == ["COMPLETE"]
            events = api.get(
                "/api/v1/lineage/openlineage/events", params={"namespace": "demo", "limit": 100}
            ).json()
            assert events["total"] == 8 + 2 + 2 * 3
            for item in events["events"]:
                assert problems(item["event"], server.url) == []


@pytest.mark.slow
def test_migrations_log_only_what_they_change_and_obey_the_level(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(
        tmp_path,
        openlineage={
            "enabled": True,
            "transport_type": "file",
            "additional_config": {"log_file_path": str(events)},
            "consumer": {"enabled": True},  # the store is created on the first event
        },
    )
    quiet = feast_lineage(root, "--log-level", "error", "apply")
    assert quiet.returncode == 0, quiet.stderr
    assert "alembic" not in quiet.stderr  # the store was created, silently at this level
    assert "Created feature service driver_activity" in quiet.stdout

    told = feast_lineage(root, "--log-level", "info", "lineage-sync")
    assert told.returncode == 0, told.stderr
    assert "alembic" not in told.stderr  # the schema is at head: nothing to say
