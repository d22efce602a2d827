"""Indexes the reads of the past seek: a job's runs by end, a dataset's states by time, the
run tree's edges by time.

A window's lineage counts a run with no end event that started before the
window (a run whose end never came). Found through the ``(job_id,
started_us)`` index, that read every run of the job started before the
window, once per edge a window walk tested; ``(job_id, ended_us,
started_us)`` finds the job's open runs (``ended_us`` null) directly.

A dataset's version as of an instant needs its latest state row by then;
the states' key has no time, so that read every state row of the dataset
(62 a dataset on the 1M history store). ``(dataset_id, time_us)`` makes it
one backward seek.

The parent and root edges current at an instant are those stored by then:
``(edge_type, created_us)`` reads them as two ranges instead of every
edge (55,804 at 1M events, of which 2,428 are parent or root edges).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_ol_runs_job_open", "feast_lineage_runs", ["job_id", "ended_us", "started_us"]
    )
    op.create_index(
        "ix_ol_dataset_states_time", "feast_lineage_dataset_states", ["dataset_id", "time_us"]
    )
    op.create_index("ix_ol_edges_type_time", "feast_lineage_edges", ["edge_type", "created_us"])


def downgrade() -> None:
    op.drop_index("ix_ol_edges_type_time", table_name="feast_lineage_edges")
    op.drop_index("ix_ol_dataset_states_time", table_name="feast_lineage_dataset_states")
    op.drop_index("ix_ol_runs_job_open", table_name="feast_lineage_runs")
