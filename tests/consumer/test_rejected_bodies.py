"""Rejected request bodies do not stay in a real server's memory.

A large body refused as invalid JSON, as an invalid event, or as a gzip
bomb was kept alive by reference cycles through the exceptions that
reported it (their tracebacks hold the frames, the frames hold the body),
until a full garbage collection ran, which requests that only send bad
bodies hardly ever trigger. The server's resident memory is read from
/proc while it idles, and no collection is forced.

The three kinds of body on SQLite share one server (starting one costs more
than its twenty requests): each test measures the growth over its own
requests, from where the one before left the server.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.postgres import PostgresServer
from tests.server_process import ServerProcess, lineage_server, wait_for, write_repo

MB = 1024 * 1024
BODY_BYTES = 31 * MB  # just under the default max_request_bytes (32 MiB)
REQUESTS = 20
ALLOWED_GROWTH_MB = 150
# How long an idle server has to give the memory back after the last answer.
SETTLE_SECONDS = 2


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def _bodies(kind: str) -> tuple[bytes, dict[str, str], int, str]:
    """A body, its headers, and the status and code the server answers it with."""
    json_type = {"Content-Type": "application/json"}
    if kind == "not_json":
        return b"a" * BODY_BYTES, json_type, 400, "invalid_json"
    if kind == "not_an_event":
        padding = b"a" * (BODY_BYTES - 100)
        body = b'{"eventTime": "2026-01-01T00:00:00Z", "padding": "' + padding + b'"}'
        return body, json_type, 400, "invalid_event"
    # A gzip bomb: 40 MB of text in 40 KB, inflated up to the limit and refused.
    bomb = gzip.compress(b"a" * (40 * MB), compresslevel=9)
    return bomb, {**json_type, "Content-Encoding": "gzip"}, 413, "body_too_large"


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    repo = write_repo(
        tmp_path_factory.mktemp("rejected") / "repo",
        consumer={"connection_string": "sqlite:///data/lineage.db"},
    )
    with lineage_server(repo) as server:
        yield server


@pytest.fixture
def server(
    request: pytest.FixtureRequest, tmp_path: Path, database: str
) -> Iterator[ServerProcess]:
    """The module's SQLite server, or a server of this test's on a new PostgreSQL database."""
    if database == "sqlite":
        yield request.getfixturevalue("sqlite_server")
        return
    pg: PostgresServer = request.getfixturevalue("pg")
    repo = write_repo(tmp_path / "repo", consumer={"connection_string": pg.create_database()})
    with lineage_server(repo) as server:
        yield server


@pytest.mark.slow
@pytest.mark.parametrize(
    ("database", "kind"),
    [
        ("sqlite", "not_json"),
        ("sqlite", "not_an_event"),
        ("sqlite", "gzip_bomb"),
        pytest.param("postgres", "not_json", marks=pytest.mark.postgres),
    ],
)
def test_rejected_large_bodies_are_freed(server: ServerProcess, database: str, kind: str) -> None:
    # The parsing happens in the writer thread on SQLite, in a worker thread
    # on PostgreSQL: both hand the failure back to the request.
    body, headers, status, code = _bodies(kind)
    pid = server.process.pid
    with httpx.Client(timeout=120) as client:
        start = resident_mb(pid)
        for _ in range(REQUESTS):
            answer = client.post(server.url + "/api/v1/lineage", content=body, headers=headers)
            assert answer.status_code == status, answer.text[:300]
            assert answer.json()["error"]["code"] == code

    # Passes as soon as the memory is back; a server that keeps the bodies
    # still holds them when the time is up (nothing collects them meanwhile).
    def grown() -> float:
        return resident_mb(pid) - start

    wait_for(lambda: grown() < ALLOWED_GROWTH_MB, timeout=SETTLE_SECONDS)
    assert grown() < ALLOWED_GROWTH_MB, (
        f"the server grew by {grown():.0f} MB after {REQUESTS} rejected bodies "
        f"of {len(body) / MB:.0f} MB ({kind}, {database})"
    )
