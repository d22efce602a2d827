"""The store engine: SQLite tuning, write locks, and PostgreSQL settings."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import func, inspect, select, text

from feast_lineage.consumer.store.engine.database import (
    UnsuitableDatabase,
    alembic_config,
    create_store_engine,
    migration_lock,
    snapshot_reads,
    upgrade_schema,
)
from feast_lineage.consumer.store.engine.migration_progress import (
    MigrationProgress,
    MigrationState,
)
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, run_event
from tests.mysql import MySQLServer
from tests.postgres import PostgresServer
from tests.server_process import wait_for
from tests.store_helpers import Store


def test_sqlite_pragmas(tmp_path: Path) -> None:
    engine = create_store_engine(f"sqlite:///{tmp_path / 'lineage.db'}")
    try:
        with engine.connect() as conn:
            pragma = {
                name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
            }
        assert pragma == {
            "journal_mode": "wal",
            "synchronous": 1,  # NORMAL: durable across process crashes in WAL mode
            "busy_timeout": 30000,
            "foreign_keys": 0,
        }
    finally:
        engine.dispose()


def test_connections_opening_a_new_file_at_once_all_enter_wal(tmp_path: Path) -> None:
    # Switching a new file to WAL takes an exclusive lock, and SQLite answers
    # "database is locked" at once, without the busy handler, when two
    # connections try it together (each would wait for the other). Several
    # processes starting on one new file (``serve_lineage --workers 2``, or
    # replicas) hit it about one round in four here.
    errors: list[BaseException] = []
    for attempt in range(40):
        engines = [
            create_store_engine(f"sqlite:///{tmp_path / f'lineage-{attempt}.db'}") for _ in range(4)
        ]
        barrier = threading.Barrier(len(engines))

        def connect(engine: Any, barrier: threading.Barrier) -> None:
            barrier.wait()
            try:
                with engine.connect() as conn:
                    assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            except BaseException as err:
                errors.append(err)

        threads = [threading.Thread(target=connect, args=(engine, barrier)) for engine in engines]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for engine in engines:
            engine.dispose()
        assert not errors, f"round {attempt + 1}: {errors[0]!r}"


def test_sqlite_file_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "deeper" / "lineage.db"
    engine = create_store_engine(f"sqlite:///{path}")
    try:
        upgrade_schema(engine)
    finally:
        engine.dispose()
    assert path.is_file()
    assert (path.parent / "lineage.db-wal").exists() or path.stat().st_size > 0


def _other_writer_can_lock(path: Path) -> bool:
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        if "locked" not in str(err):
            raise
        return False
    finally:
        other.close()
    return True


def test_writers_take_the_write_lock_up_front(tmp_path: Path) -> None:
    path = tmp_path / "lineage.db"
    engine = create_store_engine(f"sqlite:///{path}")
    try:
        upgrade_schema(engine)
        with engine.connect() as conn:
            writer = conn.execution_options(lineage_write=True)
            with writer.begin():
                # No statement yet, and already no one else may write.
                assert not _other_writer_can_lock(path)
            assert _other_writer_can_lock(path)
        with engine.connect() as conn, conn.begin():
            # Readers begin deferred and block nobody.
            conn.execute(text("SELECT 1"))
            assert _other_writer_can_lock(path)
    finally:
        engine.dispose()


def test_sqlite_in_memory_is_accepted() -> None:
    engine = create_store_engine("sqlite://")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("server", "dialect"),
    [
        pytest.param("pg", "postgresql", marks=pytest.mark.postgres),
        pytest.param("my", "mysql", marks=pytest.mark.mysql),
    ],
)
def test_server_engine(request: pytest.FixtureRequest, server: str, dialect: str) -> None:
    database: PostgresServer | MySQLServer = request.getfixturevalue(server)
    engine = create_store_engine(database.create_database())
    try:
        assert engine.dialect.name == dialect
        assert engine.pool._pre_ping  # type: ignore[attr-defined]
        upgrade_schema(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM feast_lineage_runs")).scalar() == 0
    finally:
        engine.dispose()


@pytest.mark.mysql
@pytest.mark.parametrize(
    ("charset", "collation"), [("utf8mb4", "utf8mb4_general_ci"), ("latin1", "latin1_bin")]
)
def test_a_mysql_database_that_would_bend_names_is_refused(
    my: MySQLServer, charset: str, collation: str
) -> None:
    engine = create_store_engine(my.create_database(charset, collation))
    try:
        with pytest.raises(UnsuitableDatabase) as info:
            upgrade_schema(engine)
        assert info.value.problem == f"the MySQL database uses {charset} with collation {collation}"
        assert "COLLATE utf8mb4_bin" in info.value.fix
        assert inspect(engine).get_table_names() == []  # nothing was created
    finally:
        engine.dispose()


class Recorder(MigrationProgress):
    """A progress that remembers every state it went through."""

    def __init__(self) -> None:
        super().__init__()
        self.states: list[MigrationState] = []

    def _set(self, *args: Any, **kwargs: Any) -> None:
        super()._set(*args, **kwargs)
        self.states.append(self.now())


def _empty(request: pytest.FixtureRequest, store: str, tmp_path: Path) -> str:
    if store == "sqlite":
        return f"sqlite:///{tmp_path / 'lineage.db'}"
    database: PostgresServer | MySQLServer = request.getfixturevalue(store)
    return database.create_database()


STORES = [
    "sqlite",
    pytest.param("pg", marks=pytest.mark.postgres),
    pytest.param("my", marks=pytest.mark.mysql),
]


@pytest.mark.parametrize("store", STORES)
def test_an_upgrade_reports_each_migration_as_it_starts(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
) -> None:
    engine = create_store_engine(_empty(request, store, tmp_path))
    try:
        script = ScriptDirectory.from_config(alembic_config(engine))
        every = [s.revision for s in reversed(list(script.walk_revisions()))]
        progress = Recorder()
        upgrade_schema(engine, progress)
        migrating = [s for s in progress.states if s.phase == "migrating"]
        assert [s.current.revision for s in migrating if s.current] == every
        assert [s.step for s in migrating] == list(range(1, len(every) + 1))
        assert {s.steps for s in migrating} == {len(every)}
        assert all(s.current and s.current.description for s in migrating)
        assert progress.now().phase == "done"
        again = Recorder()
        upgrade_schema(engine, again)  # at head: nothing runs
        assert [s.phase for s in again.states] == ["done"]
    finally:
        engine.dispose()


@pytest.mark.parametrize("store", STORES)
def test_an_upgrade_waiting_for_another_process_says_so(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
) -> None:
    engine = create_store_engine(_empty(request, store, tmp_path))
    other = create_store_engine(engine.url.render_as_string(hide_password=False))
    progress = Recorder()
    try:
        with migration_lock(other):  # "another process" migrates
            upgrading = threading.Thread(target=upgrade_schema, args=(engine, progress))
            upgrading.start()
            assert wait_for(lambda: progress.now().phase == "waiting", timeout=60)
            assert upgrading.is_alive()
        upgrading.join(timeout=120)
        phases = [s.phase for s in progress.states]
        assert phases[0] == "waiting"
        assert phases[-1] == "done"
        assert "migrating" in phases
    finally:
        engine.dispose()
        other.dispose()


@pytest.mark.parametrize("store", STORES)
def test_a_store_at_head_starts_without_waiting_for_the_lock(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The workers of one server check the schema as they start, all at once:
    # each waited for the others' lock and warned that "another process is migrating".
    engine = create_store_engine(_empty(request, store, tmp_path))
    other = create_store_engine(engine.url.render_as_string(hide_password=False))
    upgrade_schema(engine)
    progress = Recorder()
    try:
        with migration_lock(other):  # another worker checks the schema meanwhile
            starting = threading.Thread(target=upgrade_schema, args=(engine, progress))
            starting.start()
            starting.join(timeout=60)
            assert not starting.is_alive()
        assert [s.phase for s in progress.states] == ["done"]
        assert progress.now().steps == 0
        assert "another process" not in caplog.text
    finally:
        starting.join(timeout=120)
        engine.dispose()
        other.dispose()


def test_a_reads_statements_see_one_snapshot_on_every_database(store: Store) -> None:
    """A commit between two statements of a read is not seen by the second (all three databases)."""
    reads = snapshot_reads(store.engine)
    store.ingest(run_event("START", job=("ns", "before"), time=at(1)))
    with reads.connect() as conn:
        counted = select(func.count()).select_from(t.runs)
        assert conn.execute(counted).scalar_one() == 1
        store.ingest(run_event("START", job=("ns", "between"), time=at(2)))  # commits
        assert conn.execute(counted).scalar_one() == 1
    with reads.connect() as conn:
        assert conn.execute(select(func.count()).select_from(t.runs)).scalar_one() == 2
    with store.engine.connect() as conn:  # the engine itself: the database's default
        level = conn.get_isolation_level()
    assert level == ("READ COMMITTED" if store.dialect == "postgresql" else level)
