"""The store's table names: ``feast_lineage_*``, and the ``openlineage_*`` of old stores.

Until migration 0008 the store's tables were named ``openlineage_*``, the
names Feast 0.65+'s own consumer gives its tables in the same database (the
SQL registry's, by default). 0008 renames them, so both sets can live in one
database. A database tells which names it holds by its Alembic version
table:

* ``openlineage_alembic_version``: created before 0008. Migrations 0001 to
  0007 still to run there work on the old names; 0008 renames the tables,
  and once it has run, ``env.py`` renames the version table too.
* ``feast_lineage_alembic_version`` (or none yet, a new store): every
  migration works on the new names. In a database where Feast's consumer
  already made its ``openlineage_*`` tables, ours are made beside them.

Migrations 0001 to 0007 name their tables through :func:`table`; later
migrations use the new names as they are.
"""

from __future__ import annotations

from sqlalchemy import Connection, inspect, text

VERSION_TABLE = "feast_lineage_alembic_version"
LEGACY_VERSION_TABLE = "openlineage_alembic_version"

# Every table a migration before 0008 created, by its old name.
RENAMED: dict[str, str] = {
    "openlineage_events": "feast_lineage_events",
    "openlineage_jobs": "feast_lineage_jobs",
    "openlineage_datasets": "feast_lineage_datasets",
    "openlineage_runs": "feast_lineage_runs",
    "openlineage_run_io": "feast_lineage_run_io",
    "openlineage_lineage_edges": "feast_lineage_edges",
    "openlineage_dataset_symlinks": "feast_lineage_dataset_symlinks",
    "openlineage_symlink_listings": "feast_lineage_symlink_listings",
    "openlineage_facet_blobs": "feast_lineage_facet_blobs",
    "openlineage_job_facets": "feast_lineage_job_facets",
    "openlineage_dataset_facets": "feast_lineage_dataset_facets",
    "openlineage_run_facets": "feast_lineage_run_facets",  # dropped by 0003
    "openlineage_meta": "feast_lineage_meta",
}


def legacy_names() -> bool:
    """Whether the database being migrated still holds the old names (see the module doc)."""
    from alembic import op

    return bool(op.get_context().version_table == LEGACY_VERSION_TABLE)


def table(old_name: str) -> str:
    """For migrations 0001 to 0007: the name ``old_name``'s table has in this database."""
    return old_name if legacy_names() else RENAMED[old_name]


def existing_tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def rename_table(connection: Connection, old: str, new: str) -> None:
    """Rename table ``old`` to ``new``, with the names PostgreSQL derived from ``old``.

    PostgreSQL names a table's primary key and unique constraints (and their
    indexes) and its serial columns' sequences after the table, in one
    namespace with every table: ``openlineage_events_pkey`` left behind
    would stop Feast from creating its own ``openlineage_events``. SQLite
    renames its automatic indexes with the table; MySQL's constraint names
    belong to their table.
    """
    connection.exec_driver_sql(f"ALTER TABLE {old} RENAME TO {new}")
    if connection.dialect.name != "postgresql":
        return
    constraints = connection.execute(
        text("SELECT conname FROM pg_constraint WHERE conrelid = CAST(:t AS regclass)"),
        {"t": new},
    ).scalars()
    for name in list(constraints):
        if name.startswith(f"{old}_"):
            renamed = new + name[len(old) :]
            connection.exec_driver_sql(f"ALTER TABLE {new} RENAME CONSTRAINT {name} TO {renamed}")
    sequences = connection.execute(
        text(
            "SELECT pg_get_serial_sequence(:t, attname) FROM pg_attribute"
            " WHERE attrelid = CAST(:t AS regclass) AND attnum > 0 AND NOT attisdropped"
        ),
        {"t": new},
    ).scalars()
    for qualified in [s for s in sequences if s]:
        schema, _, name = qualified.rpartition(".")
        if name.startswith(f"{old}_"):
            renamed = new + name[len(old) :]
            prefix = f"{schema}." if schema else ""
            connection.exec_driver_sql(f"ALTER SEQUENCE {prefix}{name} RENAME TO {renamed}")
