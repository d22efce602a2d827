"""A job's current input and output edges, told from its earlier runs' edges.

Adds ``input_rank``, ``input_run``, ``output_rank`` and ``output_run`` to
``openlineage_jobs``: the rank and run of the job's latest event that listed
inputs, and outputs. An input (output) edge is current when that run read
(wrote) the dataset, as ``openlineage_run_io`` records. Jobs stored before
stay NULL, and all their edges current, until an event of the job lists
inputs or outputs again.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_JOB_COLUMNS = (("input_rank", 64), ("input_run", 36), ("output_rank", 64), ("output_run", 36))


def upgrade() -> None:
    for name, length in _JOB_COLUMNS:
        op.add_column(table("openlineage_jobs"), sa.Column(name, sa.String(length), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table(table("openlineage_jobs")) as batch:
        for name, _length in _JOB_COLUMNS:
            batch.drop_column(name)
