"""The teardown hook: ``feast teardown`` also removes the project's lineage.

When the consumer is configured, every row of the project's namespace
(events, runs, jobs, datasets, edges and facets) is deleted from the lineage
store, the way the admin reset endpoint does with ``?namespace=``. Nothing is
emitted: Feast's own teardown hook emits nothing either, and an event about
the teardown would put the namespace just removed back into the store.
:func:`remove_project_lineage` says what it removed, in one line for the user.
"""

from __future__ import annotations

from feast_lineage.producer.lineage import StoreLineage

RESET_PATH = "/api/v1/lineage/openlineage/reset"


def remove_project_lineage(lineage: StoreLineage) -> str:
    """Delete the namespace of ``lineage``'s project; what was removed, as one line."""
    if lineage.local_store is None:
        return (
            f"no lineage store is kept here (openlineage.consumer), so the lineage of "
            f"namespace {lineage.namespace} stays where it was sent; remove it "
            f"there with DELETE {RESET_PATH}?namespace={lineage.namespace}"
        )
    counts = lineage.local_store.reset_namespace(lineage.namespace)
    return removed_line(counts, lineage.namespace)


def removed_line(counts: dict[str, int], namespace: str) -> str:
    """``removed 129 events, 20 runs, 14 jobs, 19 datasets of namespace demo ...``."""
    parts = ", ".join(
        f"{counts.get(f'openlineage_{kind}', 0)} {kind}"
        for kind in ("events", "runs", "jobs", "datasets")
    )
    return f"removed {parts} of namespace {namespace} from the lineage store"
