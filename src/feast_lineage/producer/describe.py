"""Facets that describe Feast objects and runs, filled from the real objects.

Every dataset gets its Feast facet (``feast_feature_view``, ``feast_entity``,
...), a ``schema`` facet when its fields are known, and a ``documentation``
facet when it has a description. Data sources and saved datasets get a
``dataSource`` facet naming where their data lives. Value types are Feast's
(``INT64``, ``STRING``, ``FLOAT``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openlineage.client.facet_v2 import (
    datasource_dataset,
    documentation_dataset,
    job_type_job,
    schema_dataset,
    symlinks_dataset,
)

from feast_lineage import facets as feast_facets
from feast_lineage.registry.locations import location_identity, location_uri
from feast_lineage.registry.objects import VIEW_KINDS, ProjectObjects, entity_names, kind_of
from feast_lineage.registry.relations import saved_dataset_location

_MODES = {
    "feature_view": "BATCH",
    "stream_feature_view": "STREAM",
    "label_view": "LABEL",
    "on_demand_feature_view": "ON_DEMAND",
}


@dataclass(frozen=True)
class StoreTypes:
    """The store and registry types of a feature store's configuration."""

    provider: str
    online_store_type: str
    offline_store_type: str
    registry_type: str

    @classmethod
    def of(cls, config: Any) -> StoreTypes:
        online = getattr(config, "online_store", None)
        offline = getattr(config, "offline_store", None)
        registry = getattr(config, "registry", None)
        return cls(
            provider=str(getattr(config, "provider", "") or ""),
            online_store_type=str(getattr(online, "type", "") or ""),
            offline_store_type=str(getattr(offline, "type", "") or ""),
            registry_type=str(getattr(registry, "registry_type", "") or ""),
        )


def value_type_name(dtype: Any) -> str:
    """Feast's value type name of a field type (``Float32`` -> ``FLOAT``)."""
    try:
        return str(dtype.to_value_type().name)
    except (AttributeError, ValueError, KeyError):
        return str(dtype)


def entity_value_type(entity: Any, objects: ProjectObjects | None) -> str:
    """The entity's key type: its own, else the one Feast gave its join key in a view.

    An entity declared without ``value_type`` (as ``feast init``'s template
    does) is UNKNOWN in the registry, but ``feast apply`` types the join key
    of every view that uses it from the view's source (``entity_columns``).
    """
    declared = str(entity.value_type.name)
    if declared != "UNKNOWN" or objects is None:
        return declared
    for _, view in objects.refs():
        if kind_of(view) not in VIEW_KINDS:
            continue
        if entity.name not in (getattr(view, "entities", None) or []):
            continue
        for column in getattr(view, "entity_columns", None) or []:
            if column.name == entity.join_key:
                inferred = value_type_name(column.dtype)
                if inferred not in ("UNKNOWN", "INVALID"):
                    return inferred
    return declared


def feature_names(view: Any) -> list[str]:
    return [field.name for field in view.features]


class Describer:
    """Builds facets with this producer's ``_producer`` and ``_schemaURL``."""

    def __init__(
        self,
        *,
        producer: str,
        server: str,
        project: str,
        repo_path: Path | None,
        store_types: StoreTypes,
        offline_store: Any = None,
    ) -> None:
        self.producer = producer
        self.offline_store = offline_store  # the warehouse's account or cluster
        self.server = server
        self.project = project
        self.repo_path = repo_path
        self.store_types = store_types
        self._schema_urls = {
            name: feast_facets.schema_url(server, name) for name in feast_facets.FACET_NAMES
        }

    def custom(self, cls: type[Any], **fields: Any) -> Any:
        facet = cls(producer=self.producer, **fields)
        facet._schemaURL = self._schema_urls[cls.__name__]
        return facet

    # Job facets -----------------------------------------------------------

    def job_facets(self, kind: str, job_type: str) -> dict[str, Any]:
        types = self.store_types
        return {
            "feast_project": self.custom(
                feast_facets.FeastProjectFacet,
                project_name=self.project,
                provider=types.provider,
                online_store_type=types.online_store_type,
                offline_store_type=types.offline_store_type,
                registry_type=types.registry_type,
            ),
            "feast_job_kind": self.custom(
                feast_facets.FeastJobKindFacet, kind=kind, feast_project=self.project
            ),
            "jobType": job_type_job.JobTypeJobFacet(
                processingType="BATCH",
                integration="FEAST",
                jobType=job_type,
                producer=self.producer,
            ),
        }

    # Dataset facets -------------------------------------------------------

    def dataset_facets(self, obj: Any, objects: ProjectObjects | None) -> dict[str, Any]:
        """The facets of the dataset that stands for registry object ``obj``."""
        kind = kind_of(obj)
        if kind == "entity":
            facets = self._entity(obj, objects)
        elif kind == "data_source":
            facets = self._data_source(obj)
        elif kind == "feature_service":
            facets = self._feature_service(obj, objects)
        elif kind == "saved_dataset":
            facets = self._saved_dataset(obj)
        else:
            facets = self._view(obj, kind)
        description = getattr(obj, "description", "") or ""
        if description:
            facets["documentation"] = documentation_dataset.DocumentationDatasetFacet(
                description=description, producer=self.producer
            )
        return facets

    def _schema(self, fields: Sequence[tuple[str, str | None, str | None]]) -> Any:
        return schema_dataset.SchemaDatasetFacet(
            fields=[
                schema_dataset.SchemaDatasetFacetFields(
                    name=name, type=type_name, description=description or None
                )
                for name, type_name, description in fields
            ],
            producer=self.producer,
        )

    def schema_facet(self, fields: Sequence[tuple[str, str | None]]) -> Any:
        """A ``schema`` facet of (name, type) pairs, without descriptions."""
        return self._schema([(name, type_name, None) for name, type_name in fields])

    def _entity(self, entity: Any, objects: ProjectObjects | None) -> dict[str, Any]:
        value_type = entity_value_type(entity, objects)
        return {
            "feast_entity": self.custom(
                feast_facets.FeastEntityFacet,
                name=entity.name,
                join_keys=[entity.join_key],
                value_type=value_type,
                description=entity.description or "",
                owner=entity.owner or "",
                tags=dict(entity.tags or {}),
            ),
            "schema": self._schema([(entity.join_key, value_type, entity.description)]),
        }

    def _data_source(self, source: Any) -> dict[str, Any]:
        facets: dict[str, Any] = {
            "feast_data_source": self.custom(
                feast_facets.FeastDataSourceFacet,
                name=source.name,
                source_type=type(source).__name__,
                timestamp_field=source.timestamp_field or "",
                created_timestamp_field=source.created_timestamp_column or "",
                field_mapping=dict(source.field_mapping or {}),
                description=source.description or "",
                tags=dict(source.tags or {}),
            ),
        }
        uri = location_uri(source, self.repo_path)
        facets["dataSource"] = datasource_dataset.DatasourceDatasetFacet(
            name=source.name, uri=uri, producer=self.producer
        )
        # The dataset other producers name for the same table, file or topic.
        identity = location_identity(source, self.repo_path, self.offline_store)
        if identity is not None:
            facets["symlinks"] = symlinks_dataset.SymlinksDatasetFacet(
                identifiers=[
                    symlinks_dataset.Identifier(
                        namespace=identity.namespace, name=identity.name, type=identity.type
                    )
                ],
                producer=self.producer,
            )
        schema = getattr(source, "schema", None)
        if type(source).__name__ == "RequestSource" and schema:
            facets["schema"] = self._schema(
                [(f.name, value_type_name(f.dtype), f.description) for f in schema]
            )
        return facets

    def _view(self, view: Any, kind: str) -> dict[str, Any]:
        ttl = getattr(view, "ttl", None)
        if kind == "on_demand_feature_view":
            online, offline = bool(view.write_to_online_store), False
        elif kind == "label_view":
            # Labels are pushed: to the online store when online, always to the offline one.
            online, offline = bool(view.online), True
        else:
            online, offline = bool(view.online), bool(view.offline)
        return {
            "feast_feature_view": self.custom(
                feast_facets.FeastFeatureViewFacet,
                name=view.name,
                ttl_seconds=int(ttl.total_seconds()) if ttl else 0,
                entities=entity_names(view),
                features=feature_names(view),
                online_enabled=online,
                offline_enabled=offline,
                mode=_MODES[kind],
                description=view.description or "",
                owner=view.owner or "",
                tags=dict(view.tags or {}),
            ),
            "schema": self._schema(
                [(f.name, value_type_name(f.dtype), f.description) for f in view.features]
            ),
        }

    def _feature_service(self, service: Any, objects: ProjectObjects | None) -> dict[str, Any]:
        projections = service.feature_view_projections
        fields = [
            (f"{p.name_to_use()}:{f.name}", value_type_name(f.dtype), f.description)
            for p in projections
            for f in p.features
        ]
        return {
            "feast_feature_service": self.custom(
                feast_facets.FeastFeatureServiceFacet,
                name=service.name,
                feature_views=list(dict.fromkeys(p.name for p in projections)),
                feature_count=len(fields),
                description=service.description or "",
                owner=service.owner or "",
                tags=dict(service.tags or {}),
                logging_enabled=service.logging_config is not None,
            ),
            "schema": self._schema(fields),
        }

    def _saved_dataset(self, dataset: Any) -> dict[str, Any]:
        facets: dict[str, Any] = {
            "feast_saved_dataset": self.custom(
                feast_facets.FeastSavedDatasetFacet,
                name=dataset.name,
                features=list(dataset.features),
                join_keys=list(dataset.join_keys),
                feature_service_name=dataset.feature_service_name or None,
                full_feature_names=bool(dataset.full_feature_names),
                description=getattr(dataset, "description", "") or "",
                tags=dict(dataset.tags or {}),
            ),
            "schema": self._schema(
                [(name, None, None) for name in [*dataset.join_keys, *dataset.features]]
            ),
        }
        uri = saved_dataset_location(dataset, self.repo_path)
        if uri is not None:
            facets["dataSource"] = datasource_dataset.DatasourceDatasetFacet(
                name=dataset.name, uri=uri, producer=self.producer
            )
        return facets

    def online_store_facets(self, view: Any) -> dict[str, Any]:
        store_type = self.store_types.online_store_type
        return {
            "feast_online_store": self.custom(
                feast_facets.FeastOnlineStoreFacet,
                feature_view=view.name,
                store_type=store_type,
                description=f"the {store_type} online store table of feature view {view.name}",
            ),
            "schema": self._schema(
                [(f.name, value_type_name(f.dtype), f.description) for f in view.features]
            ),
        }
