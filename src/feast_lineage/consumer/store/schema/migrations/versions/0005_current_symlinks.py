"""A dataset's current aliases, told from those an earlier symlinks facet named.

Adds ``openlineage_symlink_listings``: which aliases each SymlinksDatasetFacet
payload (a facet blob) lists, and a row with ``alias_id`` 0 per payload. A
symlink from the facet is current when the dataset's latest symlinks facet
lists it. Payloads stored before have no rows, and their aliases stay
current until a new payload of the dataset's symlinks facet arrives.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        table("openlineage_symlink_listings"),
        sa.Column("blob_id", sa.String(32), primary_key=True),
        sa.Column("alias_id", sa.BigInteger, primary_key=True, autoincrement=False),
    )


def downgrade() -> None:
    op.drop_table(table("openlineage_symlink_listings"))
