"""Run facets and run input/output facets are read from the run's events.

Drops ``openlineage_run_facets`` and the ``rank`` and ``facets`` columns of
``openlineage_run_io``, then the facet blobs nothing points at any more.
Nothing is lost: every value they held is in the run's stored events, which
:mod:`feast_lineage.consumer.store.read.run_facets` reads. A downgrade restores
the empty table and the columns (``rank`` empty), not their values.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_facets = table("openlineage_run_facets")
    op.drop_index(f"ix_{run_facets}_blob", table_name=run_facets)
    op.drop_table(run_facets)
    with op.batch_alter_table(table("openlineage_run_io")) as batch:
        batch.drop_column("facets")
        batch.drop_column("rank")
    blobs = table("openlineage_facet_blobs")
    op.execute(
        f"DELETE FROM {blobs}"
        f" WHERE NOT EXISTS (SELECT 1 FROM {table('openlineage_job_facets')} f"
        f" WHERE f.blob_id = {blobs}.id)"
        f" AND NOT EXISTS (SELECT 1 FROM {table('openlineage_dataset_facets')} f"
        f" WHERE f.blob_id = {blobs}.id)"
    )


def downgrade() -> None:
    with op.batch_alter_table(table("openlineage_run_io")) as batch:
        batch.add_column(sa.Column("rank", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("facets", sa.Text, nullable=True))
    op.create_table(
        table("openlineage_run_facets"),
        sa.Column("owner_id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("blob_id", sa.String(32), nullable=False),
    )
    run_facets = table("openlineage_run_facets")
    op.create_index(f"ix_{run_facets}_blob", run_facets, ["blob_id"])
