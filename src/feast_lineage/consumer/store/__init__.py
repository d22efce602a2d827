"""The lineage store: tables, migrations, engine and the repository layer."""
