"""Payload dictionaries: ``feast_lineage_payload_dicts``.

The writer trains a Zstandard dictionary from a store's latest events once
it holds enough of them and compresses later payloads with it
(``store/write/payload_dictionary.py``); this table keeps the
dictionaries, by the id Zstandard writes in each frame that needs one. It
starts empty: the stored payloads stay as they are (each compressed alone,
readable without a dictionary), so this migration reads no event. A later
migration that reads payloads needs a frozen reader that takes the
dictionaries from this table: ``frozen/payloads_0009`` reads frames
compressed alone only, and fails on the others ("Dictionary mismatch").

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feast_lineage_payload_dicts",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    # Payloads compressed with a dictionary cannot be read without it: refuse, losing nothing.
    used = op.get_bind().execute(sa.text("SELECT count(*) FROM feast_lineage_payload_dicts"))
    if used.scalar_one():
        raise RuntimeError(
            "the store's events are compressed with its payload dictionary, which revision "
            "0024 cannot read: downgrading below 0025 would leave them unreadable"
        )
    op.drop_table("feast_lineage_payload_dicts")
