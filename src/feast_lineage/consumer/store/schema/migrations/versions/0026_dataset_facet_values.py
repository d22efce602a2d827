"""A dataset facet's payloads and the bound above which it states the current one.

A dataset's facets as of an instant T were those whose latest statement is
by T; a facet stated again since (every run restates its outputs' facets)
was left out of pages, as reading its events for each dataset of a page
costs too much. Two facts answer most of them without events:
``feast_lineage_dataset_facets.other_rank``, a rank above which every
statement of the facet states the current payload (the latest statement of
another payload), and ``feast_lineage_dataset_facet_values``, each payload's
first statement. When the current payload's first statement is above the
bound and by T, the facet was that payload at T.

This adds both. What the stored facets say is all that is claimed: each
facet's current payload counts from its latest statement (its first
statement known), and the bound sits just below that rank (at or above
every other rank: nothing older is known to agree), so a store upgraded here
answers as before for instants before each facet's latest statement at the
upgrade, and knows the facets restated since with the same payload from
then on. No event is read; the rows are read and updated in chunks.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

_FACETS = "feast_lineage_dataset_facets"
_VALUES = "feast_lineage_dataset_facet_values"


def upgrade() -> None:
    op.add_column(
        _FACETS, sa.Column("other_rank", sa.String(64), nullable=False, server_default="")
    )
    _bound_below_latest(op.get_bind(), chunk_size())
    with op.batch_alter_table(_FACETS) as batch:  # ingest gives every row its own
        batch.alter_column("other_rank", server_default=None, existing_type=sa.String(64))
    op.create_table(
        _VALUES,
        sa.Column("owner_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("blob_id", sa.String(32), primary_key=True),
        sa.Column("first_rank", sa.String(64), nullable=False),
        sqlite_with_rowid=False,
    )
    op.execute(
        f"INSERT INTO {_VALUES} (owner_id, name, blob_id, first_rank)"
        f" SELECT owner_id, name, blob_id, rank FROM {_FACETS}"
    )


_DIGITS = "0123456789abcdef"  # what ranks are written in, in the order every collation keeps


def below(rank: str) -> str:
    """The greatest text of ``rank``'s length and characters below ``rank``: above every
    other rank. Ranks are of one length (the event time in 20 digits, then 16 hex digits of
    the event's digest), and texts of one length in these characters compare alike in
    every database and collation. A rank of zeros has none below, and one of other
    characters (none that ingest writes) is not worked out: each is its own bound (nothing
    older claimed either way)."""
    if rank.strip(_DIGITS):
        return rank
    for i in range(len(rank) - 1, -1, -1):
        if rank[i] != "0":
            return rank[:i] + _DIGITS[_DIGITS.index(rank[i]) - 1] + "f" * (len(rank) - i - 1)
    return rank


def _bound_below_latest(conn: sa.Connection, chunk: int) -> None:
    facets = sa.table(
        _FACETS,
        sa.column("owner_id", sa.BigInteger),
        sa.column("name", sa.String),
        sa.column("rank", sa.String),
        sa.column("other_rank", sa.String),
    )
    c = facets.c
    update = (
        sa.update(facets)
        .where(c.owner_id == sa.bindparam("owner"), c.name == sa.bindparam("facet"))
        .values(other_rank=sa.bindparam("bound"))
    )
    after: tuple[int, str] | None = None
    while True:
        page = sa.select(c.owner_id, c.name, c.rank).order_by(c.owner_id, c.name).limit(chunk)
        if after is not None:
            page = page.where(
                sa.or_(c.owner_id > after[0], sa.and_(c.owner_id == after[0], c.name > after[1]))
            )
        rows = conn.execute(page).all()
        if not rows:
            return
        conn.execute(update, [{"owner": o, "facet": n, "bound": below(str(r))} for o, n, r in rows])
        after = (int(rows[-1][0]), str(rows[-1][1]))


def downgrade() -> None:
    op.drop_table(_VALUES)
    with op.batch_alter_table(_FACETS) as batch:
        batch.drop_column("other_rank")
