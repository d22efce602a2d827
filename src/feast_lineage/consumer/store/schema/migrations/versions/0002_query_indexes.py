"""Indexes for the query API: catalog order, filters, namespace scoping and reset.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from typing import Any

from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# MySQL indexes TEXT columns only by a prefix.
_TEXT: dict[str, Any] = {"mysql_length": {"namespace": 191, "name": 191}}
_NAME: dict[str, Any] = {"mysql_length": {"name": 191}}

# (index, the table by its name before 0008, columns, options)
_INDEXES: list[tuple[str, str, list[str], dict[str, Any]]] = [
    ("ix_ol_jobs_ns_name", "openlineage_jobs", ["namespace", "name"], _TEXT),
    ("ix_ol_jobs_name", "openlineage_jobs", ["name"], _NAME),
    ("ix_ol_datasets_ns_name", "openlineage_datasets", ["namespace", "name"], _TEXT),
    ("ix_ol_events_type_time", "openlineage_events", ["event_type", "event_time_us", "id"], {}),
    ("ix_ol_runs_state_started", "openlineage_runs", ["state", "started_us", "run_id"], {}),
    ("ix_ol_edges_ns", "openlineage_lineage_edges", ["src_ns_id", "dst_ns_id"], {}),
    ("ix_ol_edges_dst_ns", "openlineage_lineage_edges", ["dst_ns_id"], {}),
    ("ix_ol_symlinks_alias_ns", "openlineage_dataset_symlinks", ["alias_ns_id"], {}),
]


def upgrade() -> None:
    for name, old_table, columns, options in _INDEXES:
        op.create_index(name, table(old_table), columns, **options)


def downgrade() -> None:
    for name, old_table, _columns, _options in reversed(_INDEXES):
        op.drop_index(name, table_name=table(old_table))
