"""The store's meta table: small named values, above all the store ``generation``.

Reset and prune bump the generation in the same transaction as their
deletes (:func:`bump_generation`); every write transaction reads it first
(:func:`read_generation`) and drops its :class:`~.write_cache.WriteCache`
when it changed.
"""

from __future__ import annotations

from sqlalchemy import Connection, select, update
from sqlalchemy.engine import Dialect

from feast_lineage.consumer.store.engine.dialect import insert_ignore, upsert
from feast_lineage.consumer.store.schema import tables as t

GENERATION_KEY = "generation"
# The longest run (end minus start, µs) the store has held: raised at ingest,
# never lowered (:mod:`..write.run_durations`), read by window answers.
MAX_RUN_KEY = "max_run_us"
# The longest a run's START came after its first event (µs), raised at ingest,
# never lowered by it, read by the as-of reads of a job's latest run.
MAX_LEAD_KEY = "max_start_lead_us"
# The retention horizon (µs) when migration 0026 derived the dataset facets' payloads
# from the events a store held (set by migration 0028; absent: every statement has its
# row): a payload stated only before it may have none.
FACET_VALUES_FROM_KEY = "facet_values_from"


def ensure_meta(conn: Connection) -> None:
    conn.execute(
        insert_ignore(conn, t.meta, ["key"]),
        [
            {"key": GENERATION_KEY, "value": "0"},
            {"key": MAX_RUN_KEY, "value": "0"},
            {"key": MAX_LEAD_KEY, "value": "0"},
        ],
    )


def read_meta(conn: Connection, key: str) -> str | None:
    """A value of the store's meta table (generation, retention state)."""
    value: str | None = conn.execute(
        select(t.meta.c.value).where(t.meta.c.key == key)
    ).scalar_one_or_none()
    return value


def generation(conn: Connection) -> str:
    """The store generation (changes on every reset and prune)."""
    return read_meta(conn, GENERATION_KEY) or "0"


def write_meta(conn: Connection, key: str, value: str) -> None:
    """Set a value of the store's meta table."""
    stmt = upsert(conn, t.meta, ["key"], lambda _c, x: {"value": x.value})
    conn.execute(stmt, [{"key": key, "value": value}])


def _generation_sql(dialect: Dialect) -> str:
    # The driver's own parameter style: sqlite3 takes :name, psycopg and the
    # MySQL drivers %(name)s. "key" is a reserved word in MySQL: quoted.
    if dialect.name == "sqlite":
        key, lock = ":key", ""
    elif dialect.name in {"mysql", "mariadb"}:
        key, lock = "%(key)s", " LOCK IN SHARE MODE"
    else:
        key, lock = "%(key)s", " FOR SHARE"
    column = dialect.identifier_preparer.quote(t.meta.c.key.name)
    return f"SELECT value FROM {t.meta.name} WHERE {column} = {key}{lock}"


def read_generation(conn: Connection) -> str:
    """The store generation, locked against a concurrent reset until commit.

    Read once per write transaction, so straight through the driver (the
    query is fixed; SQLAlchemy's statement machinery costs more than it).
    """
    sql = _generation_sql(conn.dialect)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql, {"key": GENERATION_KEY})
        row = cursor.fetchone()
    finally:
        cursor.close()
    return str(row[0]) if row is not None else "0"


def bump_generation(conn: Connection) -> None:
    current = int(read_generation(conn))
    conn.execute(
        update(t.meta).where(t.meta.c.key == GENERATION_KEY).values(value=str(current + 1))
    )
