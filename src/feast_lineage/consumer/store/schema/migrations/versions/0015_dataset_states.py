"""Dataset states: statements of a dataset's schema, version or symlinks, one row per state.

0012 kept one row per (event, dataset) for every event that stated a
followed facet, so a table read by a thousand runs had two thousand rows
saying the same schema. This adds ``feast_lineage_dataset_states`` (see
``store/schema/tables.py``): one row per (dataset, state), a state being
the schema blob, ``datasetVersion`` and symlinks blob stated together,
holding its earliest statement. The statement rows of
``feast_lineage_dataset_versions`` (neither a write nor a lifecycle change)
become those rows, merged as ingest merges them (the highest rank, from
the frozen :mod:`..frozen.dataset_states_0015`), and are deleted; writes
and lifecycle changes stay as they are, ids unchanged.

Rows are read in chunks in key order; memory holds one chunk and the
states found so far (one per distinct state of a dataset, not per event).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.dataset_states_0015 import (
    state_id,
    state_rank,
)

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_TABLE = "feast_lineage_dataset_states"
_STATED = ("schema_id", "dataset_version", "symlinks_id")


def upgrade() -> None:
    table = op.create_table(
        _TABLE,
        sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("time_us", sa.BigInteger, nullable=False),
        sa.Column("run_id", sa.LargeBinary, nullable=True),
        sa.Column("job_id", sa.BigInteger, nullable=True),
        sa.Column("event_type", sa.Integer, nullable=True),
        sa.Column("schema_id", sa.String(32), nullable=True),
        sa.Column("dataset_version", sa.Text, nullable=True),
        sa.Column("symlinks_id", sa.String(32), nullable=True),
        sqlite_with_rowid=False,
    )
    _fold(op.get_bind(), table)


def downgrade() -> None:
    """Put each state back as the statement row 0012 would have kept for its earliest event."""
    conn = op.get_bind()
    versions = _versions()
    states = sa.table(
        _TABLE,
        *(sa.column(n) for n in ("dataset_id", "id", "time_us", "run_id", "job_id")),
        *(sa.column(n) for n in ("event_type", *_STATED)),
    )
    rows = [
        {
            **{k: getattr(row, k) for k in ("dataset_id", "time_us", "run_id", "job_id")},
            **{k: getattr(row, k) for k in ("event_type", *_STATED)},
            "id": row.id,
            "writes": 0,
            "lifecycle_id": None,
            "row_count": None,
            "byte_count": None,
            "file_count": None,
            "facets_digest": row.id,
        }
        for row in conn.execute(sa.select(states))
    ]
    if rows:
        conn.execute(versions.insert(), rows)
    op.drop_table(_TABLE)


def _versions() -> sa.TableClause:
    return sa.table(
        "feast_lineage_dataset_versions",
        *(sa.column(n) for n in ("dataset_id", "time_us", "id", "run_id", "job_id")),
        *(sa.column(n) for n in ("event_type", "writes", "lifecycle_id", *_STATED)),
        *(sa.column(n) for n in ("row_count", "byte_count", "file_count", "facets_digest")),
    )


def _state(row: Any) -> dict[str, Any]:
    run_id = bytes(row.run_id) if row.run_id is not None else None
    return {
        "dataset_id": row.dataset_id,
        "id": state_id(row.dataset_id, row.schema_id, row.dataset_version, row.symlinks_id),
        "rank": state_rank(row.time_us, run_id, row.event_type),
        "time_us": row.time_us,
        "run_id": run_id,
        "job_id": row.job_id,
        "event_type": row.event_type,
        "schema_id": row.schema_id,
        "dataset_version": row.dataset_version,
        "symlinks_id": row.symlinks_id,
    }


def _fold(conn: sa.Connection, table: sa.Table) -> None:
    chunk = chunk_size()
    versions = _versions()
    v = versions.c
    statement = sa.and_(v.writes == 0, v.lifecycle_id.is_(None))
    columns = (
        v.dataset_id,
        v.time_us,
        v.id,
        v.run_id,
        v.job_id,
        v.event_type,
        *(getattr(v, n) for n in _STATED),
    )
    found: dict[tuple[int, int], dict[str, Any]] = {}
    after: tuple[int, int, int] | None = None
    while True:
        stmt = sa.select(*columns).where(statement)
        if after is not None:
            stmt = stmt.where(sa.tuple_(v.dataset_id, v.time_us, v.id) > sa.tuple_(*after))
        rows = conn.execute(stmt.order_by(v.dataset_id, v.time_us, v.id).limit(chunk)).all()
        for row in rows:
            state = _state(row)
            key = (state["dataset_id"], state["id"])
            old = found.get(key)
            if old is None or state["rank"] > old["rank"]:
                found[key] = state
        if len(rows) < chunk:
            break
        after = (rows[-1].dataset_id, rows[-1].time_us, rows[-1].id)
    new = list(found.values())
    for start in range(0, len(new), chunk):
        conn.execute(table.insert(), new[start : start + chunk])
    conn.execute(sa.delete(versions).where(statement))
