"""Lineage as of an instant: the jobs' io listings and when each run first listed a dataset.

Creates ``feast_lineage_io_listings`` (one row per (event, direction) whose
event listed datasets: job, direction, the event's rank, the run or
JobEvent key) and adds ``first_us`` to ``feast_lineage_run_io`` (the
earliest eventTime at which the run listed the dataset). Both are filled
from the stored events as ingest would have: one pass over the events in id
order, a chunk at a time (memory: one chunk of events and its rows), the
listings inserted once, each ``first_us`` lowered to the least time seen.
A ``run_io`` row no stored event names (its events were pruned) gets 0:
known since ever. What it needs (decompressing a payload, the rank from an
event key, dataset ids) comes from the frozen modules of migration 0009.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import insert_ignore
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import dataset_id
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import decompress, rank

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_meta = sa.MetaData()
_LISTINGS = sa.Table(
    "feast_lineage_io_listings",
    _meta,
    sa.Column("job_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("direction", sa.String(6), primary_key=True),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("run_key", sa.String(36), nullable=False),
    sqlite_with_rowid=False,
)
_events = sa.table(
    "feast_lineage_events",
    sa.column("id", sa.BigInteger),
    sa.column("event_key", sa.String),
    sa.column("kind", sa.String),
    sa.column("event_time_us", sa.BigInteger),
    sa.column("subject_id", sa.BigInteger),
    sa.column("run_id", sa.String),
    sa.column("payload", sa.LargeBinary),
)
_run_io = sa.table(
    "feast_lineage_run_io",
    sa.column("run_id", sa.String),
    sa.column("dataset_id", sa.BigInteger),
    sa.column("direction", sa.String),
    sa.column("first_us", sa.BigInteger),
)

# (run key, dataset, direction) -> the least event time that listed it
_Firsts = dict[tuple[str, int, str], int]


def upgrade() -> None:
    conn = op.get_bind()
    _LISTINGS.create(conn)
    op.add_column("feast_lineage_run_io", sa.Column("first_us", sa.BigInteger, nullable=True))
    _backfill(conn, chunk_size())
    io = _run_io.c
    conn.execute(sa.update(_run_io).where(io.first_us.is_(None)).values(first_us=0))


def downgrade() -> None:
    conn = op.get_bind()
    with op.batch_alter_table("feast_lineage_run_io") as batch:
        batch.drop_column("first_us")
    _LISTINGS.drop(conn)


def _backfill(conn: sa.Connection, chunk: int) -> None:
    """Each RunEvent's and JobEvent's listings, and the runs' first times, a chunk at a time."""
    e = _events.c
    after = -1
    while True:
        rows = conn.execute(
            sa.select(e.id, e.event_key, e.kind, e.event_time_us, e.subject_id, e.run_id, e.payload)
            .where(e.id > after, e.kind.in_(("run", "job")))
            .order_by(e.id)
            .limit(chunk)
        ).all()
        if not rows:
            return
        after = rows[-1].id
        listings: dict[tuple[int, str, str], dict[str, Any]] = {}
        firsts: _Firsts = {}
        for row in rows:
            try:
                event = orjson.loads(decompress(bytes(row.payload)))
            except orjson.JSONDecodeError:
                continue
            key = row.run_id if row.kind == "run" else row.event_key
            if not isinstance(event, dict) or key is None:
                continue
            _event_io(event, key, row, listings, firsts)
        if listings:
            keys = ["job_id", "direction", "rank"]
            conn.execute(insert_ignore(conn, _LISTINGS, keys), list(listings.values()))
        _lower_firsts(conn, firsts)


def _event_io(
    event: dict[str, Any],
    key: str,
    row: Any,
    listings: dict[tuple[int, str, str], dict[str, Any]],
    firsts: _Firsts,
) -> None:
    event_rank = rank(row.event_key)
    for direction, listed_key in (("input", "inputs"), ("output", "outputs")):
        listed = event.get(listed_key)
        if not isinstance(listed, list) or not listed:
            continue
        listings[(row.subject_id, direction, event_rank)] = {
            "job_id": row.subject_id,
            "direction": direction,
            "rank": event_rank,
            "run_key": key,
        }
        for ds in listed:
            if not (
                isinstance(ds, dict)
                and isinstance(ds.get("namespace"), str)
                and isinstance(ds.get("name"), str)
            ):
                continue
            io_key = (key, dataset_id(ds["namespace"], ds["name"]), direction)
            known = firsts.get(io_key)
            if known is None or row.event_time_us < known:
                firsts[io_key] = row.event_time_us


def _lower_firsts(conn: sa.Connection, firsts: _Firsts) -> None:
    if not firsts:
        return
    io = _run_io.c
    stmt = (
        sa.update(_run_io)
        .where(
            io.run_id == sa.bindparam("k_run"),
            io.dataset_id == sa.bindparam("k_dataset"),
            io.direction == sa.bindparam("k_direction"),
            sa.or_(io.first_us.is_(None), io.first_us > sa.bindparam("k_first")),
        )
        .values(first_us=sa.bindparam("k_first"))
    )
    params = [
        {"k_run": run, "k_dataset": did, "k_direction": direction, "k_first": first}
        for (run, did, direction), first in firsts.items()
    ]
    conn.execute(stmt, params)
