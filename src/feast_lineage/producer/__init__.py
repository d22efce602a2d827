"""The Feast OpenLineage producer (see feature_store.py)."""
