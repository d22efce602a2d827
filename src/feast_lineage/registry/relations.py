"""What each registry object is built from: its upstream references.

The producer's apply events use these as a job's inputs and the registry
lineage endpoints as edges, so both always agree:

* feature view (regular, batch, stream): its stream source and batch source,
  or the views it is derived from, and its entities;
* on demand feature view: its source views and request sources;
* feature service: the views it serves;
* saved dataset: the feature service it came from (or else the views its
  features name), and any data source stored where it is stored;
* entities and data sources: nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from feast_lineage.registry.locations import location_uri
from feast_lineage.registry.objects import ProjectObjects, Ref, entity_names, kind_of


def upstream(obj: Any, objects: ProjectObjects | None, repo_path: Path | None) -> list[Ref]:
    """The references ``obj`` is built from, in a stable order, without duplicates."""
    kind = kind_of(obj)
    refs: list[Ref] = []
    if kind in ("feature_view", "stream_feature_view"):
        source_views = getattr(obj, "source_views", None) or []
        if source_views:
            refs.extend(Ref("feature_view", view.name) for view in source_views)
        else:
            for source in (getattr(obj, "stream_source", None), getattr(obj, "batch_source", None)):
                if source is not None and source.name:
                    refs.append(Ref("data_source", source.name))
        refs.extend(Ref("entity", name) for name in entity_names(obj))
    elif kind == "label_view":
        source = getattr(obj, "source", None)
        if source is not None and source.name:
            refs.append(Ref("data_source", source.name))
        refs.extend(Ref("entity", name) for name in entity_names(obj))
    elif kind == "on_demand_feature_view":
        for projection in obj.source_feature_view_projections.values():
            refs.append(Ref("feature_view", projection.name))
        for request_source in obj.source_request_sources.values():
            refs.append(Ref("data_source", request_source.name))
    elif kind == "feature_service":
        refs.extend(Ref("feature_view", p.name) for p in obj.feature_view_projections)
    elif kind == "saved_dataset":
        refs.extend(_saved_dataset_upstream(obj, objects, repo_path))
    return list(dict.fromkeys(refs))


def _saved_dataset_upstream(
    dataset: Any, objects: ProjectObjects | None, repo_path: Path | None
) -> list[Ref]:
    refs: list[Ref] = []
    if dataset.feature_service_name:
        refs.append(Ref("feature_service", dataset.feature_service_name))
    else:
        for feature in dataset.features:
            view, sep, _ = str(feature).partition(":")
            if sep and view:
                refs.append(Ref("feature_view", view))
    stored_at = saved_dataset_location(dataset, repo_path)
    if stored_at is not None and objects is not None:
        for name, source in sorted(objects.by_group["data_source"].items()):
            if location_uri(source, repo_path) == stored_at:
                refs.append(Ref("data_source", name))
    return refs


def saved_dataset_location(dataset: Any, repo_path: Path | None) -> str | None:
    """The URI of a saved dataset's storage, when its storage names one."""
    try:
        source = dataset.storage.to_data_source()
    except Exception:  # a storage type that cannot describe itself as a source
        return None
    return location_uri(source, repo_path)
