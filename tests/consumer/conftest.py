"""Fixtures of the store-level consumer tests (a module's own ``store`` fixture wins)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mysql import MySQLServer
from tests.postgres import PostgresServer
from tests.store_helpers import Store

# A fresh store per test: a new SQLite file, or one PostgreSQL (MariaDB)
# database per module emptied between tests (creating a database per test is slow).


@pytest.fixture(scope="module")
def pg_store(pg: PostgresServer) -> Iterator[Store]:
    s = Store(pg.create_database())
    yield s
    s.close()


@pytest.fixture(scope="module")
def my_store(my: MySQLServer) -> Iterator[Store]:
    s = Store(my.create_database())
    yield s
    s.close()


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mysql", marks=pytest.mark.mysql),
    ]
)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store: a new SQLite file, or this module's PostgreSQL or MariaDB database."""
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path / 'lineage.db'}")
        yield s
        s.close()
    else:
        shared: Store = request.getfixturevalue(
            "pg_store" if request.param == "postgres" else "my_store"
        )
        shared.reset()
        yield shared
