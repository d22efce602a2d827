"""Write transactions, one at a time across every process that shares a store.

A server may run several worker processes (``serve_lineage --workers N``),
each with its own writer thread, and the retention prune and admin reset
write too. :func:`write_transaction` makes them take turns:

* SQLite allows one writer anyway, but a writer that finds the database
  locked sleeps in SQLite's busy handler (1, 2, 5, 10 ms ...) and polls, which
  wastes most of the lock's time under load. Writers first take an exclusive
  ``flock`` on a lock file beside the database, which the kernel hands to the
  next waiter the moment it is released, then ``BEGIN IMMEDIATE``.
* PostgreSQL takes a transaction-scoped advisory lock, so concurrent upserts
  of the same jobs and datasets never deadlock.
* MySQL (and MariaDB) take a named lock (``GET_LOCK``) for the same reason.
  It belongs to the session, not the transaction, so it is released right
  after the transaction ends, however it ends (and by the server should the
  session die).
* In-memory SQLite relies on the database's own locking.

Readers take no lock: WAL (SQLite) and MVCC (PostgreSQL) let them read while
a write is in progress.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError

# Any constant works; this one spells "feastlin" in ASCII.
PG_ADVISORY_KEY = 0x66656173746C696E
MYSQL_LOCK_NAME = "feast_lineage_writer"
MYSQL_LOCK_WAIT_S = 30  # as long as SQLite's busy timeout


def lock_path(engine: Engine) -> str | None:
    """The lock file of a SQLite store on disk, else None."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return f"{database}-writer.lock"


@contextmanager
def _file_lock(path: str, idle: Callable[[], bool] | None = None) -> Iterator[None]:
    # A descriptor of its own per hold: flock locks belong to an open file, so
    # two threads of one process exclude each other too.
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:  # the store is unusable as a database would be
        raise OperationalError("open the store's write lock", None, err) from None
    try:
        _acquire(fd, idle)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _acquire(fd: int, idle: Callable[[], bool] | None) -> None:
    while idle is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:  # another process writes
            if not idle():
                break
    fcntl.flock(fd, fcntl.LOCK_EX)  # blocks with the GIL released


def writer_lock(
    engine: Engine, idle: Callable[[], bool] | None = None
) -> AbstractContextManager[None]:
    """The cross-process part of a write transaction, taken before it begins.

    While another process holds it, ``idle()`` is called again and again to
    do other work, until it returns False; then the caller waits.
    """
    path = lock_path(engine)
    return _file_lock(path, idle) if path is not None else nullcontext()


def writer_connection(engine: Engine) -> Connection:
    """A connection for write transactions (``BEGIN IMMEDIATE`` on SQLite)."""
    return engine.connect().execution_options(lineage_write=True)


@contextmanager
def begin_write(conn: Connection) -> Iterator[Connection]:
    """A transaction on a :func:`writer_connection`; call it holding :func:`writer_lock`."""
    named_lock = False
    try:
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_ADVISORY_KEY})")
            elif conn.dialect.name in {"mysql", "mariadb"}:
                named_lock = _mysql_lock(conn)
            yield conn
    finally:
        if named_lock:
            with suppress(SQLAlchemyError):  # a dead session has released it already
                conn.exec_driver_sql(f"SELECT RELEASE_LOCK('{MYSQL_LOCK_NAME}')")
                conn.rollback()


def _mysql_lock(conn: Connection) -> bool:
    sql = f"SELECT GET_LOCK('{MYSQL_LOCK_NAME}', {MYSQL_LOCK_WAIT_S})"
    if conn.exec_driver_sql(sql).scalar() != 1:
        raise OperationalError(
            sql, None, TimeoutError(f"the store's write lock was busy for {MYSQL_LOCK_WAIT_S} s")
        )
    return True


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A write transaction that holds the store's write lock from its start."""
    with writer_lock(engine), writer_connection(engine) as conn, begin_write(conn):
        yield conn
