"""Shared fixtures: stores (SQLite files and a real PostgreSQL), apps and clients."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.head_stores import HeadStores
from tests.mysql import MySQLServer, mysql_server
from tests.postgres import PostgresServer, postgres_server

SHARED = Path(__file__).resolve().parents[2] / "shared"
EVENTS_DIR = SHARED / "openlineage" / "events"
SPEC_DIR = SHARED / "openlineage" / "spec"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under pytest-xdist, refuse tests that share a node id: it would run each id once."""
    twice = sorted(nodeid for nodeid, n in Counter(ids).items() if n > 1)
    if twice:
        pytest.exit(
            "these node ids stand for several tests each, and pytest-xdist would run only one "
            f"of each: {twice}; run their files without -n (scripts/test.sh does)",
            returncode=4,
        )


@pytest.fixture(scope="session")
def pg() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="session")
def my() -> Iterator[MySQLServer]:
    with mysql_server() as server:
        yield server


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'lineage.db'}"


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mysql", marks=pytest.mark.mysql),
    ]
)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database without any schema: a SQLite file, a PostgreSQL database, a MariaDB one."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'lineage.db'}"
    server = _server(request)
    return _dropped_after(request, server, server.create_database())


@pytest.fixture(scope="session")
def head_stores(tmp_path_factory: pytest.TempPathFactory) -> HeadStores:
    return HeadStores(tmp_path_factory.mktemp("head-stores"))


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mysql", marks=pytest.mark.mysql),
    ]
)
def head_store_url(request: pytest.FixtureRequest, tmp_path: Path, head_stores: HeadStores) -> str:
    """A new store whose schema is at head: a copy of one the migrations built this session
    (tests/head_stores.py). ``store_url`` is a database without any schema."""
    if request.param == "sqlite":
        return head_stores.sqlite(tmp_path / "lineage.db")
    server = _server(request)
    if isinstance(server, MySQLServer):
        return _dropped_after(request, server, head_stores.mysql(server))
    return _dropped_after(request, server, head_stores.postgres(server))


def _server(request: pytest.FixtureRequest) -> PostgresServer | MySQLServer:
    server: PostgresServer | MySQLServer = request.getfixturevalue(
        "my" if request.param == "mysql" else "pg"
    )
    return server


def _dropped_after(
    request: pytest.FixtureRequest, server: PostgresServer | MySQLServer, url: str
) -> str:
    """``url``, a database the test's fixtures own: dropped once the test is done with it.

    A worker's tests make hundreds of databases (one of PostgreSQL's is 8.6 MB): dropped, they
    leave the server's directory small enough for tmpfs (tests/postgres.py, ``scratch_dir``).
    """
    request.addfinalizer(lambda: server.drop_database(url))
    return url


AppFactory = Callable[..., TestClient]


@pytest.fixture
def make_client(head_store_url: str) -> Iterator[AppFactory]:
    """Build an app on a new store of the test's (at head) and return a started TestClient."""
    clients: list[TestClient] = []

    def factory(**consumer: Any) -> TestClient:
        settings = AppSettings(
            consumer=ConsumerSettings(enabled=True, **consumer), database_url=head_store_url
        )
        client = TestClient(create_app(settings), raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client()
