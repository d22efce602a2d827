"""The longest a run's START came after its first event: ``max_start_lead_us`` in meta.

A job's latest run at an instant is the one started last by then; a run
whose START came later than the instant had started then at its first
event. The as-of reads find those runs within this bound of the instant
instead of sorting every run of the job; ingest raises it
(``store/write/run_durations.py``). This sets it from the stored runs:
one aggregate over ``feast_lineage_runs`` (0 when every run's START came
first or never). Plain SQL through table constructs: nothing from the
live package.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_KEY = "max_start_lead_us"
_runs = sa.table(
    "feast_lineage_runs",
    sa.column("started_us", sa.BigInteger),
    sa.column("first_event_us", sa.BigInteger),
)
_meta = sa.table("feast_lineage_meta", sa.column("key", sa.String), sa.column("value", sa.String))


def upgrade() -> None:
    conn = op.get_bind()
    lead = conn.execute(
        sa.select(sa.func.max(_runs.c.started_us - _runs.c.first_event_us))
    ).scalar_one_or_none()
    value = str(max(int(lead or 0), 0))
    conn.execute(sa.delete(_meta).where(_meta.c.key == _KEY))
    conn.execute(sa.insert(_meta).values(key=_KEY, value=value))


def downgrade() -> None:
    op.get_bind().execute(sa.delete(_meta).where(_meta.c.key == _KEY))
