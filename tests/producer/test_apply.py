"""`feast-lineage apply`: exactly the spec's jobs, edges and facets, and only changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.producer.conftest import by_job, invoke, io_of, output
from tests.producer.feast_repo import (
    DRIVER,
    HEADER,
    file_transport,
    read_events,
    write_definitions,
    write_repo,
)
from tests.producer.olschema import problems

SERVER = "http://localhost:6580"

EXPECTED: dict[str, tuple[list[str], list[str]]] = {
    "feast_apply_entities": ([], ["entity/customer", "entity/driver"]),
    "feast_apply_data_sources": (
        [],
        [
            "data_source/customer_source",
            "data_source/driver_stats_push",
            "data_source/driver_stats_source",
            "data_source/trip_request",
        ],
    ),
    "feast_apply_feature_view_driver_hourly_stats": (
        ["data_source/driver_stats_source", "entity/driver"],
        ["feature_view/driver_hourly_stats"],
    ),
    "feast_apply_feature_view_driver_fresh_stats": (
        ["data_source/driver_stats_push", "data_source/driver_stats_source", "entity/driver"],
        ["feature_view/driver_fresh_stats"],
    ),
    "feast_apply_feature_view_customer_profile": (
        ["data_source/customer_source", "entity/customer"],
        ["feature_view/customer_profile"],
    ),
    "feast_apply_odfv_expected_trips": (
        ["data_source/trip_request", "feature_view/driver_hourly_stats"],
        ["feature_view/expected_trips"],
    ),
    "feast_apply_feature_service_driver_activity": (
        ["feature_view/driver_hourly_stats", "feature_view/expected_trips"],
        ["feature_service/driver_activity"],
    ),
    "feast_apply_feature_service_customer_overview": (
        ["feature_view/customer_profile"],
        ["feature_service/customer_overview"],
    ),
}


@dataclass
class Applied:
    root: Path
    events_path: Path
    output: str

    def events(self) -> list[dict[str, Any]]:
        return read_events(self.events_path)


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Applied:
    root = tmp_path_factory.mktemp("apply")
    events = root / "events.jsonl"
    write_repo(root, openlineage=file_transport(events))
    result = invoke("-c", str(root), "apply")
    return Applied(root, events, result.output)


def test_feast_output_is_unchanged(applied: Applied) -> None:
    assert "Created feature view driver_hourly_stats" in applied.output
    assert "Created sqlite table demo_driver_hourly_stats" in applied.output


def test_apply_emits_exactly_the_spec_jobs_with_their_own_inputs_and_outputs(
    applied: Applied,
) -> None:
    events = applied.events()
    jobs = by_job(events)
    assert {name: len(found) for name, found in jobs.items()} == dict.fromkeys(EXPECTED, 1)
    assert {name: io_of(found[0]) for name, found in jobs.items()} == EXPECTED
    assert [e["job"]["name"] for e in events[:2]] == [
        "feast_apply_entities",
        "feast_apply_data_sources",
    ]


def test_apply_events_are_complete_definition_runs_in_the_project_namespace(
    applied: Applied,
) -> None:
    for event in applied.events():
        assert event["eventType"] == "COMPLETE"
        assert event["job"]["namespace"] == "demo"
        assert (
            event["producer"] == "https://github.com/feast-lineage/feast-lineage/tree/v0.1.0#feast"
        )
        assert {d["namespace"] for d in event["inputs"] + event["outputs"]} <= {"demo"}
        job = event["job"]["facets"]
        assert job["feast_job_kind"]["kind"] == "definition"
        assert job["feast_job_kind"]["feast_project"] == "demo"
        project = {k: v for k, v in job["feast_project"].items() if not k.startswith("_")}
        assert project == {
            "project_name": "demo",
            "provider": "local",
            "online_store_type": "sqlite",
            "offline_store_type": "file",
            "registry_type": "sql",
        }
        for dataset in event["outputs"]:
            assert dataset["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"


def test_every_apply_event_validates_against_the_openlineage_schemas(applied: Applied) -> None:
    for event in applied.events():
        assert problems(event, SERVER) == [], event["job"]["name"]


def fields(facet: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in facet.items() if not k.startswith("_")}


def test_entity_facets(applied: Applied) -> None:
    event = by_job(applied.events())["feast_apply_entities"][0]
    driver = output(event, "entity/driver")
    assert fields(driver["feast_entity"]) == {
        "name": "driver",
        "join_keys": ["driver_id"],
        "value_type": "INT64",
        "description": "A driver of the fleet",
        "owner": "fleet@example.com",
        "tags": {"team": "fleet"},
    }
    assert driver["schema"]["fields"][0]["name"] == "driver_id"
    assert driver["schema"]["fields"][0]["type"] == "INT64"
    assert driver["documentation"]["description"] == "A driver of the fleet"
    customer = output(event, "entity/customer")
    assert customer["feast_entity"]["value_type"] == "STRING"
    assert "documentation" not in customer


def test_data_source_facets(applied: Applied) -> None:
    event = by_job(applied.events())["feast_apply_data_sources"][0]
    stats = output(event, "data_source/driver_stats_source")
    assert fields(stats["feast_data_source"]) == {
        "name": "driver_stats_source",
        "source_type": "FileSource",
        "timestamp_field": "event_timestamp",
        "created_timestamp_field": "created",
        "field_mapping": {"trips": "avg_daily_trips"},
        "description": "Hourly driver statistics",
        "tags": {"tier": "gold"},
    }
    parquet = (applied.root / "data" / "driver_stats.parquet").resolve()
    assert stats["dataSource"]["uri"] == parquet.as_uri()
    assert stats["dataSource"]["name"] == "driver_stats_source"
    # The dataset a Spark job reading the same file names: an alias of the source.
    assert stats["symlinks"]["identifiers"] == [
        {"namespace": "file", "name": str(parquet), "type": "FILE"}
    ]
    push = output(event, "data_source/driver_stats_push")
    assert push["feast_data_source"]["source_type"] == "PushSource"
    assert "uri" not in push["dataSource"]
    assert "symlinks" not in push
    request = output(event, "data_source/trip_request")
    assert request["feast_data_source"]["source_type"] == "RequestSource"
    assert request["schema"]["fields"] == [
        {"name": "trip_distance", "type": "DOUBLE", "description": "km", "fields": []}
    ]


def test_feature_view_facets(applied: Applied) -> None:
    jobs = by_job(applied.events())
    view = output(
        jobs["feast_apply_feature_view_driver_hourly_stats"][0], "feature_view/driver_hourly_stats"
    )
    assert fields(view["feast_feature_view"]) == {
        "name": "driver_hourly_stats",
        "ttl_seconds": 86400,
        "entities": ["driver"],
        "features": ["conv_rate", "acc_rate", "avg_daily_trips"],
        "online_enabled": True,
        "offline_enabled": False,
        "mode": "BATCH",
        "description": "Driver statistics per hour",
        "owner": "fleet@example.com",
        "tags": {"team": "fleet"},
    }
    assert [(f["name"], f["type"], f.get("description")) for f in view["schema"]["fields"]] == [
        ("conv_rate", "FLOAT", "Conversion rate"),
        ("acc_rate", "FLOAT", "Acceptance rate"),
        ("avg_daily_trips", "INT64", "Trips per day"),
    ]
    assert view["documentation"]["description"] == "Driver statistics per hour"
    customer = output(
        jobs["feast_apply_feature_view_customer_profile"][0], "feature_view/customer_profile"
    )["feast_feature_view"]
    assert customer["ttl_seconds"] == 0
    assert list(customer["features"]) == ["lifetime_value", "segment"]
    odfv = output(jobs["feast_apply_odfv_expected_trips"][0], "feature_view/expected_trips")
    assert fields(odfv["feast_feature_view"]) == {
        "name": "expected_trips",
        "ttl_seconds": 0,
        "entities": [],
        "features": ["expected_trips"],
        "online_enabled": False,
        "offline_enabled": False,
        "mode": "ON_DEMAND",
        "description": "Trips expected on this request",
        "owner": "",
        "tags": {},
    }


def test_feature_service_facets(applied: Applied) -> None:
    jobs = by_job(applied.events())
    service = output(
        jobs["feast_apply_feature_service_driver_activity"][0], "feature_service/driver_activity"
    )
    assert fields(service["feast_feature_service"]) == {
        "name": "driver_activity",
        "feature_views": ["driver_hourly_stats", "expected_trips"],
        "feature_count": 4,
        "description": "What the dispatch model reads",
        "owner": "dispatch@example.com",
        "tags": {"model": "dispatch"},
        "logging_enabled": False,
    }
    assert [f["name"] for f in service["schema"]["fields"]] == [
        "driver_hourly_stats:conv_rate",
        "driver_hourly_stats:acc_rate",
        "driver_hourly_stats:avg_daily_trips",
        "expected_trips:expected_trips",
    ]
    overview = output(
        jobs["feast_apply_feature_service_customer_overview"][0],
        "feature_service/customer_overview",
    )["feast_feature_service"]
    assert (overview["feature_count"], overview["logging_enabled"]) == (1, True)


def test_an_unchanged_apply_emits_nothing(applied: Applied) -> None:
    before = len(applied.events())
    invoke("-c", str(applied.root), "apply")
    assert len(applied.events()) == before


# The customer objects removed, one description changed.
CHANGED = HEADER + DRIVER.replace("Driver statistics per hour", "Hourly, revised")


def test_changes_and_deletions_are_reported(tmp_path: Path) -> None:
    events_path = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=file_transport(events_path))
    invoke("-c", str(root), "apply")
    first = len(read_events(events_path))
    write_definitions(root, CHANGED)
    invoke("-c", str(root), "apply")
    events = read_events(events_path)[first:]
    jobs = by_job(events)
    changed = output(
        jobs["feast_apply_feature_view_driver_hourly_stats"][0], "feature_view/driver_hourly_stats"
    )
    assert changed["lifecycleStateChange"]["lifecycleStateChange"] == "ALTER"
    assert changed["feast_feature_view"]["description"] == "Hourly, revised"

    dropped = {
        d["name"]: d["facets"]
        for e in events
        for d in e["outputs"]
        if d["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"
    }
    assert set(dropped) == {
        "entity/customer",
        "feature_view/customer_profile",
        "feature_service/customer_overview",
        "data_source/customer_source",
    }
    assert all(set(facets) == {"lifecycleStateChange"} for facets in dropped.values())
    assert io_of(jobs["feast_apply_feature_view_customer_profile"][0]) == (
        [],
        ["feature_view/customer_profile"],
    )
    # Nothing else: the unchanged objects are not reported again.
    assert set(jobs) == {
        "feast_apply_entities",
        "feast_apply_data_sources",
        "feast_apply_feature_view_driver_hourly_stats",
        "feast_apply_feature_view_customer_profile",
        "feast_apply_feature_service_customer_overview",
    }
    for event in events:
        assert problems(event, SERVER) == []
