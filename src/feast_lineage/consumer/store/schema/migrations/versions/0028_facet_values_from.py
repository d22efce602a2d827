"""From which instant a dataset facet's payloads are all known: the store's horizon when
migration 0026 derived them.

As of an instant T, a dataset facet whose payloads first stated by T are one
was that payload then (``read/dataset_facets_at.only_payloads``): every
statement has a row in ``feast_lineage_dataset_facet_values`` at or after
its first. Ingest writes one for each statement, and a prune keeps them;
but migration 0026 derived the rows of a store written before it from the
events it still held, so a payload whose every event an earlier prune had
removed has none. Such statements are all before the retention horizon of
that time. This records it in ``feast_lineage_meta`` (key
``facet_values_from``, microseconds): a sole payload first stated before it
is not claimed. A store upgraded from before 0026 in the same run records
the horizon 0026 used; one already past 0026 records its horizon now, which
is at or after that one (claiming less, never more). A store never pruned
records nothing.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

_META = sa.table("feast_lineage_meta", sa.column("key", sa.String), sa.column("value", sa.Text))
_HORIZON_KEY = "dataset_versions_horizon"  # the cutoff (µs) of the latest prune
_FROM_KEY = "facet_values_from"


def upgrade() -> None:
    conn = op.get_bind()
    m = _META.c
    horizon = conn.execute(sa.select(m.value).where(m.key == _HORIZON_KEY)).scalar()
    if horizon is not None:
        conn.execute(sa.insert(_META).values(key=_FROM_KEY, value=str(horizon)))


def downgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.delete(_META).where(_META.c.key == _FROM_KEY))
