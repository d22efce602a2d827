"""Which Feast object a lineage node stands for.

A dataset stands for a Feast object when a ``feast_*`` facet says so (its
``feast_type``), or for a dataset of a Feast project when
``namespace_mapping`` maps its namespace to one. Project resolution follows
the spec's "Namespace Resolution" order: the exact namespace in the
mapping, then the ``authority/path`` part of a ``scheme://authority/path``
namespace, then (for datasets Feast itself described) the last path segment,
which is the project in Feast's ``{namespace}/{project}`` form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from feast_lineage.consumer.schemas import FeastObject


def mapped_project(namespace: str, mapping: Mapping[str, str]) -> str | None:
    """The Feast project ``namespace_mapping`` gives ``namespace``, if any."""
    found = mapping.get(namespace)
    if found is not None:
        return found
    if "://" in namespace:
        rest = namespace.split("://", 1)[1].strip("/")
        if rest in mapping:
            return mapping[rest]
    return None


def resolve_project(namespace: str, mapping: Mapping[str, str]) -> str:
    """The Feast project of a namespace Feast wrote: mapping first, else the last segment."""
    found = mapped_project(namespace, mapping)
    if found is not None:
        return found
    tail = namespace.split("://", 1)[-1].rstrip("/")
    return tail.rsplit("/", 1)[-1] or namespace


# The dataset facet that describes each Feast object; its "name" field is
# the object's own name (the dataset name is "<group>/<name>").
_NAME_FACETS = (
    "feast_feature_view",
    "feast_feature_service",
    "feast_data_source",
    "feast_entity",
    "feast_saved_dataset",
    "feast_online_store",
)


def _object_name(dataset_name: str, facets: Mapping[str, Any]) -> str:
    for key in _NAME_FACETS:
        facet = facets.get(key)
        if isinstance(facet, dict):
            value = facet.get("name") or facet.get("feature_view")
            if isinstance(value, str) and value:
                return value
    return dataset_name.rsplit("/", 1)[-1] if "/" in dataset_name else dataset_name


def feast_object(
    kind: str,
    namespace: str,
    name: str,
    feast_type: str | None,
    node_facets: Mapping[str, Any],
    mapping: Mapping[str, str],
) -> FeastObject | None:
    """``{"project", "type", "name"}`` of the Feast object a node stands for, or None."""
    if kind == "dataset" and feast_type is not None:
        return FeastObject(
            project=resolve_project(namespace, mapping),
            type=feast_type,
            name=_object_name(name, node_facets),
        )
    if kind == "job":
        kind_facet = node_facets.get("feast_job_kind")
        if isinstance(kind_facet, dict):
            project = kind_facet.get("feast_project")
            if not isinstance(project, str) or not project:
                project = resolve_project(namespace, mapping)
            job_kind = kind_facet.get("kind")
            return FeastObject(
                project=project,
                type=f"{job_kind}_job" if isinstance(job_kind, str) else "job",
                name=name,
            )
    project = mapped_project(namespace, mapping)
    if project is not None:
        return FeastObject(project=project, type=None, name=name)
    return None
