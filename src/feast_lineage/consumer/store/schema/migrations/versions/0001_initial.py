"""The initial lineage store.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import table

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_AUTO_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _facets(name: str, owner: sa.types.TypeEngine[Any]) -> None:
    op.create_table(
        name,
        sa.Column("owner_id", owner, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("blob_id", sa.String(32), nullable=False),
    )
    op.create_index(f"ix_{name}_blob", name, ["blob_id"])


def upgrade() -> None:
    op.create_table(
        table("openlineage_events"),
        sa.Column("id", _AUTO_ID, primary_key=True, autoincrement=True),
        sa.Column("event_key", sa.String(32), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("event_type", sa.String(16), nullable=True),
        sa.Column("event_time_us", sa.BigInteger, nullable=False),
        sa.Column("received_us", sa.BigInteger, nullable=False),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
        sa.Column("subject_id", sa.BigInteger, nullable=False),
        sa.Column("run_id", sa.String(36), nullable=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_ol_events_time", table("openlineage_events"), ["event_time_us", "id"])
    op.create_index(
        "ix_ol_events_ns_time", table("openlineage_events"), ["ns_id", "event_time_us", "id"]
    )
    op.create_index(
        "ix_ol_events_subject_time",
        table("openlineage_events"),
        ["subject_id", "event_time_us", "id"],
    )
    op.create_index("ix_ol_events_run", table("openlineage_events"), ["run_id"])

    op.create_table(
        table("openlineage_jobs"),
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("producer", sa.Text, nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("updated_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_jobs_ns", table("openlineage_jobs"), ["ns_id"])

    op.create_table(
        table("openlineage_datasets"),
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("producer", sa.Text, nullable=True),
        sa.Column("datasource_uri", sa.Text, nullable=True),
        sa.Column("uri_id", sa.BigInteger, nullable=True),
        sa.Column("uri_rank", sa.String(64), nullable=True),
        sa.Column("identity_uri_id", sa.BigInteger, nullable=True),
        sa.Column("feast_type", sa.String(32), nullable=True),
        sa.Column("feast_project", sa.Text, nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("updated_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_datasets_ns", table("openlineage_datasets"), ["ns_id"])
    op.create_index("ix_ol_datasets_uri", table("openlineage_datasets"), ["uri_id"])
    op.create_index(
        "ix_ol_datasets_identity_uri", table("openlineage_datasets"), ["identity_uri_id"]
    )

    op.create_table(
        table("openlineage_runs"),
        sa.Column("run_id", sa.String(36), primary_key=True),
        sa.Column("job_id", sa.BigInteger, nullable=False),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("state_rank", sa.String(64), nullable=False),
        sa.Column("first_event_us", sa.BigInteger, nullable=False),
        sa.Column("last_event_us", sa.BigInteger, nullable=False),
        sa.Column("start_event_us", sa.BigInteger, nullable=True),
        sa.Column("started_us", sa.BigInteger, nullable=False),
        sa.Column("ended_us", sa.BigInteger, nullable=True),
        sa.Column("parent_run_id", sa.String(36), nullable=True),
        sa.Column("root_run_id", sa.String(36), nullable=True),
    )
    op.create_index(
        "ix_ol_runs_job_started", table("openlineage_runs"), ["job_id", "started_us", "run_id"]
    )
    op.create_index(
        "ix_ol_runs_ns_started", table("openlineage_runs"), ["ns_id", "started_us", "run_id"]
    )
    op.create_index("ix_ol_runs_started", table("openlineage_runs"), ["started_us", "run_id"])
    op.create_index("ix_ol_runs_last_event", table("openlineage_runs"), ["last_event_us"])
    op.create_index("ix_ol_runs_parent", table("openlineage_runs"), ["parent_run_id"])

    op.create_table(
        table("openlineage_run_io"),
        sa.Column("run_id", sa.String(36), primary_key=True),
        sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("direction", sa.String(6), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("facets", sa.Text, nullable=True),
    )
    op.create_index("ix_ol_run_io_dataset", table("openlineage_run_io"), ["dataset_id"])

    op.create_table(
        table("openlineage_lineage_edges"),
        sa.Column("src_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("dst_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("edge_type", sa.String(8), primary_key=True),
        sa.Column("src_kind", sa.String(8), nullable=False),
        sa.Column("dst_kind", sa.String(8), nullable=False),
        sa.Column("src_ns_id", sa.BigInteger, nullable=False),
        sa.Column("dst_ns_id", sa.BigInteger, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_edges_dst", table("openlineage_lineage_edges"), ["dst_id", "src_id"])

    op.create_table(
        table("openlineage_dataset_symlinks"),
        sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("alias_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("alias_ns_id", sa.BigInteger, nullable=False),
        sa.Column("alias_namespace", sa.Text, nullable=False),
        sa.Column("alias_name", sa.Text, nullable=False),
        sa.Column("alias_type", sa.Text, nullable=True),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_symlinks_alias", table("openlineage_dataset_symlinks"), ["alias_id"])

    op.create_table(
        table("openlineage_facet_blobs"),
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("payload", sa.Text, nullable=False),
    )
    _facets(table("openlineage_job_facets"), sa.BigInteger())
    _facets(table("openlineage_dataset_facets"), sa.BigInteger())
    _facets(table("openlineage_run_facets"), sa.String(36))

    op.create_table(
        table("openlineage_meta"),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in (
        table("openlineage_meta"),
        table("openlineage_run_facets"),
        table("openlineage_dataset_facets"),
        table("openlineage_job_facets"),
        table("openlineage_facet_blobs"),
        table("openlineage_dataset_symlinks"),
        table("openlineage_lineage_edges"),
        table("openlineage_run_io"),
        table("openlineage_runs"),
        table("openlineage_datasets"),
        table("openlineage_jobs"),
        table("openlineage_events"),
    ):
        op.drop_table(name)
