"""Counters of the store, kept in its meta table: every process adds to them.

A counter is added to inside a write transaction, which holds the store's
write lock (see transactions.py), so concurrent additions never lose one.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from feast_lineage.consumer.store.engine.meta import read_meta, write_meta
from feast_lineage.consumer.store.schema import tables as t

# Events stored whose eventTime had no UTC offset (taken as UTC).
NAIVE_EVENT_TIMES = "naive_event_times"
COUNTERS = (NAIVE_EVENT_TIMES,)
_PREFIX = "count:"


def add(conn: Connection, name: str, amount: int) -> None:
    """Add ``amount`` to the counter ``name``; call it in a write transaction."""
    key = _PREFIX + name
    current = read_meta(conn, key)
    write_meta(conn, key, str(int(current or 0) + amount))


def read_all(conn: Connection) -> dict[str, int]:
    """Every counter, 0 when nothing was counted yet."""
    keys = {_PREFIX + name: name for name in COUNTERS}
    rows = conn.execute(select(t.meta.c.key, t.meta.c.value).where(t.meta.c.key.in_(keys)))
    found = {keys[key]: int(value) for key, value in rows}
    return {name: found.get(name, 0) for name in COUNTERS}
