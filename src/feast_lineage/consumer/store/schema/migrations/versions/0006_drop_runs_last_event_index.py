"""Drop the runs' ``last_event_us`` index: only retention read it.

A run's start time is never later than its last event, so retention finds
expired runs through ``ix_ol_runs_started`` (start time below the cutoff,
then last event below it too). Every COMPLETE event moved its run's entry in
this index, a page written per event for nothing else.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_ol_runs_last_event", table_name=table("openlineage_runs"))


def downgrade() -> None:
    op.create_index("ix_ol_runs_last_event", table("openlineage_runs"), ["last_event_us"])
