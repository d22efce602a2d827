"""Whose event set a dataset's producer and update time: a scoped read withholds a hidden one's.

A dataset's ``producer`` and ``updated_us`` are set by whichever event last
wrote it (or first read it) and whichever event last named it, whatever the
namespace of that event's job. A dataset a caller may see can be written or
read by a job of a namespace the caller may not see, and the two values
then told that caller the hidden job's producer and when it ran.

``feast_lineage_datasets`` gains ``producer_ns_id`` and ``updated_ns_id``:
the namespace of the event that set each (its job's; a DatasetEvent's, the
dataset's own), which ingest writes on the row it already updates. A read
shows a scoped caller the producer and the update time only when it may see
that namespace. The columns stay null for the rows stored before: unknown,
so a scoped caller is shown neither until a later event sets them, and an
unscoped one sees them as before. Adding a nullable column without a
default rewrites no row on SQLite, PostgreSQL or MariaDB.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

_DATASETS = "feast_lineage_datasets"
_COLUMNS = ("producer_ns_id", "updated_ns_id")


def upgrade() -> None:
    for name in _COLUMNS:
        op.add_column(_DATASETS, sa.Column(name, sa.BigInteger, nullable=True))


def downgrade() -> None:
    for name in reversed(_COLUMNS):
        op.drop_column(_DATASETS, name)
