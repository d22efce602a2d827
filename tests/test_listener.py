"""The port answers from the start: not ready while the schema is upgraded, then the app.

Real server processes (``serve_lineage``, ``--workers 2`` and ``ui``) on real
SQLite files. A test hook holds the migrations (they wait for a file to exist,
as a long backfill would keep them running) while the tests poll the port
without pause, each request on a new connection and on a kept-alive one:
``/healthz`` is 200 throughout, ``/readyz`` 503 until the app serves and 200
after, and no connection is refused or dropped in between.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic.script import ScriptDirectory

from feast_lineage.config import ConfigError
from feast_lineage.consumer.store.engine.database import (
    TEST_MIGRATION_GATE,
    alembic_config,
    create_store_engine,
    upgrade_schema,
)
from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress
from feast_lineage.listener import answering_while_upgrading, listen
from tests.consumer.test_errors import assert_error_shape
from tests.factories import run_event
from tests.postgres import free_port
from tests.server_process import ServerProcess, start_server, wait_for, wait_ready, write_repo

RUNS = "/api/v1/lineage/openlineage/runs"


class Poller(threading.Thread):
    """Asks for ``path`` again and again until stopped, noting every answer and failure."""

    def __init__(self, url: str, path: str, *, keep_alive: bool = False) -> None:
        super().__init__(name=f"poll {path}", daemon=True)
        self.url = url + path
        self.keep_alive = keep_alive
        self.statuses: list[int] = []
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=60) as client:
            while not self.stop.is_set():
                try:
                    if self.keep_alive:  # one client: its connection is reused when it can be
                        response = client.get(self.url)
                    else:  # a new connection each time
                        response = httpx.get(self.url, timeout=60)
                    self.statuses.append(response.status_code)
                except httpx.HTTPError as err:
                    self.failures.append(f"{type(err).__name__}: {err}")

    def finish(self) -> None:
        self.stop.set()
        self.join(timeout=90)


def _get(server: ServerProcess, path: str) -> httpx.Response | None:
    try:
        return httpx.get(server.url + path, timeout=10)
    except httpx.HTTPError:
        return None


def _phase(server: ServerProcess) -> str | None:
    response = _get(server, "/readyz")
    if response is None or response.status_code != 503:
        return None
    return str(response.json()["error"]["details"][0]["phase"])


def _migrations(url: str) -> int:
    engine = create_store_engine(url)
    try:
        return len(list(ScriptDirectory.from_config(alembic_config(engine)).walk_revisions()))
    finally:
        engine.dispose()


def _wait_listening(server: ServerProcess) -> None:
    # Until the port is bound, connections are refused: the process imports its modules.
    assert wait_for(
        lambda: _get(server, "/healthz") is not None or server.process.poll() is not None,
        timeout=120,
    ), server.log()
    assert server.process.poll() is None, server.log()


def _assert_not_ready(server: ServerProcess, url: str) -> None:
    health = httpx.get(server.url + "/healthz", timeout=10)
    assert health.status_code == 200
    assert health.json()["status"] == "upgrading"
    assert health.json()["database"] == "sqlite"
    ready = httpx.get(server.url + "/readyz", timeout=10)
    error = assert_error_shape(ready, 503)
    assert error["code"] == "schema_upgrading"
    assert ready.headers["retry-after"]
    detail: dict[str, Any] = error["details"][0]
    assert (detail["phase"], detail["migration"], detail["step"]) == ("migrating", "0001", 1)
    assert detail["steps"] == _migrations(url)
    assert f"migration 0001 (The initial lineage store), 1 of {detail['steps']}" in error["message"]
    assert str(server.log_path.parent) not in ready.text  # no paths, no URLs
    # Everything else waits too, and says when to come back.
    sent = httpx.post(server.url + "/api/v1/lineage", json=run_event("START"), timeout=10)
    assert assert_error_shape(sent, 503)["code"] == "schema_upgrading"
    assert sent.headers["retry-after"]
    assert httpx.get(server.url + RUNS, timeout=10).status_code == 503


@pytest.mark.parametrize(
    ("command", "args"),
    [("serve_lineage", []), ("serve_lineage", ["--workers", "2"]), ("ui", [])],
    ids=["one-process", "two-workers", "ui"],
)
def test_the_port_answers_not_ready_while_migrating_then_the_app_takes_over(
    tmp_path: Path, command: str, args: list[str]
) -> None:
    gate = tmp_path / "go"
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": url})
    server = start_server(
        repo, env={TEST_MIGRATION_GATE: str(gate)}, extra_args=args, command=command
    )
    pollers = [
        Poller(server.url, "/healthz"),
        Poller(server.url, "/readyz"),
        Poller(server.url, "/readyz", keep_alive=True),
    ]
    try:
        _wait_listening(server)
        for poller in pollers:
            poller.start()
        assert wait_for(lambda: _phase(server) == "migrating", timeout=60), server.log()
        _assert_not_ready(server, url)
        gate.touch()  # the migrations run, then the app serves on the same socket
        assert wait_for(lambda: all(200 in p.statuses[-1:] for p in pollers), timeout=180)
        event = run_event("COMPLETE")
        sent = httpx.post(server.url + "/api/v1/lineage", json=event, timeout=30)
        assert sent.status_code == 201, sent.text
        run = httpx.get(f"{server.url}{RUNS}/{event['run']['runId']}", timeout=30)
        assert run.status_code == 200, run.text
        ready = httpx.get(server.url + "/readyz", timeout=10).json()
        assert ready == {"status": "ok", "version": ready["version"], "database": "sqlite"}
    finally:
        for poller in pollers:
            poller.finish()
        server.stop()
    # A clean stop: uvicorn alone ends by raising the SIGTERM it handled again.
    assert server.process.returncode in (0, -signal.SIGTERM), server.log()
    assert "Traceback" not in server.log()
    health, readiness, kept_alive = pollers
    for poller in pollers:
        assert poller.failures == [], poller.failures[:3]  # nothing refused, reset or dropped
    assert set(health.statuses) == {200}
    for poller in (readiness, kept_alive):
        # Not ready, then ready, and never not ready again.
        first_ready = poller.statuses.index(200)
        assert first_ready > 0
        assert set(poller.statuses[:first_ready]) == {503}
        assert set(poller.statuses[first_ready:]) == {200}


@pytest.mark.parametrize("args", [[], ["--workers", "2"]], ids=["one-process", "two-workers"])
def test_a_start_with_nothing_to_migrate_says_starting_not_upgrading(
    tmp_path: Path, args: list[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    engine = create_store_engine(url)
    try:
        upgrade_schema(engine)  # at head: this start has nothing to migrate
    finally:
        engine.dispose()
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": url})
    server = start_server(repo, extra_args=args)
    health, readiness = Poller(server.url, "/healthz"), Poller(server.url, "/readyz")
    answers: list[dict[str, Any]] = []
    said: set[str] = set()  # /healthz's status meanwhile
    try:
        _wait_listening(server)
        health.start()
        readiness.start()
        while not (200 in readiness.statuses or server.process.poll() is not None):
            alive, response = _get(server, "/healthz"), _get(server, "/readyz")
            if alive is not None and alive.status_code == 200:
                said.add(alive.json()["status"])
            if response is not None and response.status_code == 503:
                answers.append(response.json()["error"])
        wait_ready(server)
        served = httpx.get(server.url + "/healthz", timeout=10).json()
    finally:
        health.finish()
        readiness.finish()
        server.stop()
    assert served["status"] == "ok"
    assert health.failures == readiness.failures == []
    assert set(health.statuses) == {200}
    first_ready = readiness.statuses.index(200)
    assert set(readiness.statuses[first_ready:]) == {200}  # and never not ready again
    for error in answers:  # the interim's answers while the app starts (one process)
        assert error["code"] == "server_starting"
        assert error["details"][0]["phase"] in ("starting", "done")
    assert said <= {"starting", "ok"}
    if not args:
        assert answers, "the one-process server answered nothing while its app started"
        assert "starting" in said
        assert "the server is starting" in answers[-1]["message"]
    # Its workers check the schema together: none waits for another's lock.
    assert "another process is migrating" not in server.log()
    assert "Traceback" not in server.log()


def test_a_replica_waiting_for_another_ones_migration_is_not_ready(tmp_path: Path) -> None:
    gate = tmp_path / "go"
    repo = write_repo(
        tmp_path / "repo", consumer={"connection_string": f"sqlite:///{tmp_path / 'lineage.db'}"}
    )
    migrating = start_server(repo, env={TEST_MIGRATION_GATE: str(gate)})
    waiting: ServerProcess | None = None
    try:
        _wait_listening(migrating)
        assert wait_for(lambda: _phase(migrating) == "migrating", timeout=60), migrating.log()
        waiting = start_server(repo)  # no hold of its own: it waits for the lock
        _wait_listening(waiting)
        assert wait_for(lambda: _phase(waiting) == "waiting", timeout=60), waiting.log()
        assert httpx.get(waiting.url + "/healthz", timeout=10).status_code == 200
        error = assert_error_shape(httpx.get(waiting.url + "/readyz", timeout=10), 503)
        assert "another process is upgrading" in error["message"]
        gate.touch()
        wait_ready(migrating)
        wait_ready(waiting)
        event = run_event("START")
        sent = httpx.post(waiting.url + "/api/v1/lineage", json=event, timeout=30)
        assert sent.status_code == 201, sent.text
        run_id = event["run"]["runId"]
        assert httpx.get(f"{migrating.url}{RUNS}/{run_id}", timeout=30).status_code == 200
    finally:
        migrating.stop()
        if waiting is not None:
            waiting.stop()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_failing_migration_stops_the_server_with_one_line(tmp_path: Path, workers: str) -> None:
    database = tmp_path / "lineage.db"
    with sqlite3.connect(database) as conn:  # at 0013, but without its tables: 0014 fails
        conn.execute("CREATE TABLE feast_lineage_alembic_version (version_num VARCHAR(32))")
        conn.execute("INSERT INTO feast_lineage_alembic_version VALUES ('0013')")
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": f"sqlite:///{database}"})
    port = free_port()
    serve = ["serve_lineage", "--workers", workers, "--port", str(port)]
    result = subprocess.run(
        [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), *serve],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: "), result.stderr
    assert "no such table: main.feast_lineage_runs" in last
    with listen("127.0.0.1", port):  # the port is free again
        pass


def test_a_port_in_use_is_one_clear_error() -> None:
    with listen("127.0.0.1", 0) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError) as info:
            listen("127.0.0.1", port)
    assert f"cannot listen on 127.0.0.1:{port}" in str(info.value)
    assert "--port" in str(info.value)


def test_a_port_past_65535_is_one_clear_error() -> None:
    with pytest.raises(ConfigError) as info:
        listen("127.0.0.1", 70000)
    assert "cannot listen on 127.0.0.1:70000 (" in str(info.value)


def test_the_socket_listens_on_when_the_interim_server_hands_over() -> None:
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    try:
        with answering_while_upgrading(
            sock, MigrationProgress(), database="sqlite", uvicorn_options={}
        ):
            assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
            assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10).status_code == 503
        # No one accepts now, but the kernel queues the connection for whoever serves next.
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
    finally:
        sock.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=10)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_stopped_while_starting_the_interim_server_leaves_nothing_open(loop: str) -> None:
    """A migration that fails at once stops the interim server during its startup: uvicorn
    returns before its own shutdown then, and the server it opened must be closed all the
    same (else closing the loop warns of an unclosed resource, a traceback on stderr)."""
    import gc
    import warnings

    sock = listen("127.0.0.1", 0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for attempt in range(20):  # stopped at once, or a moment after it started
                with answering_while_upgrading(
                    sock, MigrationProgress(), database="sqlite", uvicorn_options={"loop": loop}
                ):
                    if attempt % 2:
                        threading.Event().wait(0.001)
            gc.collect()
        unclosed = [str(w.message) for w in caught if "TCPServer" in str(w.message)]
        assert unclosed == []
    finally:
        sock.close()
