"""Worker processes: the supervisor, and connection balancing between workers.

The process tests run the real ``feast-lineage serve_lineage --workers 2``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from feast_lineage.supervisor import WORKER_NAME, BalanceConnections, WorkerLoad
from tests.factories import dataset, run_event
from tests.postgres import free_port
from tests.server_process import (
    ServerProcess,
    alive,
    children,
    cpu_seconds,
    lineage_server,
    wait_for,
    write_repo,
)

WORKERS = ["--workers", "2"]


# --- balancing, in one process ---------------------------------------------------


def test_worker_load_counts_requests_in_flight_against_the_least_busy_other() -> None:
    load = WorkerLoad(3)
    load.become(1)
    assert load.excess() == 0
    load.enter()
    load.enter()
    assert load.excess() == 2
    load.leave()
    assert load.excess() == 1
    single = WorkerLoad(1)
    single.enter()
    assert single.excess() == 0  # nobody to hand connections to


def test_a_busy_worker_closes_keep_alive_connections_and_an_even_one_keeps_them() -> None:
    app = FastAPI()

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"ok": "yes"}

    load = WorkerLoad(2)
    load.become(0)
    client = TestClient(BalanceConnections(app, load))
    even = client.get("/ping")
    assert even.status_code == 200
    assert even.json() == {"ok": "yes"}
    assert "close" not in even.headers.get("connection", "")
    load.enter()  # another request in flight here, none on the other worker
    busy = client.get("/ping")
    assert busy.status_code == 200
    assert busy.headers["connection"] == "close"
    load.leave()
    assert "close" not in client.get("/ping").headers.get("connection", "")


# --- the real server with two workers ----------------------------------------


def _ingest(server: ServerProcess, clients: int, per_client: int) -> list[str]:
    run_ids: list[str] = []
    failures: list[str] = []
    lock = threading.Lock()

    def produce(number: int) -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for i in range(per_client):
                event = run_event(
                    "COMPLETE",
                    job=("workers", f"client-{number}"),
                    outputs=[dataset("s3://lake", f"out/{number}/{i}")],
                )
                response = client.post("/api/v1/lineage", json=event)
                with lock:
                    if response.status_code == 201:
                        run_ids.append(event["run"]["runId"])
                    else:
                        failures.append(response.text)

    threads = [threading.Thread(target=produce, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    return run_ids


def _stored_runs(server: ServerProcess) -> int:
    body = httpx.get(server.url + "/api/v1/lineage/openlineage/runs", timeout=30).json()
    return int(body["total"])


def test_two_workers_share_the_load_and_store_every_event_once(
    tmp_path: Path, store_url: str
) -> None:
    # SQLite: writers take turns on a lock file; PostgreSQL: an advisory lock.
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": store_url})
    with lineage_server(repo, extra_args=WORKERS) as server:
        workers = children(server.process.pid)
        assert len(workers) == 2
        assert children(server.process.pid, WORKER_NAME) == workers  # named for ps and top
        before = {pid: cpu_seconds(pid) for pid in workers}
        # Two keep-alive clients: the kernel may hand both to one worker,
        # and balancing must move one of them over.
        run_ids = _ingest(server, clients=2, per_client=300)
        used = {pid: cpu_seconds(pid) - before[pid] for pid in workers}
        assert len(run_ids) == 600
        assert _stored_runs(server) == 600
        assert min(used.values()) > 0.1 * max(used.values()), used


def test_a_worker_that_dies_is_replaced(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    with lineage_server(repo, extra_args=WORKERS) as server:
        first = children(server.process.pid)
        os.kill(first[0], signal.SIGKILL)
        assert wait_for(lambda: first[0] not in children(server.process.pid))
        assert wait_for(lambda: len(children(server.process.pid)) == 2)
        replaced = children(server.process.pid)
        assert first[1] in replaced
        assert first[0] not in replaced
        assert wait_for(lambda: len(_ingest(server, clients=2, per_client=20)) == 40)
        assert _stored_runs(server) == 40
        assert "starting another" in server.log()


def test_sigterm_stops_every_worker_and_exits_cleanly(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    with lineage_server(repo, extra_args=WORKERS) as server:
        workers = children(server.process.pid)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
        assert wait_for(lambda: not any(alive(pid) for pid in workers))


def test_workers_exit_when_the_supervisor_is_killed(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    with lineage_server(repo, extra_args=WORKERS) as server:
        workers = children(server.process.pid)
        server.kill()  # SIGKILL: the supervisor cannot stop them itself
        assert wait_for(lambda: not any(alive(pid) for pid in workers))
        # The port is free again.
        with lineage_server(repo, port=int(server.url.rsplit(":", 1)[1])) as again:
            assert httpx.get(again.url + "/healthz", timeout=10).status_code == 200


def test_a_worker_failing_at_startup_stops_the_server_with_an_error(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        from feast_lineage.server import serve

        def broken():
            raise RuntimeError("this app cannot be built")

        serve(broken, host="127.0.0.1", port={free_port()}, workers=2)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode != 0
    assert "this app cannot be built" in result.stderr
    assert "a worker process failed to start" in result.stderr


def test_workers_must_be_at_least_one(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    result = subprocess.run(
        [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), "serve_lineage", "-w", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--workers" in result.stderr
    assert "0 is not in the range x>=1" in result.stderr.replace("1<=x<=64", "x>=1")
