"""Worker processes: ``serve_lineage --workers 2`` under gunicorn's arbiter.

Every test runs the real server; what they check is what users rely on:
the workers share the load (connection balancing) and store every event
once, a worker that dies is replaced, SIGTERM and SIGINT stop them all after
they commit what they hold, the workers end with a killed arbiter, and a
worker failing as it starts stops the server with an error instead of a
restart loop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.workers import WORKER_NAME
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
OPENED = "the Feast registry is open"


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


def _stored_run_ids(database: Path) -> Counter[str]:
    """Each stored event's run id, read from the SQLite file the server left."""
    assert database.exists()
    engine = create_store_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as conn:
            return Counter(conn.execute(select(t.events.c.run_id)).scalars())
    finally:
        engine.dispose()


class Stream(threading.Thread):
    """Posts events one by one until told to stop or the server goes away."""

    def __init__(self, url: str, number: int) -> None:
        super().__init__(name=f"stream-{number}", daemon=True)
        self.url = url
        self.number = number
        self.acked: list[str] = []
        self.unexpected: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            i = 0
            while not self.stop.is_set():
                event = run_event(
                    "COMPLETE",
                    job=("workers", f"stream-{self.number}"),
                    outputs=[dataset("s3://lake", f"stream/{self.number}/{i}")],
                )
                i += 1
                try:
                    response = client.post("/api/v1/lineage", json=event)
                except httpx.HTTPError:
                    return  # the server stopped: this one was not acknowledged
                if response.status_code == 201:
                    self.acked.append(event["run"]["runId"])
                else:
                    self.unexpected.append(f"{response.status_code} {response.text[:200]}")


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


def test_a_worker_that_dies_is_replaced_and_opens_the_registry_before_it_serves(
    tmp_path: Path,
) -> None:
    """Gunicorn's arbiter imports Feast once, before forking the workers; each worker, the
    replacement too, opens the Feast registry before it serves, once (not per request)."""
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    (repo / "data").mkdir()
    with lineage_server(repo, extra_args=WORKERS, log_level="info") as server:
        # A worker answers only once its registry is open.
        assert server.log().count(OPENED) >= 1
        assert wait_for(lambda: server.log().count(OPENED) == 2, timeout=300), server.log()
        log = server.log()
        preloaded = log.find("feast imported before forking the workers")
        assert 0 <= preloaded < log.find("Booting worker"), log
        first = children(server.process.pid)
        os.kill(first[0], signal.SIGKILL)
        assert wait_for(lambda: first[0] not in children(server.process.pid))
        assert wait_for(lambda: len(children(server.process.pid)) == 2)
        replaced = children(server.process.pid)
        assert first[1] in replaced
        assert first[0] not in replaced
        (new,) = set(replaced) - set(first)
        assert wait_for(lambda: len(_ingest(server, clients=2, per_client=20)) == 40)
        assert _stored_runs(server) == 40
        assert f"Booting worker with pid: {new}" in server.log()
        # The replacement opened its own (it may serve none of the requests above).
        assert wait_for(lambda: server.log().count(OPENED) == 3, timeout=300), server.log()
        response = httpx.get(server.url + "/api/v1/lineage/registry", timeout=30)
        assert response.status_code == 200, response.text
        assert server.log().count(OPENED) == 3  # once per worker, not per request


def test_one_process_opens_the_registry_before_it_serves(tmp_path: Path) -> None:
    """No request pays for loading Feast: server.py's single process (uvicorn) opens the
    registry as it starts (two workers: the test above)."""
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    (repo / "data").mkdir()
    with lineage_server(repo, extra_args=["--workers", "1"], log_level="info") as server:
        # It answers only once its registry is open.
        assert server.log().count(OPENED) == 1, server.log()
        response = httpx.get(server.url + "/api/v1/lineage/registry", timeout=30)
        assert response.status_code == 200, response.text
        assert server.log().count(OPENED) == 1  # once, not per request


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_every_worker_after_it_commits_what_it_holds(
    tmp_path: Path, stop: signal.Signals
) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    with lineage_server(repo, extra_args=WORKERS) as server:
        # Both workers serving (each opens the Feast registry first, which takes seconds).
        started = "Application startup complete"
        assert wait_for(lambda: server.log().count(started) == 2, timeout=300), server.log()
        workers = children(server.process.pid)
        streams = [Stream(server.url, n) for n in range(4)]
        for stream in streams:
            stream.start()
        assert wait_for(lambda: sum(len(s.acked) for s in streams) > 40)
        server.process.send_signal(stop)  # mid-stream
        assert server.process.wait(timeout=60) == 0
        assert wait_for(lambda: not any(alive(pid) for pid in workers))
        for stream in streams:
            stream.stop.set()
            stream.join(timeout=30)
        # Each worker shut its app down (the writer committed what it held).
        assert server.log().count("Application shutdown complete") == 2
    acked = [run_id for s in streams for run_id in s.acked]
    assert all(not s.unexpected for s in streams), [s.unexpected for s in streams]
    stored = _stored_run_ids(repo / "lineage.db")
    assert not [run_id for run_id in acked if stored[run_id] != 1]


def test_workers_exit_when_the_arbiter_is_killed(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": "sqlite:///lineage.db"})
    with lineage_server(repo, extra_args=WORKERS) as server:
        workers = children(server.process.pid)
        server.kill()  # SIGKILL: the arbiter cannot stop them itself
        assert wait_for(lambda: not any(alive(pid) for pid in workers))
    # No process listens on the port any more: no worker kept the listening
    # socket. (Binding it to see was flaky: the other test worker's outgoing
    # connections may take the freed port as their own local port.)
    port = int(server.url.rsplit(":", 1)[1])
    assert wait_for(lambda: port not in _listening_ports())


def _listening_ports() -> set[int]:
    """The TCP ports some socket on this machine listens on (Linux's /proc/net tables)."""
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                local, state = row.split()[1], row.split()[3]
                if state == "0A":  # TCP_LISTEN
                    ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


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
    # No restart loop: each of the two workers was started once at most.
    assert result.stderr.count("Booting worker") <= 2


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
