"""The OpenLineage consumer: ingest, store and query lineage from any producer."""
