"""The longest run the store has held, for window answers: ``max_run_us`` in meta.

Window reads bound a run's start from below by ``since`` minus the longest
run (end minus start) the store has held; ingest raises the value
(``store/write/run_durations.py``). This sets it from the stored runs:
one aggregate over ``feast_lineage_runs`` (0 when no run has ended). Plain
SQL through table constructs: nothing from the live package.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

_KEY = "max_run_us"
_runs = sa.table(
    "feast_lineage_runs",
    sa.column("started_us", sa.BigInteger),
    sa.column("ended_us", sa.BigInteger),
)
_meta = sa.table("feast_lineage_meta", sa.column("key", sa.String), sa.column("value", sa.String))


def upgrade() -> None:
    conn = op.get_bind()
    longest = conn.execute(
        sa.select(sa.func.max(_runs.c.ended_us - _runs.c.started_us)).where(
            _runs.c.ended_us.is_not(None)
        )
    ).scalar_one_or_none()
    value = str(max(int(longest or 0), 0))
    conn.execute(sa.delete(_meta).where(_meta.c.key == _KEY))
    conn.execute(sa.insert(_meta).values(key=_KEY, value=value))


def downgrade() -> None:
    op.get_bind().execute(sa.delete(_meta).where(_meta.c.key == _KEY))
