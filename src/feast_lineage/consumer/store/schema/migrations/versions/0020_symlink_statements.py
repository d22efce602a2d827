"""Symlinks as of an instant: one statement per event that stated a dataset's symlinks facet.

Creates ``feast_lineage_symlink_statements``: per dataset, one row per
event rank that carried a ``symlinks`` facet, with the payload's blob id,
so the aliases a dataset had at T are those its last statement ranked at
or before T lists (``feast_lineage_symlink_listings``). A stored store's
history is derived from what it keeps, in plain SQL over its rows: every
dataset version row's symlinks blob (every write and lifecycle change) at
its event time, every dataset state row's at its rank (the earliest
statement of each state), and the current facet at its rank. A payload
stated again by reads only, between other payloads (A, B, A), is listed
at its first statement: as_of answers after the second A see B until the
next write, as docs/api.md says.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import insert_ignore

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

# The event-time offset of ranks (feast_lineage.event_time.SORT_OFFSET as of 0020).
_SORT_OFFSET = 2_208_988_800_000_000

_meta = sa.MetaData()
_STATEMENTS = sa.Table(
    "feast_lineage_symlink_statements",
    _meta,
    sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("blob_id", sa.String(32), nullable=False),
    sqlite_with_rowid=False,
)
_versions = sa.table(
    "feast_lineage_dataset_versions",
    sa.column("dataset_id", sa.BigInteger),
    sa.column("time_us", sa.BigInteger),
    sa.column("symlinks_id", sa.String),
)
_states = sa.table(
    "feast_lineage_dataset_states",
    sa.column("dataset_id", sa.BigInteger),
    sa.column("rank", sa.String),
    sa.column("symlinks_id", sa.String),
)
_facets = sa.table(
    "feast_lineage_dataset_facets",
    sa.column("owner_id", sa.BigInteger),
    sa.column("name", sa.String),
    sa.column("rank", sa.String),
    sa.column("blob_id", sa.String),
)
_KEY = ["dataset_id", "rank"]


def upgrade() -> None:
    conn = op.get_bind()
    _STATEMENTS.create(conn)
    chunk = chunk_size()
    f, s, v = _facets.c, _states.c, _versions.c
    current = sa.select(f.owner_id, f.rank, f.blob_id).where(f.name == "symlinks")
    stated = sa.select(s.dataset_id, s.rank, s.symlinks_id).where(s.symlinks_id.is_not(None))
    rows = [
        {"dataset_id": ds, "rank": rank, "blob_id": blob}
        for query in (current, stated)
        for ds, rank, blob in conn.execute(query)
    ]
    written = sa.select(v.dataset_id, v.time_us, v.symlinks_id).where(v.symlinks_id.is_not(None))
    # A version row keeps the event time, not the rank: the least rank of that time.
    rows += [
        {"dataset_id": ds, "rank": f"{int(time_us) + _SORT_OFFSET:020d}", "blob_id": blob}
        for ds, time_us, blob in conn.execute(written)
    ]
    # One statement a time and payload: a state's or the facet's full rank over a version's.
    best: dict[tuple[object, str, object], dict[str, object]] = {}
    for row in rows:
        key = (row["dataset_id"], str(row["rank"])[:20], row["blob_id"])
        if key not in best or len(str(row["rank"])) > len(str(best[key]["rank"])):
            best[key] = row
    rows = list(best.values())
    for start in range(0, len(rows), chunk):
        conn.execute(insert_ignore(conn, _STATEMENTS, _KEY), rows[start : start + chunk])


def downgrade() -> None:
    _STATEMENTS.drop(op.get_bind())
