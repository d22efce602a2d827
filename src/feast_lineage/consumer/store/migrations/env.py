"""Alembic environment: runs on the connection handed over in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from feast_lineage.consumer.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table="openlineage_alembic_version",
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
