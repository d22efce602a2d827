"""Building the store's engine and bringing its schema up to date.

SQLite runs in WAL mode with ``synchronous=NORMAL`` (durable across process
crashes: a committed transaction survives SIGKILL) and a busy timeout so
several processes can share one file. Checkpoints (copying the log back into
the database, with fsyncs) are taken off the commit path: the automatic
checkpoint only fires on a large log, and a server runs
:class:`WalCheckpointer`, which checkpoints in the background. Alembic migrations run at startup, so
an older database upgrades in place, one process at a time (:func:`migration_lock`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.pool import QueuePool

from feast_lineage.consumer.store.engine.migration_progress import Migration, MigrationProgress
from feast_lineage.consumer.store.engine.transactions import writer_lock
from feast_lineage.consumer.store.schema import codec
from feast_lineage.consumer.store.schema.migrations.naming import (
    LEGACY_VERSION_TABLE,
    VERSION_TABLE,
    existing_tables,
)

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

_MIGRATIONS = Path(__file__).parents[1] / "schema" / "migrations"
# A commit that finds the log past this many pages (80 MB) checkpoints itself;
# normally the background checkpointer keeps the log far smaller.
_AUTOCHECKPOINT_PAGES = 20_000


class WalCheckpointer:
    """A thread that checkpoints a SQLite store's write-ahead log every second.

    PASSIVE checkpoints never block the writer or readers; the work (and its
    fsyncs) runs in SQLite's C code with the GIL released, on the other core.
    A no-op for other databases.
    """

    def __init__(self, engine: Engine, interval: float = 1.0) -> None:
        self._engine = engine
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lineage-wal", daemon=True)

    def start(self) -> None:
        if self._engine.dialect.name == "sqlite":
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                with self._engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:  # a failed checkpoint is retried next time
                log.debug("WAL checkpoint failed", exc_info=True)


_BUSY_TIMEOUT_MS = 30_000


def _enter_wal(cursor: Any) -> None:
    """Switch the file to WAL, waiting for other connections doing the same.

    The switch of a new file takes an exclusive lock, and when two connections
    try it at once SQLite answers "database is locked" at once, without the
    busy handler (each would otherwise wait for the other). So several
    processes starting on one new file retry here, up to the busy timeout. A
    file already in WAL answers without a lock.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
        else:
            return


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event below emit BEGIN, so writers can take the
    # write lock up front (BEGIN IMMEDIATE) instead of failing to upgrade later.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
    _enter_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.execute("PRAGMA cache_size=-16384")  # 16 MiB a connection
    cursor.execute("PRAGMA temp_store=MEMORY")
    cursor.execute(f"PRAGMA wal_autocheckpoint={_AUTOCHECKPOINT_PAGES}")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    if conn.get_execution_options().get("lineage_write"):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")


def snapshot_reads(engine: Engine) -> Engine:
    """``engine`` for the read services: each connection's statements see one snapshot.

    An answer is several statements (a bound then the rows it bounds, a
    count then a page). SQLite's deferred ``BEGIN`` and MariaDB's default
    (repeatable read) already read one snapshot a transaction; PostgreSQL's
    default (read committed) takes one a statement, so a commit between
    two of them could make an answer no instant had. Repeatable read gives
    PostgreSQL one a transaction; a transaction that only reads is never
    refused by it. Writers keep the engine's default.
    """
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


def create_store_engine(url: str) -> Engine:
    """An engine for ``url`` tuned for the lineage store."""
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite"):
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            poolclass=QueuePool,
            pool_size=8,
            max_overflow=8,
            connect_args={"check_same_thread": False, "timeout": 30},
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
    else:
        engine = create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)
    codec.watch_store(engine)  # its payload dictionaries, when a payload needs one
    return engine


class MigrationNoise(logging.Filter):
    """Lets Alembic's INFO lines through only when they tell of a change.

    Alembic says which database backend it drives and which plugins it set
    up every time it runs, changed or not; those lines pass only when the
    store's own logger is at DEBUG. "Running upgrade ..." (a migration that
    runs) and every warning pass as the level allows.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING or log.isEnabledFor(logging.DEBUG):
            return True
        return str(record.msg).startswith("Running ")


_NOISY_LOGGERS = ("alembic.runtime.migration", "alembic.runtime.plugins")


def quiet_alembic() -> None:
    """Install :class:`MigrationNoise` on Alembic's loggers (once), before Alembic is imported."""
    for name in _NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, MigrationNoise) for f in logger.filters):
            logger.addFilter(MigrationNoise())


def alembic_config(engine: Engine) -> Config:
    quiet_alembic()
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["engine"] = engine
    return config


class UnsuitableDatabase(Exception):
    """The database cannot hold the store as it must be held."""

    def __init__(self, problem: str, fix: str) -> None:
        self.problem = problem
        self.fix = fix
        super().__init__(f"{problem}; {fix}")


def check_database(connection: Connection) -> None:
    """Refuse a database whose settings would bend the store's answers.

    A MySQL database must use ``utf8mb4`` with a binary collation: ``utf8``
    cannot hold every Unicode character, and a case-insensitive collation
    would make ``Orders`` and ``orders`` one name in every lookup.
    """
    if connection.dialect.name not in {"mysql", "mariadb"}:
        return
    row = connection.exec_driver_sql("SELECT @@character_set_database, @@collation_database").one()
    charset, collation = str(row[0]), str(row[1])
    if charset != "utf8mb4" or not collation.endswith("_bin"):
        raise UnsuitableDatabase(
            f"the MySQL database uses {charset} with collation {collation}",
            "create it with CHARACTER SET utf8mb4 COLLATE utf8mb4_bin "
            "(or ALTER DATABASE to those before the first start)",
        )


# Session-level locks, apart from the writers' own ("feastmig" in ASCII).
PG_MIGRATION_KEY = 0x66656173746D6967
MYSQL_MIGRATION_LOCK = "feast_lineage_migrations"
_MYSQL_WAIT_S = 10  # between two "still waiting" lines in the log


def _waiting(on_wait: Callable[[], None] | None) -> Callable[[], bool]:
    def waiting() -> bool:
        log.warning("another process is migrating the lineage store; waiting for it to finish")
        if on_wait is not None:
            on_wait()
        return False  # then wait, blocked

    return waiting


@contextmanager
def migration_lock(engine: Engine, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the store's migration lock: one process migrates, the others wait.

    Replicas started together on an empty database would otherwise all
    create the same tables, and all but one fail. On PostgreSQL the lock is
    a session-level advisory lock; on MySQL and MariaDB a named lock
    (``GET_LOCK``), which DDL's implicit commits leave alone; both are held
    by a connection of their own and released by the server should the
    process die. On a SQLite file it is the writers' lock file beside the
    database (which also keeps other processes' writers out meanwhile).
    ``on_wait`` is called when another process holds the lock, before waiting.
    """
    waiting = _waiting(on_wait)
    dialect = engine.dialect.name
    if dialect == "sqlite":
        with writer_lock(engine, waiting):
            yield
        return
    if dialect not in {"postgresql", "mysql", "mariadb"}:
        yield
        return
    with engine.connect() as conn:
        if dialect == "postgresql":
            _pg_lock(conn, waiting)
            unlock = f"SELECT pg_advisory_unlock({PG_MIGRATION_KEY})"
        else:
            _mysql_lock(conn, waiting)
            unlock = f"SELECT RELEASE_LOCK('{MYSQL_MIGRATION_LOCK}')"
        conn.commit()
        try:
            yield
        finally:
            with suppress(SQLAlchemyError):  # a dead session has released it already
                conn.exec_driver_sql(unlock)
                conn.commit()


def _pg_lock(conn: Connection, waiting: Callable[[], bool]) -> None:
    if not conn.exec_driver_sql(f"SELECT pg_try_advisory_lock({PG_MIGRATION_KEY})").scalar():
        waiting()
        conn.exec_driver_sql(f"SELECT pg_advisory_lock({PG_MIGRATION_KEY})")


def _mysql_lock(conn: Connection, waiting: Callable[[], bool]) -> None:
    sql = f"SELECT GET_LOCK('{MYSQL_MIGRATION_LOCK}', {{}})"
    got = conn.exec_driver_sql(sql.format(0)).scalar()
    while got == 0:  # held by another session: wait, saying so now and then
        waiting()
        got = conn.exec_driver_sql(sql.format(_MYSQL_WAIT_S)).scalar()
    if got != 1:  # NULL: an error (the server is out of memory, or killed the wait)
        raise OperationalError(sql, None, RuntimeError("GET_LOCK failed"))


def upgrade_schema(engine: Engine, progress: MigrationProgress | None = None) -> None:
    """Check the database, then run every pending migration, holding the migration lock.

    A schema at head already (every start but the first of a release) takes
    no lock: nothing is to be migrated, so nothing is to be waited for (the
    workers of one server, replicas, an apply beside a server). ``progress``
    is told of each phase: waiting for the lock, each migration as it
    starts, the end.
    """
    config = alembic_config(engine)
    from alembic import command

    report = progress if progress is not None else MigrationProgress()
    with engine.connect() as connection:
        check_database(connection)
        at_head = not pending_migrations(config, connection)
    if at_head:
        report.plan(())
        log.debug("lineage store schema is at head")
        return
    with migration_lock(engine, report.waiting), engine.begin() as connection:
        check_database(connection)
        config.attributes["connection"] = connection
        config.attributes["on_version_apply"] = partial(_applied, report)
        pending = pending_migrations(config, connection)
        report.plan(pending)
        if pending:
            hold_for_tests()
        command.upgrade(config, "head")
    report.finished()
    log.debug("lineage store schema is at head")


def _applied(progress: MigrationProgress, *, step: Any, **_: Any) -> None:
    """Alembic's ``on_version_apply`` callback: a migration has run."""
    progress.applied(str(step.up_revision_id))


def pending_migrations(config: Config, connection: Connection) -> list[Migration]:
    """The migrations that bring the database on ``connection`` to head, oldest first."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    # The version table env.py picks: a store from before migration 0008 keeps the old one.
    tables = existing_tables(connection)
    legacy = LEGACY_VERSION_TABLE in tables and VERSION_TABLE not in tables
    context = MigrationContext.configure(
        connection, opts={"version_table": LEGACY_VERSION_TABLE if legacy else VERSION_TABLE}
    )
    current = context.get_current_revision()
    script = ScriptDirectory.from_config(config)
    if current is not None and current not in {str(s.revision) for s in script.walk_revisions()}:
        head = script.get_current_head()
        raise UnsuitableDatabase(
            f"the lineage store's schema is at revision {current}, which this feast-lineage "
            f"does not know (its newest is {head}): a newer release migrated it",
            "run the feast-lineage release that migrated it (or a newer one), "
            "or point connection_string at another database",
        )
    newest_first = script.iterate_revisions("heads", current or "base")
    return [
        Migration(str(s.revision), next(iter((s.doc or "").strip().splitlines()), ""))
        for s in reversed(list(newest_first))
        if s.revision != current
    ]


# A test's hold on a migration: while the file this variable names does not
# exist, a server's pending migrations wait (as a slow backfill would). Only
# the tests set it (tests/test_listener.py).
TEST_MIGRATION_GATE = "FEAST_LINEAGE_TEST_MIGRATION_GATE"


def hold_for_tests() -> None:
    gate = os.environ.get(TEST_MIGRATION_GATE)
    if not gate:
        return
    log.warning("%s is set: the migrations wait for %s to exist", TEST_MIGRATION_GATE, gate)
    while not Path(gate).exists():
        time.sleep(0.05)
