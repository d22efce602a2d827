"""Index runs by their root run: a run tree finds the runs that name its root.

A run whose parent never arrived still names the root of its tree (the
``parent`` facet's ``root``); the run tree (:mod:`...read.run_tree`) finds
such runs by this index, and the runs below them by the parent index.
No data changes: runs already keep ``root_run_id``.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ol_runs_root", "feast_lineage_runs", ["root_run_id"])


def downgrade() -> None:
    op.drop_index("ix_ol_runs_root", table_name="feast_lineage_runs")
