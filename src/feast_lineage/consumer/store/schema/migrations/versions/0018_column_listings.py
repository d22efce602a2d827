"""Column lineage as of an instant: one listing per event that stated column lineage.

Creates ``feast_lineage_column_listings``: per (output dataset, job,
origin), one row per event rank that stated a column lineage payload, with
the payload's digest, so the payload current at T is the last listing
ranked at or before T. A stored store's history is derived from what it
keeps, in plain SQL over its rows: each payload its column edges hold,
listed at its edges' first stored time, and each pointer's payload at the
pointer's rank (the latest). A payload stated again between other payloads
(A, B, A) is listed only at its first and (if current) latest statement:
as_of answers between them see the other payload, as docs/api.md says.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import insert_ignore

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# The event-time offset of ranks (feast_lineage.event_time.SORT_OFFSET as of 0018).
_SORT_OFFSET = 2_208_988_800_000_000

_meta = sa.MetaData()
_LISTINGS = sa.Table(
    "feast_lineage_column_listings",
    _meta,
    sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("job_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("origin", sa.String(16), primary_key=True),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(32), nullable=False),
    sa.Column("run_id", sa.String(36), nullable=True),
    sa.Column("ns_id", sa.BigInteger, nullable=False),
    sa.Index("ix_ol_column_listings_job", "job_id"),
    sqlite_with_rowid=False,
)
_pointers = sa.table(
    "feast_lineage_column_lineage",
    sa.column("dataset_id", sa.BigInteger),
    sa.column("job_id", sa.BigInteger),
    sa.column("origin", sa.String),
    sa.column("rank", sa.String),
    sa.column("digest", sa.String),
    sa.column("run_id", sa.String),
    sa.column("ns_id", sa.BigInteger),
)
_edges = sa.table(
    "feast_lineage_column_edges",
    sa.column("dst_dataset_id", sa.BigInteger),
    sa.column("dst_ns_id", sa.BigInteger),
    sa.column("job_id", sa.BigInteger),
    sa.column("origin", sa.String),
    sa.column("digest", sa.String),
    sa.column("created_us", sa.BigInteger),
)
_KEY = ["dataset_id", "job_id", "origin", "rank"]


def upgrade() -> None:
    conn = op.get_bind()
    _LISTINGS.create(conn)
    chunk = chunk_size()
    p = _pointers.c
    pointers = conn.execute(
        sa.select(p.dataset_id, p.job_id, p.origin, p.rank, p.digest, p.run_id, p.ns_id)
    ).all()
    _insert(conn, [dict(row._mapping) for row in pointers], chunk)
    e = _edges.c
    payloads = conn.execute(
        sa.select(
            e.dst_dataset_id, e.job_id, e.origin, e.digest, e.dst_ns_id, sa.func.min(e.created_us)
        ).group_by(e.dst_dataset_id, e.job_id, e.origin, e.digest, e.dst_ns_id)
    ).all()
    rows = [
        {
            "dataset_id": dataset,
            "job_id": job,
            "origin": origin,
            "rank": f"{int(first) + _SORT_OFFSET:020d}{digest}",
            "digest": digest,
            "run_id": None,
            "ns_id": ns,
        }
        for dataset, job, origin, digest, ns, first in payloads
    ]
    _insert(conn, rows, chunk)


def _insert(conn: sa.Connection, rows: list[dict[str, object]], chunk: int) -> None:
    for start in range(0, len(rows), chunk):
        conn.execute(insert_ignore(conn, _LISTINGS, _KEY), rows[start : start + chunk])


def downgrade() -> None:
    _LISTINGS.drop(op.get_bind())
