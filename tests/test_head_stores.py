"""The copies of tests/head_stores.py are the stores the migrations build.

Most app and store tests run on a copy of a template migrated once per
session; these tests hold the copy to a database migrated the usual way,
on each kind of database: the same tables, columns, keys and indexes (as
the database itself prints them), the same rows, and nothing the MariaDB copy
leaves out. Copies share nothing with each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import run_event
from tests.head_stores import HeadStores, migrate
from tests.mysql import MySQLServer
from tests.postgres import PostgresServer
from tests.store_helpers import Store


def _migrated_the_usual_way(url: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if url.startswith("sqlite"):
        fresh = f"sqlite:///{tmp_path / 'migrated.db'}"
    else:
        fresh = request.getfixturevalue("my" if url.startswith("mysql") else "pg").create_database()
    migrate(fresh)
    return fresh


def _keys_sorted(statement: str) -> str:
    """MariaDB's CREATE TABLE with its secondary KEY lines in name order.

    MariaDB prints indexes in the order they were created, and a migration
    that creates a table with SQLAlchemy creates its indexes in the order of
    a set (``Table.indexes``), which differs from one process to the next:
    the template, built in one test worker, and a store migrated in another
    may list the same keys in another order. Every key is still compared,
    whole.
    """
    lines = statement.split("\n")
    keys = sorted(i for i, line in enumerate(lines) if line.lstrip().startswith("KEY "))
    if not keys:
        return statement
    first, last = keys[0], keys[-1]
    if last - first + 1 != len(keys):  # keys are printed together; if not, compare as printed
        return statement
    block = [line.rstrip(",") for line in lines[first : last + 1]]
    trailing = "," if lines[last].endswith(",") else ""
    ordered = sorted(block)
    lines[first : last + 1] = [line + "," for line in ordered[:-1]] + [ordered[-1] + trailing]
    return "\n".join(lines)


def _printed_schema(engine: Engine) -> list[Any]:
    """The schema as the database prints it (PostgreSQL's copy is its own, byte for byte)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            return list(
                conn.execute(text("SELECT type, name, sql FROM sqlite_master ORDER BY name")).all()
            )
        if engine.dialect.name == "mysql":
            names = inspect(conn).get_table_names()
            return [
                _keys_sorted(conn.execute(text(f"SHOW CREATE TABLE `{name}`")).one()[1])
                for name in sorted(names)
            ]
    return []


def _reflected_schema(engine: Engine) -> dict[str, Any]:
    found = inspect(engine)
    schema: dict[str, Any] = {"views": sorted(found.get_view_names())}
    for name in sorted(found.get_table_names()):
        schema[name] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                for c in found.get_columns(name)
            ],
            "primary key": found.get_pk_constraint(name)["constrained_columns"],
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), i["unique"]) for i in found.get_indexes(name)
            ),
            "unique": sorted(
                (u["name"], tuple(u["column_names"])) for u in found.get_unique_constraints(name)
            ),
            "foreign keys": found.get_foreign_keys(name),
        }
    return schema


def _rows(engine: Engine) -> dict[str, list[Any]]:
    with engine.connect() as conn:
        names = inspect(conn).get_table_names()
        return {name: sorted(conn.execute(text(f"SELECT * FROM {name}")).all()) for name in names}


def test_a_copy_is_the_store_the_migrations_build(
    head_store_url: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    fresh = _migrated_the_usual_way(head_store_url, request, tmp_path)
    copy, usual = create_store_engine(head_store_url), create_store_engine(fresh)
    try:
        assert _reflected_schema(copy) == _reflected_schema(usual)
        assert _printed_schema(copy) == _printed_schema(usual)
        assert _rows(copy) == _rows(usual)
        assert len(_rows(copy)) == len(t.metadata.tables) + 1  # and the migration version's
    finally:
        copy.dispose()
        usual.dispose()


@pytest.mark.mysql
def test_mariadb_stores_have_nothing_the_copy_leaves_out(my: MySQLServer) -> None:
    url = my.create_database()
    migrate(url)
    name = url.rsplit("/", 1)[1]
    engine = create_store_engine(url)
    try:
        with engine.connect() as conn:
            for table, column in (
                ("triggers", "trigger_schema"),
                ("views", "table_schema"),
                ("routines", "routine_schema"),
            ):
                count = conn.execute(
                    text(f"SELECT count(*) FROM information_schema.{table} WHERE {column} = :db"),
                    {"db": name},
                ).scalar_one()
                assert count == 0, (
                    f"the migrated store has {table}: MySQLServer.copy_database leaves them out"
                )
    finally:
        engine.dispose()


def test_copies_share_nothing(
    head_store_url: str, head_stores: HeadStores, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if head_store_url.startswith("sqlite"):
        other_url = head_stores.sqlite(tmp_path / "other.db")
    elif head_store_url.startswith("mysql"):
        other_url = head_stores.mysql(request.getfixturevalue("my"))
    else:
        other_url = head_stores.postgres(request.getfixturevalue("pg"))
    assert other_url != head_store_url
    one, other = Store(head_store_url), Store(other_url)
    try:
        one.ingest(run_event("START"))
        assert one.count(t.events) == 1
        assert other.count(t.events) == 0
    finally:
        one.close()
        other.close()


# A test's database is dropped once the test is done (tests/conftest.py): the next test finds
# the databases of the ones before gone.
_DONE_WITH: list[tuple[str, PostgresServer | MySQLServer]] = []


def test_a_tests_database_is_used_then_dropped(
    head_store_url: str, request: pytest.FixtureRequest
) -> None:
    if head_store_url.startswith("sqlite"):
        pytest.skip("a SQLite store is a file of the test's temporary directory")
    server = request.getfixturevalue("my" if head_store_url.startswith("mysql") else "pg")
    assert _exists(server, head_store_url)
    _DONE_WITH.append((head_store_url, server))


def test_the_databases_of_the_tests_before_are_gone() -> None:
    if not _DONE_WITH:
        pytest.skip("the tests before did not run")
    assert [url for url, server in _DONE_WITH if _exists(server, url)] == []


def _exists(server: PostgresServer | MySQLServer, url: str) -> bool:
    name = url.rsplit("/", 1)[1]
    if isinstance(server, PostgresServer):
        admin_url = server.url()
        query = "SELECT count(*) FROM pg_database WHERE datname = :n"
    else:
        admin_url = url.rsplit("/", 1)[0] + "/mysql"
        query = "SELECT count(*) FROM information_schema.schemata WHERE schema_name = :n"
    admin = create_engine(admin_url)
    try:
        with admin.connect() as conn:
            return bool(conn.execute(text(query), {"n": name}).scalar_one())
    finally:
        admin.dispose()
