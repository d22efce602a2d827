"""Drop two indexes that ingest kept up for one rare reader each.

The runs' ``last_event_us`` index, read only by retention: a run's start
time is never later than its last event, so retention finds expired runs
through ``ix_ol_runs_started`` (start time below the cutoff, then last event
below it too). Every COMPLETE event moved its run's entry in it.

``openlineage_run_io``'s dataset index, read only by a namespace reset,
which now finds other runs' inputs and outputs of its datasets through the
jobs its datasets have edges with. Every new input or output of a run
wrote an entry at a random place in it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_ol_runs_last_event", table_name="openlineage_runs")
    op.drop_index("ix_ol_run_io_dataset", table_name="openlineage_run_io")


def downgrade() -> None:
    op.create_index("ix_ol_run_io_dataset", "openlineage_run_io", ["dataset_id"])
    op.create_index("ix_ol_runs_last_event", "openlineage_runs", ["last_event_us"])
