"""The teardown hook: ``feast teardown`` also removes the project's lineage.

When the consumer is configured, every row of the project's namespace
(events, runs, jobs, datasets, edges and facets) is deleted from the lineage
store, the way the admin reset endpoint does with ``?namespace=``.
"""

from __future__ import annotations

from feast_lineage.producer.lineage import StoreLineage


def remove_project_lineage(lineage: StoreLineage) -> dict[str, int]:
    """Delete the namespace of ``lineage``'s project; returns rows removed per table."""
    if lineage.local_store is None:
        return {}
    return lineage.local_store.reset_namespace(lineage.namespace)
