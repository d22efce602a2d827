"""The few statements whose SQL differs by database: upserts and row locks.

SQLite and PostgreSQL share ``INSERT ... ON CONFLICT``; MySQL's
``ON DUPLICATE KEY UPDATE`` is the equivalent, with its own spelling of the
incoming row. Everything else in the store is portable SQLAlchemy Core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, Table
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.sql.dml import Insert

# (existing row's columns, incoming row's columns) -> {column: new value}
SetBuilder = Callable[[Any, Any], dict[str, ColumnElement[Any]]]
WhereBuilder = Callable[[Any, Any], ColumnElement[bool]]


def insert_ignore(conn: Connection, table: Table, keys: Sequence[str]) -> Insert:
    name = conn.dialect.name
    if name == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=list(keys))
    if name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=list(keys))
    if name in {"mysql", "mariadb"}:
        return mysql.insert(table).prefix_with("IGNORE")
    raise NotImplementedError(f"database {name!r} is not supported")


def upsert(
    conn: Connection,
    table: Table,
    keys: Sequence[str],
    set_: SetBuilder,
    where: WhereBuilder | None = None,
) -> Insert:
    """``INSERT``, or on a key conflict update the row with ``set_(existing, incoming)``.

    ``where`` limits the update (rows it rejects are left alone, not rewritten).
    """
    name = conn.dialect.name
    if name in {"sqlite", "postgresql"}:
        module: Any = sqlite if name == "sqlite" else postgresql
        stmt = module.insert(table)
        result: Insert = stmt.on_conflict_do_update(
            index_elements=list(keys),
            set_=set_(table.c, stmt.excluded),
            where=where(table.c, stmt.excluded) if where is not None else None,
        )
        return result
    if name in {"mysql", "mariadb"}:
        stmt = mysql.insert(table)
        values = set_(table.c, stmt.inserted)
        if where is not None:
            from sqlalchemy import case

            cond = where(table.c, stmt.inserted)
            values = {k: case((cond, v), else_=table.c[k]) for k, v in values.items()}
        return stmt.on_duplicate_key_update(values)
    raise NotImplementedError(f"database {name!r} is not supported")
