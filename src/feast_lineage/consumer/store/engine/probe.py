"""Probing a lineage database before a server starts on it.

:func:`probe_database` connects once, so a wrong URL, an unreachable server
or an unsuitable database stops startup with one line instead of a
traceback; a password never appears in what it says.
"""

from __future__ import annotations

from sqlalchemy import make_url, text
from sqlalchemy.exc import SQLAlchemyError

from feast_lineage.consumer.store.engine.database import (
    check_database,
    create_store_engine,
    upgrade_schema,
)
from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress


class MigrationFailed(Exception):
    """The database was reached, but bringing its schema up to date failed; ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"upgrading the lineage store's schema failed ({reason})")


class DatabaseUnreachable(Exception):
    """The database cannot be connected to; ``reason`` names why, with no password."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot connect to the lineage database ({reason})")


def probe_database(
    url: str, *, migrate: bool = False, progress: MigrationProgress | None = None
) -> None:
    """Connect once and check the database; with ``migrate``, run pending migrations too.

    ``progress`` is told how far the migrations have got.

    Raises :class:`DatabaseUnreachable`, :class:`MigrationFailed` or
    :class:`~feast_lineage.consumer.store.engine.database.UnsuitableDatabase`
    (also for a schema a newer release migrated).
    """
    try:
        engine = create_store_engine(url)
    except (SQLAlchemyError, OSError, ImportError) as err:
        raise DatabaseUnreachable(type(err).__name__) from None
    try:
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
                check_database(conn)
        except SQLAlchemyError as err:
            raise DatabaseUnreachable(_reason(url, err)) from None
        if migrate:
            try:
                upgrade_schema(engine, progress)
            except SQLAlchemyError as err:
                raise MigrationFailed(_reason(url, err)) from None
    finally:
        engine.dispose()


def _reason(url: str, err: SQLAlchemyError) -> str:
    """The first line of what the database said, without the URL's password."""
    cause = getattr(err, "orig", None) or err
    first_line = (str(cause).strip().splitlines() or [""])[0]
    reason = f"{type(cause).__name__}: {first_line}"
    password = make_url(url).password
    return reason.replace(str(password), "***") if password else reason
