"""New stores whose schema is at head, copied from one the migrations built.

Migrating an empty database (fourteen migrations, most of them DDL) took
about 0.1 s on SQLite, 0.3 s on PostgreSQL and 4 s on MariaDB; the app and
store tests, which each want a new store at head, spent most of the main
test pass there. Each session (each pytest-xdist worker) now migrates one
template per kind of database, with the real migrations, the first time a
test asks for one, and every test gets a copy of it:

- SQLite: a copy of the template's file, closed (its write-ahead log
  checkpointed into it);
- PostgreSQL: ``CREATE DATABASE ... TEMPLATE``, PostgreSQL's own copy;
- MariaDB, which has no template databases: a new database (``utf8mb4``,
  binary collation, as the store needs) whose tables are each made by the
  statement MariaDB prints for the template's (``SHOW CREATE TABLE``), then
  the template's rows (the migration version). Triggers, views and routines
  are not copied: the schema has none, and tests/test_head_stores.py fails if
  a migration adds one.

Tests that need a database without any schema (the migration tests, a server
migrating a new store) keep ``store_url``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from tests.mysql import MySQLServer
from tests.postgres import PostgresServer


def migrate(url: str) -> None:
    """Bring the database at ``url`` to head as a server does, and close it."""
    engine = create_store_engine(url)
    try:
        upgrade_schema(engine)
    finally:
        engine.dispose()


class HeadStores:
    """One migrated template per kind of database, made on first use; copies of it."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._sqlite: Path | None = None
        self._postgres: dict[int, str] = {}  # server port: its template database
        self._mysql: dict[int, str] = {}

    def sqlite(self, path: Path) -> str:
        """A copy of the SQLite template at ``path``; its URL."""
        if self._sqlite is None:
            template = self._root / "head.db"
            migrate(f"sqlite:///{template}")
            # Closing the last connection checkpointed the log: the file is the database.
            leftover = [p.name for p in self._root.glob("head.db-*") if not p.name.endswith("lock")]
            assert not leftover, f"the SQLite template left {leftover} beside it"
            self._sqlite = template
        shutil.copyfile(self._sqlite, path)
        return f"sqlite:///{path}"

    def postgres(self, server: PostgresServer) -> str:
        """A new PostgreSQL database copied from the template; its URL."""
        if server.port not in self._postgres:
            url = server.create_database()
            migrate(url)
            self._postgres[server.port] = url.rsplit("/", 1)[1]
        return server.create_database(template=self._postgres[server.port])

    def mysql(self, server: MySQLServer) -> str:
        """A new MariaDB database with the template's tables and rows; its URL."""
        if server.port not in self._mysql:
            url = server.create_database()
            migrate(url)
            self._mysql[server.port] = url.rsplit("/", 1)[1]
        return server.copy_database(self._mysql[server.port])
