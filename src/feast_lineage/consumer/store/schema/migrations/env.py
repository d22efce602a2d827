"""Alembic environment: runs on the connection handed over in ``config.attributes``.

A store created before migration 0008 keeps its version in
``openlineage_alembic_version``: migrations run with that table until 0008
has renamed the others, then it is renamed too (:mod:`.naming`). Like every
module of this package, it imports nothing of ``feast_lineage`` outside it
(see :mod:`.frozen`).
"""

from __future__ import annotations

from alembic import context

from feast_lineage.consumer.store.schema.migrations.naming import (
    LEGACY_VERSION_TABLE,
    RENAMED,
    VERSION_TABLE,
    existing_tables,
    rename_table,
)

connection = context.config.attributes["connection"]
tables = existing_tables(connection)
legacy = LEGACY_VERSION_TABLE in tables and VERSION_TABLE not in tables
context.configure(
    connection=connection,
    # No target_metadata: migrations import nothing of the live store (frozen/),
    # and the tests compare the migrated schema with tables.py themselves.
    target_metadata=None,
    version_table=LEGACY_VERSION_TABLE if legacy else VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
    # How far the upgrade has got, for the server's /readyz (engine/database.py).
    on_version_apply=context.config.attributes.get("on_version_apply", ()),
)
with context.begin_transaction():
    context.run_migrations()
    if legacy and RENAMED["openlineage_events"] in existing_tables(connection):
        # 0008 has run: the store now holds the new names throughout.
        rename_table(connection, LEGACY_VERSION_TABLE, VERSION_TABLE)
