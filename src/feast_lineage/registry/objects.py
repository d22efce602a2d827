"""One Feast project's objects, read from a registry.

Objects are grouped by :data:`Group`: every kind of feature view (regular,
batch, on demand, stream, and Feast 0.67's label views) shares the
``feature_view`` group, because Feast gives them one name space (a feature
reference ``name:feature`` finds a feature view, else a label view).
:func:`kind_of` tells the kinds apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Group = Literal["entity", "data_source", "feature_view", "feature_service", "saved_dataset"]
Kind = Literal[
    "entity",
    "data_source",
    "feature_view",
    "on_demand_feature_view",
    "stream_feature_view",
    "label_view",
    "feature_service",
    "saved_dataset",
]

GROUPS: tuple[Group, ...] = (
    "entity",
    "data_source",
    "feature_view",
    "feature_service",
    "saved_dataset",
)
VIEW_KINDS: frozenset[Kind] = frozenset(
    {"feature_view", "on_demand_feature_view", "stream_feature_view", "label_view"}
)
GROUP_OF_KIND: dict[Kind, Group] = {
    "entity": "entity",
    "data_source": "data_source",
    "feature_view": "feature_view",
    "on_demand_feature_view": "feature_view",
    "stream_feature_view": "feature_view",
    "label_view": "feature_view",
    "feature_service": "feature_service",
    "saved_dataset": "saved_dataset",
}
# Feast's placeholder entity of entity-less feature views; never lineage.
DUMMY_ENTITY_NAME = "__dummy"


@dataclass(frozen=True, order=True)
class Ref:
    """A reference to a registry object by group and name."""

    group: Group
    name: str


@dataclass
class ProjectObjects:
    """Every lineage-relevant object of one project, by group, then by name."""

    project: str
    by_group: dict[Group, dict[str, Any]] = field(
        default_factory=lambda: {group: {} for group in GROUPS}
    )

    def add(self, obj: Any) -> None:
        self.by_group[GROUP_OF_KIND[kind_of(obj)]][obj.name] = obj

    def get(self, ref: Ref) -> Any | None:
        return self.by_group[ref.group].get(ref.name)

    def refs(self) -> Iterator[tuple[Ref, Any]]:
        for group in GROUPS:
            for name in sorted(self.by_group[group]):
                yield Ref(group, name), self.by_group[group][name]

    def __len__(self) -> int:
        return sum(len(objects) for objects in self.by_group.values())


def kind_of(obj: Any) -> Kind:
    """The kind of a Feast object; raises TypeError for anything else."""
    from feast import Entity, FeatureService, FeatureView, OnDemandFeatureView
    from feast.data_source import DataSource
    from feast.saved_dataset import SavedDataset
    from feast.stream_feature_view import StreamFeatureView

    if isinstance(obj, StreamFeatureView):
        return "stream_feature_view"
    if isinstance(obj, FeatureView):
        return "feature_view"
    if isinstance(obj, OnDemandFeatureView):
        return "on_demand_feature_view"
    if isinstance(obj, Entity):
        return "entity"
    if isinstance(obj, DataSource):
        return "data_source"
    if isinstance(obj, FeatureService):
        return "feature_service"
    if isinstance(obj, SavedDataset):
        return "saved_dataset"
    if _is_label_view(obj):
        return "label_view"
    raise TypeError(f"{type(obj).__name__} is not a Feast object that has lineage")


def _is_label_view(obj: Any) -> bool:
    """A Feast 0.67+ LabelView (earlier releases have none)."""
    try:
        from feast.labeling.label_view import LabelView
    except ImportError:
        return False
    return isinstance(obj, LabelView)


def read_project(registry: Any, project: str) -> ProjectObjects:
    """The objects of ``project`` as the registry holds them now.

    A file registry (local, S3, GCS...) is read once and listed from that
    copy; other registries (SQL, remote) are asked afresh for each kind.
    """
    from feast.infra.registry.registry import Registry as FileRegistry

    allow_cache = isinstance(registry, FileRegistry)
    if allow_cache:
        registry.refresh(project)
    objects = ProjectObjects(project)
    for entity in registry.list_entities(project, allow_cache=allow_cache):
        if entity.name != DUMMY_ENTITY_NAME:
            objects.add(entity)
    listings = (
        registry.list_data_sources,
        registry.list_feature_views,
        registry.list_on_demand_feature_views,
        registry.list_stream_feature_views,
        registry.list_feature_services,
        registry.list_saved_datasets,
    )
    label_views = getattr(registry, "list_label_views", None)  # Feast 0.67+
    for listing in (*listings, *([label_views] if label_views is not None else [])):
        for obj in listing(project, allow_cache=allow_cache):
            objects.add(obj)
    return objects


def entity_names(view: Any) -> list[str]:
    """A view's entity names without Feast's placeholder entity."""
    return [name for name in getattr(view, "entities", None) or [] if name != DUMMY_ENTITY_NAME]
