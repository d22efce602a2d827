"""Run facets and run input/output facets are read from the run's events.

Drops ``openlineage_run_facets`` and the ``rank`` and ``facets`` columns of
``openlineage_run_io``, then the facet blobs nothing points at any more.
Nothing is lost: every value they held is in the run's stored events, which
:mod:`feast_lineage.consumer.store.run_facets` reads. A downgrade restores
the empty table and the columns (``rank`` empty), not their values.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_openlineage_run_facets_blob", table_name="openlineage_run_facets")
    op.drop_table("openlineage_run_facets")
    with op.batch_alter_table("openlineage_run_io") as batch:
        batch.drop_column("facets")
        batch.drop_column("rank")
    op.execute(
        "DELETE FROM openlineage_facet_blobs"
        " WHERE NOT EXISTS (SELECT 1 FROM openlineage_job_facets f"
        " WHERE f.blob_id = openlineage_facet_blobs.id)"
        " AND NOT EXISTS (SELECT 1 FROM openlineage_dataset_facets f"
        " WHERE f.blob_id = openlineage_facet_blobs.id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("openlineage_run_io") as batch:
        batch.add_column(sa.Column("rank", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("facets", sa.Text, nullable=True))
    op.create_table(
        "openlineage_run_facets",
        sa.Column("owner_id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("blob_id", sa.String(32), nullable=False),
    )
    op.create_index("ix_openlineage_run_facets_blob", "openlineage_run_facets", ["blob_id"])
