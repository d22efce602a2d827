"""The custom facets: classes, shipped schemas and the route that serves them."""

from __future__ import annotations

import json

import attr
import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from feast_lineage.facets import FACET_KEYS, FACET_NAMES, schema, schema_url

SPEC_FIELDS = {
    "FeastFeatureViewFacet": [
        "name",
        "ttl_seconds",
        "entities",
        "features",
        "online_enabled",
        "offline_enabled",
        "mode",
        "description",
        "owner",
        "tags",
    ],
    "FeastFeatureServiceFacet": [
        "name",
        "feature_views",
        "feature_count",
        "description",
        "owner",
        "tags",
        "logging_enabled",
    ],
    "FeastDataSourceFacet": [
        "name",
        "source_type",
        "timestamp_field",
        "created_timestamp_field",
        "field_mapping",
        "description",
        "tags",
    ],
    "FeastEntityFacet": ["name", "join_keys", "value_type", "description", "owner", "tags"],
    "FeastSavedDatasetFacet": [
        "name",
        "features",
        "join_keys",
        "feature_service_name",
        "full_feature_names",
        "description",
        "tags",
    ],
    "FeastMaterializationFacet": [
        "feature_views",
        "start_date",
        "end_date",
        "project",
        "rows_written",
        "online_store_type",
        "offline_store_type",
    ],
    "FeastOnlineStoreFacet": ["feature_view", "store_type", "description"],
    "FeastProjectFacet": [
        "project_name",
        "provider",
        "online_store_type",
        "offline_store_type",
        "registry_type",
    ],
    "FeastJobKindFacet": ["kind", "feast_project"],
    "FeastRetrievalFacet": [
        "retrieval_type",
        "feature_service",
        "feature_views",
        "features",
        "entity_count",
        "full_feature_names",
    ],
}


def test_every_spec_facet_has_exactly_the_spec_fields() -> None:
    assert set(SPEC_FIELDS) == FACET_NAMES
    for cls in FACET_KEYS.values():
        own = [f.name for f in attr.fields(cls) if not f.name.startswith("_")]
        assert own == SPEC_FIELDS[cls.__name__], cls.__name__


@pytest.mark.parametrize(("key", "cls"), FACET_KEYS.items(), ids=list(FACET_KEYS))
def test_each_schema_describes_its_facet(key: str, cls: type) -> None:
    doc = schema(cls.__name__)
    Draft202012Validator.check_schema(doc)
    assert doc["properties"] == {key: {"$ref": f"#/$defs/{cls.__name__}"}}
    own = doc["$defs"][cls.__name__]["allOf"][1]
    assert list(own["properties"]) == SPEC_FIELDS[cls.__name__]
    assert set(own["required"]) <= set(own["properties"])


def test_schema_url_points_at_the_servers_facet_route() -> None:
    assert schema_url("http://lineage:6580/", "FeastEntityFacet") == (
        "http://lineage:6580/api/v1/lineage/facets/FeastEntityFacet.json#/$defs/FeastEntityFacet"
    )


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # no SQL: files
def test_the_server_serves_every_schema(client: TestClient) -> None:
    for name in FACET_NAMES:
        response = client.get(f"/api/v1/lineage/facets/{name}.json")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/schema+json"
        assert json.loads(response.text) == schema(name)
    missing = client.get("/api/v1/lineage/facets/Nope.json")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
