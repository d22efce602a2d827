"""Column lineage in Feast's events: every output's ``columnLineage`` facet, field by field.

On a real repository (batch, push, Kafka and batch-feature views, an on
demand view, services with projections and aliases) through the Python
API: apply, materialize, historical retrieval, saved datasets and
lineage-sync. Every facet validates against ColumnLineageDatasetFacet 1-2-0.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from feast_lineage import FeatureStore
from feast_lineage.producer import columns
from tests.producer.conftest import by_job, output
from tests.producer.feast_repo import (
    NOW,
    feast_objects,
    file_transport,
    load_module,
    read_events,
    write_repo,
)
from tests.producer.olschema import column_lineage_problems, problems

SERVER = "http://localhost:6580"
NS = "demo"
# (input dataset, input field, type, subtype) of one output field
Edge = tuple[str, str, str, str]


def identity(dataset: str, field: str) -> Edge:
    return (dataset, field, "DIRECT", "IDENTITY")


def fields_of(facet: dict[str, Any]) -> dict[str, list[Edge]]:
    out: dict[str, list[Edge]] = {}
    for name, spec in facet["fields"].items():
        edges = []
        for item in spec["inputFields"]:
            assert item["namespace"] == NS
            (transformation,) = item["transformations"]
            edges.append(
                (item["name"], item["field"], transformation["type"], transformation["subtype"])
            )
        out[name] = edges
    return out


def dataset_of(facet: dict[str, Any]) -> list[Edge]:
    return [
        (i["name"], i["field"], i["transformations"][0]["type"], i["transformations"][0]["subtype"])
        for i in facet.get("dataset") or []
    ]


def column_facet(event: dict[str, Any], dataset: str) -> dict[str, Any]:
    facet: dict[str, Any] = output(event, dataset)["columnLineage"]
    assert column_lineage_problems(facet) == []
    return facet


ALIASED = """
from {base} import driver_hourly_stats
from feast import FeatureService

driver_aliased = FeatureService(
    name="driver_aliased",
    features=[driver_hourly_stats[["conv_rate"]].with_name("drivers")],
)
"""


@dataclass
class Repo:
    root: Path
    events_path: Path
    store: FeatureStore

    def events(self) -> list[dict[str, Any]]:
        return read_events(self.events_path)

    def job(self, name: str) -> dict[str, Any]:
        return by_job(self.events())[name][-1]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    root = tmp_path_factory.mktemp("columns")
    events = root / "events.jsonl"
    root, base_name = write_repo(root, openlineage=file_transport(events), streams=True)
    (root / f"{base_name}_aliased.py").write_text(ALIASED.replace("{base}", base_name))
    objects = [
        *feast_objects(load_module(root, base_name)),
        *feast_objects(load_module(root, f"{base_name}_streams")),
        load_module(root, f"{base_name}_aliased").driver_aliased,
    ]
    store = FeatureStore(repo_path=str(root))
    store.apply(objects)
    return Repo(root, events, store)


def test_a_feature_view_takes_each_column_from_its_source_through_field_mapping(
    repo: Repo,
) -> None:
    event = repo.job("feast_apply_feature_view_driver_hourly_stats")
    facet = column_facet(event, "feature_view/driver_hourly_stats")
    source = "data_source/driver_stats_source"
    assert fields_of(facet) == {
        "conv_rate": [identity(source, "conv_rate")],
        "acc_rate": [identity(source, "acc_rate")],
        # field_mapping={"trips": "avg_daily_trips"}: the source's column is trips
        "avg_daily_trips": [identity(source, "trips")],
        "driver_id": [identity(source, "driver_id")],
        "event_timestamp": [identity(source, "event_timestamp")],
        "created": [identity(source, "created")],
    }
    assert dataset_of(facet) == []


def test_push_and_stream_views_take_columns_from_the_stream_and_the_batch_source(
    repo: Repo,
) -> None:
    push, batch = "data_source/driver_stats_push", "data_source/driver_stats_source"
    fresh = column_facet(
        repo.job("feast_apply_feature_view_driver_fresh_stats"), "feature_view/driver_fresh_stats"
    )
    assert fields_of(fresh) == {
        "conv_rate": [identity(push, "conv_rate"), identity(batch, "conv_rate")],
        "driver_id": [identity(push, "driver_id"), identity(batch, "driver_id")],
        # a push source has no timestamp field of its own
        "event_timestamp": [identity(batch, "event_timestamp")],
        "created": [identity(batch, "created")],
    }
    kafka = "data_source/driver_stream"
    stream = column_facet(
        repo.job("feast_apply_feature_view_driver_stream_stats"),
        "feature_view/driver_stream_stats",
    )
    assert fields_of(stream) == {
        "conv_rate": [identity(kafka, "conv_rate"), identity(batch, "conv_rate")],
        "driver_id": [identity(kafka, "driver_id"), identity(batch, "driver_id")],
        "event_timestamp": [identity(kafka, "event_timestamp"), identity(batch, "event_timestamp")],
        "created": [identity(batch, "created")],
    }
    daily = column_facet(
        repo.job("feast_apply_feature_view_driver_daily"), "feature_view/driver_daily"
    )
    assert fields_of(daily)["avg_daily_trips"] == [identity(batch, "trips")]


def test_an_on_demand_view_names_its_declared_inputs_at_dataset_level_never_guessing(
    repo: Repo,
) -> None:
    facet = column_facet(repo.job("feast_apply_odfv_expected_trips"), "feature_view/expected_trips")
    assert facet["fields"] == {}
    view = "feature_view/driver_hourly_stats"
    indirect = [
        (view, "conv_rate"),
        (view, "acc_rate"),
        (view, "avg_daily_trips"),
        ("data_source/trip_request", "trip_distance"),
    ]
    assert dataset_of(facet) == [(d, f, "INDIRECT", "TRANSFORMATION") for d, f in indirect]
    descriptions = {i["transformations"][0]["description"] for i in facet["dataset"]}
    assert descriptions == {"the pandas transformation of on demand feature view expected_trips"}


def test_a_feature_service_serves_each_projected_feature_under_its_alias(repo: Repo) -> None:
    view, odfv = "feature_view/driver_hourly_stats", "feature_view/expected_trips"
    service = column_facet(
        repo.job("feast_apply_feature_service_driver_activity"), "feature_service/driver_activity"
    )
    assert fields_of(service) == {
        "driver_hourly_stats:conv_rate": [identity(view, "conv_rate")],
        "driver_hourly_stats:acc_rate": [identity(view, "acc_rate")],
        "driver_hourly_stats:avg_daily_trips": [identity(view, "avg_daily_trips")],
        "expected_trips:expected_trips": [identity(odfv, "expected_trips")],
    }
    projected = column_facet(
        repo.job("feast_apply_feature_service_customer_overview"),
        "feature_service/customer_overview",
    )
    assert fields_of(projected) == {
        "customer_profile:lifetime_value": [
            identity("feature_view/customer_profile", "lifetime_value")
        ]
    }
    aliased = column_facet(
        repo.job("feast_apply_feature_service_driver_aliased"), "feature_service/driver_aliased"
    )
    assert fields_of(aliased) == {"drivers:conv_rate": [identity(view, "conv_rate")]}


def test_a_view_s_online_store_table_takes_its_features(repo: Repo) -> None:
    before = len(repo.events())
    repo.store.materialize(NOW - timedelta(days=1), NOW, feature_views=["driver_hourly_stats"])
    events = by_job(repo.events()[before:])["feast_materialize_feature_view_driver_hourly_stats"]
    start, complete = events
    assert "columnLineage" not in (start["outputs"][0].get("facets") or {})
    view = "feature_view/driver_hourly_stats"
    facet = column_facet(complete, "online_store/driver_hourly_stats")
    assert fields_of(facet) == {
        name: [identity(view, name)] for name in ("conv_rate", "acc_rate", "avg_daily_trips")
    }


def entity_df() -> pd.DataFrame:
    return pd.DataFrame(
        {"driver_id": [1001, 1002], "event_timestamp": [NOW, NOW], "trip_distance": [1.0, 2.0]}
    )


@pytest.mark.parametrize("full_feature_names", [False, True])
def test_a_historical_retrieval_writes_a_training_frame_of_features_and_entity_columns(
    repo: Repo, full_feature_names: bool
) -> None:
    before = len(repo.events())
    service = repo.store.get_feature_service("driver_activity")
    repo.store.get_historical_features(
        entity_df=entity_df(), features=service, full_feature_names=full_feature_names
    )
    (event,) = repo.events()[before:]
    assert event["job"]["name"] == "feast_get_historical_features_driver_activity"
    frame = "entity_frame/feature_service/driver_activity"
    (entity_input,) = [d for d in event["inputs"] if d["name"] == frame]
    assert [f["name"] for f in entity_input["facets"]["schema"]["fields"]] == [
        "driver_id",
        "event_timestamp",
        "trip_distance",
    ]
    facet = column_facet(event, "training_frame/feature_service/driver_activity")
    view, odfv = "feature_view/driver_hourly_stats", "feature_view/expected_trips"

    def named(view_name: str, feature: str) -> str:
        return f"{view_name}__{feature}" if full_feature_names else feature

    assert fields_of(facet) == {
        "driver_id": [identity(frame, "driver_id")],
        "event_timestamp": [identity(frame, "event_timestamp")],
        "trip_distance": [identity(frame, "trip_distance")],
        named("driver_hourly_stats", "conv_rate"): [identity(view, "conv_rate")],
        named("driver_hourly_stats", "acc_rate"): [identity(view, "acc_rate")],
        named("driver_hourly_stats", "avg_daily_trips"): [identity(view, "avg_daily_trips")],
        named("expected_trips", "expected_trips"): [identity(odfv, "expected_trips")],
    }
    # The frame Feast returns has exactly these columns.
    job = repo.store.get_historical_features(
        entity_df=entity_df(), features=service, full_feature_names=full_feature_names
    )
    assert set(job.to_df().columns) == set(fields_of(facet))
    assert problems(event, SERVER) == []


def test_a_feature_list_retrieval_reads_the_views_its_references_name(repo: Repo) -> None:
    before = len(repo.events())
    repo.store.get_historical_features(
        entity_df=entity_df(), features=["driver_hourly_stats:conv_rate"]
    )
    (event,) = repo.events()[before:]
    facet = column_facet(event, "training_frame/feature_list")
    assert fields_of(facet)["conv_rate"] == [
        identity("feature_view/driver_hourly_stats", "conv_rate")
    ]
    assert "entity_frame/feature_list" in [d["name"] for d in event["inputs"]]


def test_a_saved_dataset_takes_its_feature_columns_from_the_views(repo: Repo) -> None:
    from feast.infra.offline_stores.file_source import SavedDatasetFileStorage

    service = repo.store.get_feature_service("driver_aliased")
    job = repo.store.get_historical_features(
        entity_df=entity_df(), features=service, full_feature_names=True
    )
    repo.store.create_saved_dataset(
        from_=job,
        name="aliased_training",
        storage=SavedDatasetFileStorage(path=str(repo.root / "data" / "aliased.parquet")),
        feature_service=service,
    )
    event = repo.job("feast_apply_saved_dataset_aliased_training")
    facet = column_facet(event, "saved_dataset/aliased_training")
    # Feast keeps the entity frame's key columns (0.67: the views' join keys;
    # 0.59: every entity column but the timestamp) beside the features.
    keys = repo.store.get_saved_dataset("aliased_training").join_keys
    assert "driver_id" in keys
    frame = "entity_frame/feature_service/driver_aliased"
    # The alias names the column; the view it stands for is the input.
    assert fields_of(facet) == {
        **{key: [identity(frame, key)] for key in keys},
        "drivers__conv_rate": [identity("feature_view/driver_hourly_stats", "conv_rate")],
    }
    assert frame in [d["name"] for d in event["inputs"]]
    assert {"drivers__conv_rate", *keys} <= set(job.to_df().columns)


def test_lineage_sync_re_emits_the_column_lineage(repo: Repo) -> None:
    applied = {
        (e["job"]["name"], o["name"]): o["facets"]["columnLineage"]
        for e in repo.events()
        if e["job"]["name"].startswith("feast_apply_")
        for o in e["outputs"]
        if "columnLineage" in (o.get("facets") or {})
    }
    before = len(repo.events())
    repo.store.sync_lineage()
    synced = {
        (e["job"]["name"], o["name"]): o["facets"]["columnLineage"]
        for e in repo.events()[before:]
        for o in e["outputs"]
        if "columnLineage" in (o.get("facets") or {})
    }
    assert synced == applied
    assert len(synced) >= 10


def test_every_event_validates_with_its_column_lineage(repo: Repo) -> None:
    seen = 0
    for event in repo.events():
        assert problems(event, SERVER) == [], event["job"]["name"]
        for dataset in event["outputs"]:
            facet = (dataset.get("facets") or {}).get("columnLineage")
            if facet is not None:
                seen += 1
                assert column_lineage_problems(facet) == [], dataset["name"]
    assert seen > 0


# Definitions Feast keeps in memory: aggregations, transformations, versions ----


def test_declared_aggregations_are_field_to_field_and_udfs_are_dataset_level() -> None:
    from feast import Entity, Field, FileSource
    from feast.aggregation import Aggregation
    from feast.data_format import JsonFormat
    from feast.data_source import KafkaSource
    from feast.stream_feature_view import StreamFeatureView
    from feast.types import Float32, Int64
    from feast.value_type import ValueType

    batch = FileSource(
        name="trips",
        path="trips.parquet",
        timestamp_field="ts",
        field_mapping={"fare_usd": "fare"},
    )
    kafka = KafkaSource(
        name="trips_stream",
        kafka_bootstrap_servers="broker:9092",
        topic="trips",
        timestamp_field="ts",
        batch_source=batch,
        message_format=JsonFormat(schema_json="driver_id integer, ts timestamp, fare double"),
    )
    driver = Entity(name="driver", join_keys=["driver_id"], value_type=ValueType.INT64)

    def udf(frame: Any) -> Any:
        return frame

    view = StreamFeatureView(
        name="fares",
        entities=[driver],
        schema=[
            Field(name="driver_id", dtype=Int64),
            Field(name="sum_fare", dtype=Float32),
            Field(name="fare_tip", dtype=Float32),
        ],
        source=kafka,
        aggregations=[Aggregation(column="fare", function="sum", time_window=timedelta(hours=1))],
        timestamp_field="ts",
        udf=udf,
    )
    lineage = columns.of_view(view)
    stream, file = "data_source/trips_stream", "data_source/trips"
    # The aggregated column, through the batch source's field_mapping.
    assert {
        k: [(i.dataset, i.field, i.type, i.subtype) for i in v] for k, v in lineage.fields.items()
    } == {
        "sum_fare": [
            (stream, "fare", "DIRECT", "AGGREGATION"),
            (file, "fare_usd", "DIRECT", "AGGREGATION"),
        ]
    }
    assert lineage.fields["sum_fare"][0].description == "sum(fare) over 3600s"
    # fare_tip comes out of the udf: only what it is known to read, at dataset level.
    assert [(i.dataset, i.field, i.type) for i in lineage.dataset] == [
        (stream, "driver_id", "INDIRECT"),
        (file, "driver_id", "INDIRECT"),
        (stream, "ts", "INDIRECT"),
        (file, "ts", "INDIRECT"),
    ]


def test_version_qualified_references_keep_the_version_in_the_name() -> None:
    from feast import Entity, FeatureService, FeatureView, Field, FileSource
    from feast.feature_view_projection import FeatureViewProjection
    from feast.types import Float32
    from feast.value_type import ValueType

    if "version_tag" not in FeatureViewProjection.__annotations__:
        pytest.skip("this Feast release has no version-qualified references")
    view = FeatureView(
        name="stats",
        entities=[Entity(name="driver", join_keys=["driver_id"], value_type=ValueType.INT64)],
        schema=[Field(name="conv_rate", dtype=Float32)],
        source=FileSource(name="stats_source", path="s.parquet", timestamp_field="ts"),
    )
    service = FeatureService(name="pinned", features=[view])
    service.feature_view_projections[0].version_tag = 2
    lineage = columns.of_service(service)
    assert list(lineage.fields) == ["stats@v2:conv_rate"]
    assert lineage.fields["stats@v2:conv_rate"][0][:2] == ("feature_view/stats", "conv_rate")
    frame = columns.of_training_frame(
        columns.features_of_refs(["stats@v2:conv_rate"]), full_feature_names=True
    )
    assert list(frame.fields) == ["stats@v2__conv_rate"]
    assert frame.fields["stats@v2__conv_rate"][0][:2] == ("feature_view/stats", "conv_rate")


def test_an_entity_frame_given_as_sql_has_no_known_columns() -> None:
    assert columns.EntityFrame.of("select driver_id, event_timestamp from trips") is None
    assert columns.EntityFrame.of(entity_df()) == columns.EntityFrame(
        (
            ("driver_id", "int64"),
            ("event_timestamp", "datetime64[ns, UTC]"),
            ("trip_distance", "float64"),
        )
    )
