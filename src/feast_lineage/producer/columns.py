"""Column lineage of Feast objects: which input fields each output field comes from.

Every function here reads a Feast object's definition and returns a
:class:`ColumnLineage`, the facet's content named by dataset (all inputs
are datasets of the project's namespace); :func:`column_lineage_facet`
turns it into OpenLineage's ``columnLineage`` facet (1-2-0, with
``transformations``). The mapping:

* feature view (batch or stream) from its sources (its stream source, then
  its batch source, or the views it is derived from): each feature, join
  key and timestamp field from the source column of that name through the
  source's ``field_mapping`` (DIRECT, IDENTITY); a feature computed by a
  declared aggregation from the aggregated column (DIRECT, AGGREGATION).
  A view with a transformation (``udf``) says nothing field to field about
  the features it does not aggregate: the source columns it is known to
  read (join keys and timestamps) are dataset-level inputs (INDIRECT,
  TRANSFORMATION).
* on demand view: an output computed by a declared aggregation from its
  column (DIRECT, AGGREGATION); otherwise a transformation's column
  dependencies are not in the definition, so every feature and request
  field it declares as a source is a dataset-level input (INDIRECT,
  TRANSFORMATION), never guessed field to field.
* feature service: ``<view or alias>[@v<n>]:<feature>`` from the view's
  feature (DIRECT, IDENTITY).
* a view's online store table: each feature from the view's feature.
* training frame (historical retrieval) and saved dataset: each feature
  column (``<view>__<feature>`` with ``full_feature_names``) from the
  view's feature, and the entity frame's columns passed through (a saved
  dataset keeps the columns Feast records as its join keys).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from openlineage.client.facet_v2 import column_lineage_dataset

from feast_lineage.producer import naming
from feast_lineage.registry.objects import ProjectObjects, Ref, kind_of

TransformationType = Literal["DIRECT", "INDIRECT"]
Subtype = Literal["IDENTITY", "TRANSFORMATION", "AGGREGATION"]


class InputColumn(NamedTuple):
    """One input field of an output field (or of the whole dataset), and how it is used."""

    dataset: str  # a dataset name of the project's namespace
    field: str
    type: TransformationType = "DIRECT"
    subtype: Subtype = "IDENTITY"
    description: str | None = None


@dataclass
class ColumnLineage:
    """Output field -> its inputs, plus inputs that affect the whole dataset."""

    fields: dict[str, list[InputColumn]] = field(default_factory=dict)
    dataset: list[InputColumn] = field(default_factory=list)

    def add(self, output: str, inputs: Iterable[InputColumn]) -> None:
        listed = self.fields.setdefault(output, [])
        listed.extend(i for i in inputs if i not in listed)

    def add_dataset(self, inputs: Iterable[InputColumn]) -> None:
        self.dataset.extend(i for i in inputs if i not in self.dataset)

    def __bool__(self) -> bool:
        return bool(self.fields or self.dataset)


def column_lineage_facet(lineage: ColumnLineage, namespace: str, producer: str) -> Any:
    """The ``columnLineage`` dataset facet (1-2-0) of ``lineage``."""

    def input_field(column: InputColumn) -> Any:
        return column_lineage_dataset.InputField(
            namespace=namespace,
            name=column.dataset,
            field=column.field,
            transformations=[
                column_lineage_dataset.Transformation(
                    type=column.type, subtype=column.subtype, description=column.description
                )
            ],
        )

    return column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            output: column_lineage_dataset.Fields(
                inputFields=[input_field(column) for column in inputs]
            )
            for output, inputs in lineage.fields.items()
        },
        dataset=[input_field(column) for column in lineage.dataset],
        producer=producer,
    )


# Definitions ------------------------------------------------------------------


def of_object(obj: Any, objects: ProjectObjects | None) -> ColumnLineage:
    """The column lineage of the dataset that stands for registry object ``obj``."""
    kind = kind_of(obj)
    if kind in ("feature_view", "stream_feature_view", "label_view"):
        return of_view(obj)
    if kind == "on_demand_feature_view":
        return of_on_demand_view(obj)
    if kind == "feature_service":
        return of_service(obj)
    if kind == "saved_dataset":
        return of_saved_dataset(obj, objects)
    return ColumnLineage()


def _source_column(source: Any, name: str) -> str:
    """The column of ``source`` that the view's column ``name`` comes from."""
    for column, mapped in (getattr(source, "field_mapping", None) or {}).items():
        if mapped == name:
            return str(column)
    return name


def _mapped(source: Any, column: str) -> str:
    """The view's name of ``source``'s column (its ``field_mapping``)."""
    return str((getattr(source, "field_mapping", None) or {}).get(column, column))


def _aggregation_names(aggregation: Any) -> set[str]:
    """Every name a Feast release gives an aggregation's output feature."""
    base = f"{aggregation.function}_{aggregation.column}"
    names = {base}
    explicit = getattr(aggregation, "name", "") or ""
    if explicit:
        return {explicit}
    window = getattr(aggregation, "time_window", None)
    if window is not None and window.total_seconds() > 0:
        names.add(f"{base}_{int(window.total_seconds())}s")
    return names


def _aggregated(view: Any) -> dict[str, Any]:
    """Feature name -> the declared aggregation that computes it."""
    out: dict[str, Any] = {}
    for aggregation in getattr(view, "aggregations", None) or []:
        for name in _aggregation_names(aggregation):
            out.setdefault(name, aggregation)
    return out


def _aggregation_text(aggregation: Any) -> str:
    window = getattr(aggregation, "time_window", None)
    over = f" over {int(window.total_seconds())}s" if window else ""
    return f"{aggregation.function}({aggregation.column}){over}"


def _transformed(view: Any) -> bool:
    return bool(getattr(view, "udf", None) or getattr(view, "feature_transformation", None))


def of_view(view: Any) -> ColumnLineage:
    """A batch or stream feature view, from its sources' columns (or source views' features)."""
    lineage = ColumnLineage()
    source_views = getattr(view, "source_views", None) or []
    # (dataset, the source object whose field_mapping applies, or None)
    sources: list[tuple[str, Any]] = [
        (naming.dataset_name(Ref("feature_view", v.name)), None) for v in source_views
    ]
    if not source_views:
        # A label view has one ``source`` (a push source, usually).
        own = (getattr(view, "stream_source", None), getattr(view, "batch_source", None))
        if kind_of(view) == "label_view":
            own = (getattr(view, "source", None), None)
        for source in own:
            if source is not None and source.name:
                sources.append((naming.dataset_name(Ref("data_source", source.name)), source))
    if not sources:
        return lineage
    transformed = _transformed(view)
    aggregated = _aggregated(view)
    keys = [c.name for c in getattr(view, "entity_columns", None) or []]
    # (dataset, source, source column) of the sources' timestamp fields
    stamps = [(d, s, column) for d, s in sources for column in _timestamp_columns(s)]
    # Join keys and timestamps are copied where no transformation stands between.
    if transformed:
        text = f"read by the transformation of feature view {view.name}"
        known = [(d, _source_column(s, key)) for d, s in sources for key in keys]
        known += [(d, column) for d, _, column in stamps]
        lineage.add_dataset(
            InputColumn(d, column, "INDIRECT", "TRANSFORMATION", text) for d, column in known
        )
    else:
        for key in keys:
            lineage.add(key, (InputColumn(d, _source_column(s, key)) for d, s in sources))
        for dataset, source, column in stamps:
            lineage.add(_mapped(source, column), [InputColumn(dataset, column)])
    for feature in view.features:
        aggregation = aggregated.get(feature.name)
        if aggregation is not None:
            lineage.add(
                feature.name,
                (
                    InputColumn(
                        dataset,
                        _source_column(source, aggregation.column),
                        "DIRECT",
                        "AGGREGATION",
                        _aggregation_text(aggregation),
                    )
                    for dataset, source in sources
                ),
            )
        elif not transformed:
            lineage.add(
                feature.name,
                (InputColumn(d, _source_column(s, feature.name)) for d, s in sources),
            )
    return lineage


def _timestamp_columns(source: Any) -> list[str]:
    if source is None:
        return []
    columns = [
        getattr(source, "timestamp_field", "") or "",
        getattr(source, "created_timestamp_column", "") or "",
    ]
    return [c for c in dict.fromkeys(columns) if c]


def _declared_inputs(view: Any) -> list[InputColumn]:
    """The features and request fields an on demand view declares as its sources."""
    out: list[InputColumn] = []
    for projection in view.source_feature_view_projections.values():
        dataset = naming.dataset_name(Ref("feature_view", projection.name))
        out.extend(InputColumn(dataset, f.name) for f in projection.features)
    for request in view.source_request_sources.values():
        dataset = naming.dataset_name(Ref("data_source", request.name))
        out.extend(InputColumn(dataset, f.name) for f in request.schema or [])
    return out


def of_on_demand_view(view: Any) -> ColumnLineage:
    """An on demand view: aggregations field to field, else dataset-level inputs."""
    lineage = ColumnLineage()
    declared = _declared_inputs(view)
    aggregated = _aggregated(view)
    unknown = False
    for feature in view.features:
        aggregation = aggregated.get(feature.name)
        inputs = [c for c in declared if aggregation is not None and c.field == aggregation.column]
        if inputs:
            text = _aggregation_text(aggregation)
            lineage.add(
                feature.name,
                (c._replace(subtype="AGGREGATION", description=text) for c in inputs),
            )
        else:
            unknown = True
    if unknown:
        mode = getattr(view, "mode", "") or "python"
        text = f"the {mode} transformation of on demand feature view {view.name}"
        lineage.add_dataset(
            c._replace(type="INDIRECT", subtype="TRANSFORMATION", description=text)
            for c in declared
        )
    return lineage


def of_service(service: Any) -> ColumnLineage:
    """A feature service's ``<view>:<feature>`` fields, from the views' features."""
    lineage = ColumnLineage()
    for projection in service.feature_view_projections:
        dataset = naming.dataset_name(Ref("feature_view", projection.name))
        used = projection.name_to_use()
        for feature in projection.features:
            lineage.add(f"{used}:{feature.name}", [InputColumn(dataset, feature.name)])
    return lineage


def of_online_store(view: Any) -> ColumnLineage:
    """A view's online store table, from the view's features."""
    dataset = naming.dataset_name(Ref("feature_view", view.name))
    lineage = ColumnLineage()
    for feature in view.features:
        lineage.add(feature.name, [InputColumn(dataset, feature.name)])
    return lineage


class FeatureColumn(NamedTuple):
    """One feature of a retrieval: the view it is read from, the name it goes by, its type."""

    view: str  # the feature view's name
    used_name: str  # the name the retrieval refers to it by: an alias, ``view@v2``
    feature: str
    type: str | None = None  # Feast's value type (FLOAT, INT64, JSON...), when known

    def column(self, full_feature_names: bool) -> str:
        """The name of its column in the retrieved frame."""
        return f"{self.used_name}__{self.feature}" if full_feature_names else self.feature


class EntityFrame(NamedTuple):
    """The columns of a retrieval's entity frame (name, type), when it is a dataframe."""

    columns: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, entities: Any) -> EntityFrame | None:
        dtypes = getattr(entities, "dtypes", None)
        if dtypes is None or not hasattr(dtypes, "items"):
            return None  # a SQL query, or a frame that does not list its columns
        return cls(tuple((str(name), str(dtype)) for name, dtype in dtypes.items()))


class TrainingFrame(NamedTuple):
    """What a historical retrieval returns: its features and the entity frame's columns."""

    features: tuple[FeatureColumn, ...]
    entities: EntityFrame | None


def features_of_service(service: Any) -> list[FeatureColumn]:
    return [
        FeatureColumn(p.name, p.name_to_use(), f.name, _value_type(f.dtype))
        for p in service.feature_view_projections
        for f in p.features
    ]


def _value_type(dtype: Any) -> str | None:
    """Feast's value type name of a field type (``Float32`` -> ``FLOAT``), if it has one."""
    try:
        return str(dtype.to_value_type().name)
    except (AttributeError, ValueError, KeyError):
        return None


def features_of_refs(refs: Iterable[str]) -> list[FeatureColumn]:
    """``view[@v<n>]:feature`` references; anything else is left out."""
    out = []
    for ref in refs:
        used, sep, feature = str(ref).partition(":")
        if sep and used and feature:
            out.append(FeatureColumn(used.split("@", 1)[0], used, feature))
    return out


def of_training_frame(
    features: Sequence[FeatureColumn],
    full_feature_names: bool,
    entity_frame: str | None = None,
    entity_columns: Sequence[str] = (),
) -> ColumnLineage:
    """A training frame: the entity frame's columns, then each feature's column."""
    lineage = ColumnLineage()
    if entity_frame is not None:
        for column in entity_columns:
            lineage.add(column, [InputColumn(entity_frame, column)])
    for f in features:
        name = f.column(full_feature_names)
        dataset = naming.dataset_name(Ref("feature_view", f.view))
        lineage.add(name, [InputColumn(dataset, f.feature)])
    return lineage


def of_saved_dataset(dataset: Any, objects: ProjectObjects | None) -> ColumnLineage:
    """A saved dataset: its entity key columns from the entity frame, then its features."""
    service = None
    if dataset.feature_service_name and objects is not None:
        service = objects.get(Ref("feature_service", dataset.feature_service_name))
    # The service's projections resolve aliases to the views they stand for.
    aliases = {}
    if service is not None:
        aliases = {p.name_to_use(): p.name for p in service.feature_view_projections}
    features = [
        f._replace(view=aliases.get(f.used_name, f.view))
        for f in features_of_refs(dataset.features)
    ]
    # The stored rows are a retrieval's: its entity frame's key columns pass through.
    keys = saved_dataset_keys(dataset)
    frame = naming.entity_frame_dataset_name(dataset.feature_service_name) if keys else None
    return of_training_frame(features, bool(dataset.full_feature_names), frame, keys)


def saved_dataset_keys(dataset: Any) -> list[str]:
    """The entity frame's columns a saved dataset keeps (Feast records them as join keys).

    Only for a saved dataset that names its feature service: the retrieval's
    entity frame is then ``entity_frame/feature_service/<service>``. Without
    one, the rows may come from a retrieval of a feature list or of a service
    the dataset does not name, so which entity frame they came from is unknown.
    """
    if not getattr(dataset, "feature_service_name", None):
        return []
    return [str(key) for key in getattr(dataset, "join_keys", None) or []]
