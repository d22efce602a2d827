"""The README's main command, scripts/demo.sh, end to end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.postgres import free_port
from tests.ui.conftest import ROOT

READY = re.compile(r"The lineage UI is running: open (http://\S+)")
# The banner's suggestions: where to run them, then one command a line.
RUN_IN = re.compile(r"in another terminal, in (\S+) \(")
SUGGESTED = re.compile(r"^\s+(\.venv/bin/feast-lineage .*)$")


@pytest.mark.slow
def test_the_quickstart_sets_up_runs_and_serves_one_connected_graph(tmp_path: Path) -> None:
    demo_dir = tmp_path / "demo"
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "demo.sh")],
        cwd=ROOT,
        env={**os.environ, "PORT": str(free_port()), "DEMO_DIR": str(demo_dir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: the server goes with it
    )
    output: list[str] = []
    try:
        url = None
        deadline = time.monotonic() + 600
        assert process.stdout is not None
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            found = READY.search(line)
            if found:
                url = found.group(1).rstrip("/")
        assert url, "demo.sh printed no URL:\n" + "".join(output)
        while not output[-1].strip().endswith("Press Ctrl-C to stop."):
            line = process.stdout.readline()
            assert line, "demo.sh printed no end of its banner:\n" + "".join(output)
            output.append(line)
        banner = "".join(output)
        run_in = RUN_IN.search(banner)
        assert run_in, banner
        suggested = [m.group(1) for line in output if (m := SUGGESTED.match(line.rstrip()))]
        assert len(suggested) >= 2, banner

        page = httpx.get(url + "/", timeout=30)
        assert page.status_code == 200
        assert '<div id="root">' in page.text
        # One graph from the raw table, through Airflow, dbt and Feast, to the model.
        downstream = httpx.get(
            url + "/api/v1/lineage/openlineage/graph/node",
            params={
                "type": "dataset",
                "namespace": "postgres://warehouse:5432",
                "name": "raw.public.trips",
                "depth": 20,
                "direction": "downstream",
            },
            timeout=30,
        ).json()
        reached = {node["name"] for node in downstream["nodes"]}
        assert {
            "analytics.driver_hourly_stats",
            "data_source/driver_hourly_stats_source",
            "feature_view/driver_hourly_stats",
            "saved_dataset/driver_training_set",
            "train_driver_ranking",
            "models/driver_ranking",
        } <= reached
        runs = httpx.get(url + "/api/v1/lineage/openlineage/runs", timeout=30).json()
        assert {run["job_name"] for run in runs["runs"]} >= {
            "feast_materialize",
            "train_driver_ranking",
        }
        assert (demo_dir / "feature_store.yaml").exists()
        # The commands the banner suggests work where it says to run them.
        for command in suggested:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=run_in.group(1),
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, (command, done.stdout, done.stderr)
            assert "Traceback" not in done.stderr, (command, done.stderr)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
