"""The answers of a server whose store's schema is being upgraded (UpgradingApp, in-process).

The real process, its socket and the hand-over to the workers: tests/test_listener.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from feast_lineage import __version__
from feast_lineage.consumer.store.engine.migration_progress import Migration, MigrationProgress
from feast_lineage.consumer.upgrading import CODE, RETRY_AFTER_S, STARTING_CODE, UpgradingApp
from tests.consumer.test_errors import assert_error_shape

T0 = 1_796_211_300.0  # 2026-12-02T11:35:00Z
PENDING = [Migration("0013", "Job versions."), Migration("0014", "Index runs by their root run.")]


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def request(
    app: UpgradingApp, method: str, path: str, root_path: str = "", **kwargs: Any
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, root_path=root_path)
        async with httpx.AsyncClient(transport=transport, base_url="http://lineage") as client:
            return await client.request(method, root_path + path, **kwargs)

    return asyncio.run(go())


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def progress(clock: Clock) -> MigrationProgress:
    progress = MigrationProgress(clock)
    clock.now = T0 + 60
    progress.plan(PENDING)
    clock.now = T0 + 600
    progress.applied("0013")
    return progress


def test_healthz_says_alive_while_upgrading(progress: MigrationProgress) -> None:
    response = request(UpgradingApp(progress, "postgresql"), "GET", "/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "upgrading",
        "version": __version__,
        "database": "postgresql",
    }
    assert response.headers["connection"] == "close"


def test_readyz_says_which_migration_runs_and_since_when(progress: MigrationProgress) -> None:
    response = request(UpgradingApp(progress, "sqlite"), "GET", "/readyz")
    error = assert_error_shape(response, 503)
    assert error["code"] == CODE
    assert response.headers["retry-after"] == str(RETRY_AFTER_S)
    assert response.headers["connection"] == "close"
    assert "migration 0014 (Index runs by their root run), 2 of 2" in error["message"]
    assert "running since 2026-12-02T11:45:00Z" in error["message"]
    assert error["details"] == [
        {
            "message": error["message"].removesuffix("; retry later"),
            "phase": "migrating",
            "migration": "0014",
            "description": "Index runs by their root run.",
            "step": 2,
            "steps": 2,
            "upgrade_started_at": "2026-12-02T11:35:00Z",
            "phase_started_at": "2026-12-02T11:45:00Z",
        }
    ]


def test_readyz_says_when_another_process_holds_the_lock(clock: Clock) -> None:
    progress = MigrationProgress(clock)
    clock.now = T0 + 5
    progress.waiting()
    error = assert_error_shape(request(UpgradingApp(progress, "mysql"), "GET", "/readyz"), 503)
    assert "another process is upgrading" in error["message"]
    assert "waited for it since 2026-12-02T11:35:05Z" in error["message"]
    assert error["details"][0]["phase"] == "waiting"
    assert "migration" not in error["details"][0]


def test_with_nothing_to_migrate_the_server_says_starting(clock: Clock) -> None:
    progress = MigrationProgress(clock)
    app = UpgradingApp(progress, "sqlite")
    checking = assert_error_shape(request(app, "GET", "/readyz"), 503)
    assert checking["code"] == STARTING_CODE
    assert "schema is being checked since 2026-12-02T11:35:00Z" in checking["message"]
    clock.now = T0 + 1
    progress.plan([])  # at head: the app starts (and opens the Feast registry)
    health = request(app, "GET", "/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "starting"
    ready = request(app, "GET", "/readyz")
    error = assert_error_shape(ready, 503)
    assert error["code"] == STARTING_CODE
    assert ready.headers["retry-after"] == str(RETRY_AFTER_S)
    assert error["message"] == (
        "the lineage store's schema is up to date; the server is starting; retry later"
    )
    assert error["details"][0]["phase"] == "done"
    assert "upgrad" not in error["message"]
    other = request(app, "POST", "/api/v1/lineage", content=b"{}")
    assert assert_error_shape(other, 503)["code"] == STARTING_CODE
    assert other.headers["retry-after"] == str(RETRY_AFTER_S)


def test_after_the_migrations_ran_the_server_says_starting(progress: MigrationProgress) -> None:
    app = UpgradingApp(progress, "sqlite")
    assert request(app, "GET", "/healthz").json()["status"] == "upgrading"
    progress.applied("0014")
    assert request(app, "GET", "/healthz").json()["status"] == "starting"
    assert assert_error_shape(request(app, "GET", "/readyz"), 503)["code"] == STARTING_CODE


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/lineage/openlineage/jobs"),
        ("POST", "/api/v1/lineage"),
        ("DELETE", "/api/v1/lineage/openlineage/namespaces/x"),
        ("GET", "/"),
        ("GET", "/metrics"),
    ],
)
def test_every_other_request_is_503_with_retry_after(
    progress: MigrationProgress, method: str, path: str
) -> None:
    body = b'{"eventType": "START"}' * 10_000 if method == "POST" else None
    response = request(UpgradingApp(progress, "sqlite"), method, path, content=body)
    error = assert_error_shape(response, 503)
    assert error["code"] == CODE
    assert "GET /readyz says how far" in error["message"]
    assert response.headers["retry-after"] == str(RETRY_AFTER_S)


def test_head_answers_without_a_body(progress: MigrationProgress) -> None:
    response = request(UpgradingApp(progress, "sqlite"), "HEAD", "/readyz")
    assert response.status_code == 503
    assert response.content == b""
    assert int(response.headers["content-length"]) > 0


def test_behind_a_proxy_the_root_path_is_stripped(progress: MigrationProgress) -> None:
    app = UpgradingApp(progress, "sqlite")
    assert request(app, "GET", "/healthz", root_path="/lineage").status_code == 200
    ready = request(app, "GET", "/readyz", root_path="/lineage")
    assert assert_error_shape(ready, 503)["details"][0]["phase"] == "migrating"


def test_the_answers_carry_no_connection_details(progress: MigrationProgress) -> None:
    # Only the backend's name and the migrations: never a URL, a host or a password.
    for path in ("/healthz", "/readyz", "/api/v1/lineage"):
        text = request(UpgradingApp(progress, "postgresql"), "GET", path).text
        assert "://" not in text
        assert "@" not in text
