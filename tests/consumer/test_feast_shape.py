"""Feast's fields computed from ours: times, JSON text, facet summaries, edge ends."""

from __future__ import annotations

import json

from feast_lineage.consumer.feast_shape import (
    NodeRef,
    dataset_fields,
    facets_json,
    job_fields,
    link_type,
    ms,
    node_fields,
)


def test_times_are_integer_milliseconds() -> None:
    assert ms(1_767_268_800_123_456) == 1_767_268_800_123
    assert ms(None) is None


def test_facets_are_json_text_or_null() -> None:
    assert facets_json({}) is None
    assert facets_json(None) is None
    assert json.loads(facets_json({"b": {"x": 1}, "a": {}}) or "") == {"a": {}, "b": {"x": 1}}


def test_job_type_prefers_feast_job_kind_then_job_type() -> None:
    assert job_fields({}) == (None, None)
    job_type = {"jobType": {"processingType": "BATCH", "integration": "SPARK"}}
    assert job_fields(job_type).job_type == "BATCH"
    assert job_fields({"jobType": {"integration": "DBT"}}).job_type == "DBT"
    feast = {"feast_jobKind": {"kind": "materialization"}, **job_type}
    assert job_fields(feast).job_type == "materialization"
    assert job_fields({"documentation": {"description": "d"}}).description == "d"
    assert job_fields({"jobType": "not an object"}).job_type is None


def test_dataset_fields_come_from_its_facets() -> None:
    fields = dataset_fields(
        {
            "dataSource": {"name": "postgres", "uri": "postgres://db:5432"},
            "documentation": {"description": "orders"},
            "schema": {"fields": [{"name": "id"}]},
            "ownership": {"owners": [{"name": "team:a", "type": "TEAM"}, {"name": "b"}]},
            "lifecycleStateChange": {"lifecycleStateChange": "CREATE"},
        }
    )
    assert fields.source_type == "postgres"
    assert fields.description == "orders"
    assert json.loads(fields.schema_json or "") == {"fields": [{"name": "id"}]}
    assert (fields.owner_name, fields.owner_type) == ("team:a", "TEAM")
    assert fields.lifecycle_state == "CREATE"
    assert dataset_fields({"ownership": {"owners": []}, "schema": [1]}) == (None,) * 6


def test_edge_ends_and_link_types() -> None:
    assert node_fields("source", NodeRef("job", "ns", "j")) == {
        "source_type": "job",
        "source_namespace": "ns",
        "source_name": "j",
    }
    assert link_type("datasource", None) == "dataSource_uri"
    assert link_type("symlink", "TABLE") == "TABLE"
    assert link_type("symlink", None) == "symlink"
