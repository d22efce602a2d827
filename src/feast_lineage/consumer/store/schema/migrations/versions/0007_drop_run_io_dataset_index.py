"""Drop ``openlineage_run_io``'s dataset index: only a namespace reset read it.

A reset now finds other runs' inputs and outputs of its datasets through the
jobs its datasets have edges with (their runs, their JobEvents, and the
JobEvents kept as their current inputs or outputs). Every new input or
output of a run wrote an entry at a random place in this index.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_ol_run_io_dataset", table_name=table("openlineage_run_io"))


def downgrade() -> None:
    op.create_index("ix_ol_run_io_dataset", table("openlineage_run_io"), ["dataset_id"])
