"""Metrics across worker processes: the real ``serve_lineage --workers 2``.

Each worker writes its figures to files of its own in PROMETHEUS_MULTIPROC_DIR;
``/metrics``, answered by either worker, adds them all up, including those of
a worker that has died (its counters stay; its gauges go).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from feast_lineage import metrics_processes
from feast_lineage.workers import WORKER_NAME
from tests.consumer.routes.test_problems import feast_chain
from tests.factories import T0, run_event
from tests.server_process import (
    ServerProcess,
    alive,
    children,
    lineage_server,
    wait_for,
    write_repo,
)

INGESTED = "feast_lineage_events_ingested_total"
HEALTH_GAUGES = {
    f"feast_lineage_{name}"
    for name in (
        "feature_view_materialization_lag_seconds",
        "feature_view_source_lag_seconds",
        "feature_service_at_risk",
        "failed_jobs",
        "stale_datasets",
    )
}


def scraped_total(server: ServerProcess, name: str) -> float:
    # A new connection each time, so either worker may answer.
    response = httpx.get(server.url + "/metrics", headers={"Connection": "close"}, timeout=10)
    assert response.status_code == 200, response.text
    return sum(
        sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == name and not sample.labels
    )


def ingested_by(metrics_dir: Path, pid: int) -> float:
    """The events one worker stored, from its own file alone."""
    files = [str(path) for path in metrics_dir.glob(f"counter_{pid}.db")]
    if not files:
        return 0.0
    return sum(
        sample.value
        for metric in MultiProcessCollector.merge(files, accumulate=False)  # type: ignore[no-untyped-call]
        for sample in metric.samples
        if sample.name == INGESTED
    )


def send(server: ServerProcess, index: int) -> None:
    event = run_event("COMPLETE", job=("airflow://prod", f"job-{index}"))
    # Connection: close, so that the next event may reach the other worker.
    response = httpx.post(
        server.url + "/api/v1/lineage", json=event, headers={"Connection": "close"}, timeout=10
    )
    assert response.status_code == 201, response.text


def health_gauges_once_with_their_values(server: ServerProcess) -> None:
    """The health gauges, computed from the store at each scrape, appear once whoever answers."""
    response = httpx.post(server.url + "/api/v1/lineage", json=feast_chain(), timeout=10)
    assert response.status_code == 200, response.text
    materialized_to = T0.timestamp() + 1800
    view, service = ("ml_team", "driver_fv"), ("ml_team", "driver_fs")
    for _ in range(4):
        before = time.time()
        text = httpx.get(server.url + "/metrics", headers={"Connection": "close"}).text
        after = time.time()
        samples = [
            (s.name, tuple(s.labels[k] for k in ("namespace", "name") if k in s.labels), s.value)
            for family in text_string_to_metric_families(text)
            for s in family.samples
            if s.name in HEALTH_GAUGES
        ]
        names = [(name, labels) for name, labels, _ in samples]
        assert len(names) == len(set(names)), samples  # each series once
        values = {(name, labels): value for name, labels, value in samples}
        lag = values[("feast_lineage_feature_view_materialization_lag_seconds", view)]
        assert before - materialized_to - 1 <= lag <= after - materialized_to + 1
        assert values[("feast_lineage_feature_service_at_risk", service)] == 1
        assert values[("feast_lineage_failed_jobs", ("airflow",))] == 1
        assert ("feast_lineage_feature_view_source_lag_seconds", view) in values


def test_workers_add_up_their_figures_and_an_exited_workers_counters_stay(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    # A file of an earlier run (unreadable): it must be cleared at start, or
    # every scrape would fail on it.
    (metrics_dir / "counter_1.db").write_bytes(b"left over from an earlier run")
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///data/l.db"})
    env = {metrics_processes.MULTIPROC_ENV: str(metrics_dir)}
    with lineage_server(repo, env=env, extra_args=["--workers", "2"]) as server:
        assert wait_for(lambda: len(children(server.process.pid, WORKER_NAME)) == 2)
        workers = children(server.process.pid, WORKER_NAME)
        assert not (metrics_dir / "counter_1.db").exists()

        # Events until both workers have stored some (bounded).
        sent = 0
        while sent < 300 and not all(ingested_by(metrics_dir, pid) > 0 for pid in workers):
            send(server, sent)
            sent += 1
        assert all(ingested_by(metrics_dir, pid) > 0 for pid in workers), "one worker took all"
        for _ in range(4):  # whichever worker answers, the figure is the whole server's
            assert scraped_total(server, INGESTED) == sent

        # A worker dies; the arbiter starts another.
        victim = workers[0]
        assert list(metrics_dir.glob(f"gauge_livesum_{victim}.db"))  # its writer queue gauge
        os.kill(victim, signal.SIGKILL)
        assert wait_for(lambda: not alive(victim))
        assert wait_for(
            lambda: (
                len(children(server.process.pid, WORKER_NAME)) == 2
                and victim not in children(server.process.pid, WORKER_NAME)
            )
        )
        # Its gauges are gone (live workers only); its counters stay in the totals.
        assert wait_for(lambda: not list(metrics_dir.glob(f"gauge_live*_{victim}.db")))
        assert (metrics_dir / f"counter_{victim}.db").exists()
        for index in range(sent, sent + 5):
            send(server, index)
        assert scraped_total(server, INGESTED) == sent + 5
        assert scraped_total(server, "feast_lineage_writer_queue_depth") == 0
        health_gauges_once_with_their_values(server)
    # A directory that was given stays (a last scrape may still read it).
    assert metrics_dir.is_dir()


def test_prepare_makes_a_directory_and_finish_removes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(metrics_processes.MULTIPROC_ENV, raising=False)
    made = metrics_processes.prepare()
    try:
        assert made.owned
        assert made.path.is_dir()
        assert os.environ[metrics_processes.MULTIPROC_ENV] == str(made.path)
    finally:
        metrics_processes.finish(made)
        # prepare() also chose prometheus-client's multiprocess values; restore
        # the in-process ones for the rest of this test process.
        from prometheus_client import values

        values.ValueClass = values.get_value_class()  # type: ignore[attr-defined]
    assert not made.path.exists()
    assert metrics_processes.MULTIPROC_ENV not in os.environ
