"""The custom Feast facets, as openlineage-python facet classes.

Each class carries exactly the fields of the spec's "Custom Feast Facets";
its JSON schema ships next to it (``schemas/<Class>.json``) and the lineage
server serves it at ``/api/v1/lineage/facets/<Class>.json``, which is where a
facet's ``_schemaURL`` points (see :func:`schema_url`). :data:`FACET_KEYS`
maps the key a facet is stored under in an event to its class.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import attr
from openlineage.client.generated.base import DatasetFacet, JobFacet, RunFacet


@attr.define
class FeastFeatureViewFacet(DatasetFacet):
    name: str
    ttl_seconds: int
    entities: list[str]
    features: list[str]
    online_enabled: bool
    offline_enabled: bool
    mode: str
    description: str
    owner: str
    tags: dict[str, str]


@attr.define
class FeastFeatureServiceFacet(DatasetFacet):
    name: str
    feature_views: list[str]
    feature_count: int
    description: str
    owner: str
    tags: dict[str, str]
    logging_enabled: bool


@attr.define
class FeastDataSourceFacet(DatasetFacet):
    name: str
    source_type: str
    timestamp_field: str
    created_timestamp_field: str
    field_mapping: dict[str, str]
    description: str
    tags: dict[str, str]


@attr.define
class FeastEntityFacet(DatasetFacet):
    name: str
    join_keys: list[str]
    value_type: str
    description: str
    owner: str
    tags: dict[str, str]


@attr.define
class FeastSavedDatasetFacet(DatasetFacet):
    name: str
    features: list[str]
    join_keys: list[str]
    feature_service_name: str | None
    full_feature_names: bool
    description: str
    tags: dict[str, str]


@attr.define
class FeastOnlineStoreFacet(DatasetFacet):
    feature_view: str
    store_type: str
    description: str


@attr.define
class FeastMaterializationFacet(RunFacet):
    feature_views: list[str]
    start_date: str
    end_date: str
    project: str
    rows_written: int
    online_store_type: str
    offline_store_type: str


@attr.define
class FeastRetrievalFacet(RunFacet):
    retrieval_type: str
    feature_service: str | None
    feature_views: list[str]
    features: list[str]
    entity_count: int | None
    full_feature_names: bool


@attr.define
class FeastProjectFacet(JobFacet):
    project_name: str
    provider: str
    online_store_type: str
    offline_store_type: str
    registry_type: str


@attr.define
class FeastJobKindFacet(JobFacet):
    kind: str
    feast_project: str


FACET_KEYS: dict[str, type[Any]] = {
    "feast_feature_view": FeastFeatureViewFacet,
    "feast_feature_service": FeastFeatureServiceFacet,
    "feast_data_source": FeastDataSourceFacet,
    "feast_entity": FeastEntityFacet,
    "feast_saved_dataset": FeastSavedDatasetFacet,
    "feast_online_store": FeastOnlineStoreFacet,
    "feast_materialization": FeastMaterializationFacet,
    "feast_retrieval": FeastRetrievalFacet,
    "feast_project": FeastProjectFacet,
    "feast_job_kind": FeastJobKindFacet,
}
FACET_NAMES: frozenset[str] = frozenset(cls.__name__ for cls in FACET_KEYS.values())
SCHEMA_PATH = "/api/v1/lineage/facets"


def schema_url(server: str, facet_name: str) -> str:
    """Where the lineage server at ``server`` serves ``facet_name``'s schema."""
    return f"{server.rstrip('/')}{SCHEMA_PATH}/{facet_name}.json#/$defs/{facet_name}"


@cache
def schema_text(facet_name: str) -> str:
    """The JSON schema of a custom facet, as shipped; KeyError for unknown names."""
    if facet_name not in FACET_NAMES:
        raise KeyError(facet_name)
    return resources.files(__package__).joinpath("schemas", f"{facet_name}.json").read_text()


def schema(facet_name: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(schema_text(facet_name))
    return value
