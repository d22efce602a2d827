"""Our tables get a prefix of their own: ``openlineage_*`` becomes ``feast_lineage_*``.

Feast 0.65+'s own consumer creates ``openlineage_events``,
``openlineage_jobs``, ``openlineage_datasets`` and more in the registry's
database by default: the names our tables had. There our first migration
failed, and Feast's startup added its columns to our tables. Renamed, both
sets live in one database. A store created from now on gets the new names
from its first migration (see :mod:`..naming`); this one renames the tables
of a store created before, on SQLite, PostgreSQL and MySQL alike, with the
two facet tables' indexes named after them and (PostgreSQL) the constraint
and sequence names derived from them. Columns Feast 0.67's startup added to
our datasets table, when it took it for its own, are dropped: nothing of
ours wrote them. Other index names (``ix_ol_*``) are ours already: Feast's
are ``idx_ol_*``. ``env.py`` renames the version table after this runs.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.naming import (
    RENAMED,
    existing_tables,
    legacy_names,
    rename_table,
)

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_FACET_TABLES = ("openlineage_job_facets", "openlineage_dataset_facets")
# What Feast 0.67's consumer adds to an ``openlineage_datasets`` it finds.
_FEAST_DATASET_COLUMNS = ("owner_name", "owner_type", "lifecycle_state", "current_version")


def upgrade() -> None:
    if not legacy_names():
        return  # created with the new names
    connection = op.get_bind()
    _rename(connection, RENAMED)
    datasets = RENAMED["openlineage_datasets"]
    columns = {column["name"] for column in sa.inspect(connection).get_columns(datasets)}
    for name in _FEAST_DATASET_COLUMNS:
        if name in columns:
            op.drop_column(datasets, name)


def downgrade() -> None:
    if legacy_names():
        _rename(op.get_bind(), {new: old for old, new in RENAMED.items()})


def _rename(connection: sa.Connection, names: dict[str, str]) -> None:
    """Rename each table of ``names`` that exists (idempotent: MySQL's DDL is not transactional)."""
    tables = existing_tables(connection)
    for old, new in names.items():
        if old in tables and new not in tables:
            rename_table(connection, old, new)
            if old in _FACET_TABLES or new in _FACET_TABLES:
                _rename_index(connection, new, f"ix_{old}_blob", f"ix_{new}_blob", ["blob_id"])


def _rename_index(
    connection: sa.Connection, table: str, old: str, new: str, columns: list[str]
) -> None:
    dialect = connection.dialect.name
    if dialect == "postgresql":
        op.execute(f"ALTER INDEX {old} RENAME TO {new}")
    elif dialect in {"mysql", "mariadb"}:
        op.execute(f"ALTER TABLE {table} RENAME INDEX {old} TO {new}")
    else:  # SQLite cannot rename an index
        op.drop_index(old, table_name=table)
        op.create_index(new, table, columns)
