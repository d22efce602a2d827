"""The few statements whose SQL differs by database: upserts and row locks.

SQLite and PostgreSQL share ``INSERT ... ON CONFLICT``; MySQL's
``ON DUPLICATE KEY UPDATE`` is the equivalent, with its own spelling of the
incoming row and one trap: it assigns the columns left to right, and each
assignment reads the columns assigned before it, not the stored row. So on
MySQL (and MariaDB) a column is assigned before every column that another
assignment reads (:func:`_assignment_order`), and ``where`` is not used:
the ``set_`` builders return the stored value wherever ``where`` would
reject the update, so it only spares rows from being rewritten on SQLite and
PostgreSQL. Everything else in the store is portable SQLAlchemy Core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Column, ColumnElement, Connection, Table
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.sql import visitors
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

    ``where`` limits the update (rows it rejects are left alone, not
    rewritten); ``set_`` must give the stored values for those rows anyway,
    since MySQL does not use ``where``.
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
        return stmt.on_duplicate_key_update(_assignment_order(table, set_(table.c, stmt.inserted)))
    raise NotImplementedError(f"database {name!r} is not supported")


def _assignment_order(
    table: Table, values: dict[str, ColumnElement[Any]]
) -> list[tuple[str, ColumnElement[Any]]]:
    """``values`` in an order where no assignment reads a column assigned before it.

    Each column goes before every other column whose stored value its
    expression reads; ties keep the builder's order. A cycle cannot be
    ordered, and is a bug in the builder.
    """
    reads = {
        key: {c.name for c in visitors.iterate(value) if isinstance(c, Column) and c.table is table}
        - {key}
        for key, value in values.items()
    }
    ordered: list[tuple[str, ColumnElement[Any]]] = []
    left = list(values)
    while left:
        # A column can go once no column still to be assigned reads it.
        ready = next((k for k in left if not any(k in reads[o] for o in left if o != k)), None)
        if ready is None:
            raise ValueError(f"the update of {table.name} reads its columns in a cycle: {left}")
        ordered.append((ready, values[ready]))
        left.remove(ready)
    return ordered
