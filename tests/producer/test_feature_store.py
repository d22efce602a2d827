"""`from feast_lineage import FeatureStore`: Feast's API, with lineage.

Stream and batch feature views, push and Kafka sources, deletes, saved
datasets and retrieval, through the Python API on a real repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import feast
import pandas as pd
import pytest

import feast_lineage
from feast_lineage import FeatureStore
from feast_lineage.registry.repo_config import lineage_section
from tests.producer.conftest import by_job, io_of, output
from tests.producer.feast_repo import (
    NOW,
    feast_objects,
    file_transport,
    load_module,
    read_events,
    with_section,
    write_repo,
)
from tests.producer.olschema import problems

SERVER = "http://localhost:6580"


@dataclass
class Repo:
    root: Path
    events_path: Path
    store: FeatureStore
    base: Any
    streams: Any

    def events(self) -> list[dict[str, Any]]:
        return read_events(self.events_path)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    root = tmp_path_factory.mktemp("api")
    events = root / "events.jsonl"
    root, base_name = write_repo(root, openlineage=file_transport(events), streams=True)
    base = load_module(root, base_name)
    streams = load_module(root, f"{base_name}_streams")
    store = FeatureStore(repo_path=str(root))
    store.apply(feast_objects(base) + feast_objects(streams))
    return Repo(root, events, store, base, streams)


def test_it_is_a_drop_in_feast_feature_store(repo: Repo) -> None:
    assert feast_lineage.FeatureStore is FeatureStore
    assert isinstance(repo.store, feast.FeatureStore)
    assert {v.name for v in repo.store.list_stream_feature_views()} == {"driver_stream_stats"}


def test_stream_and_batch_views_and_their_sources(repo: Repo) -> None:
    jobs = by_job(repo.events())
    stream = jobs["feast_apply_feature_view_driver_stream_stats"][0]
    assert io_of(stream) == (
        ["data_source/driver_stats_source", "data_source/driver_stream", "entity/driver"],
        ["feature_view/driver_stream_stats"],
    )
    facet = output(stream, "feature_view/driver_stream_stats")["feast_feature_view"]
    assert (facet["mode"], facet["ttl_seconds"], facet["owner"]) == (
        "STREAM",
        3600,
        "stream@example.com",
    )
    batch = jobs["feast_apply_feature_view_driver_daily"][0]
    assert io_of(batch) == (
        ["data_source/driver_stats_source", "entity/driver"],
        ["feature_view/driver_daily"],
    )
    batch_facet = output(batch, "feature_view/driver_daily")["feast_feature_view"]
    assert (batch_facet["mode"], batch_facet["features"]) == ("BATCH", ["avg_daily_trips"])
    sources = jobs["feast_apply_data_sources"][0]
    kafka = output(sources, "data_source/driver_stream")
    assert kafka["feast_data_source"]["source_type"] == "KafkaSource"
    assert kafka["dataSource"]["uri"] == "kafka://broker:9092/driver-events"
    for event in repo.events():
        assert problems(event, SERVER) == [], event["job"]["name"]


def test_push_source_views_read_the_push_and_the_batch_source(repo: Repo) -> None:
    event = by_job(repo.events())["feast_apply_feature_view_driver_fresh_stats"][0]
    assert io_of(event)[0] == [
        "data_source/driver_stats_push",
        "data_source/driver_stats_source",
        "entity/driver",
    ]


def test_deleting_a_feature_service_reports_drop(repo: Repo) -> None:
    before = len(repo.events())
    repo.store.delete_feature_service("customer_overview")
    events = repo.events()[before:]
    assert [e["job"]["name"] for e in events] == ["feast_apply_feature_service_customer_overview"]
    facets = output(events[0], "feature_service/customer_overview")
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"
    assert io_of(events[0])[0] == []


def entity_df() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "driver_id": [1001, 1002],
            "event_timestamp": [NOW, NOW],
            "trip_distance": [1.0, 2.0],
        }
    )


def test_historical_retrieval_and_saved_dataset(repo: Repo) -> None:
    from feast import FileSource
    from feast.infra.offline_stores.file_source import SavedDatasetFileStorage

    store = repo.store
    training = FileSource(
        name="training_source", path="data/training.parquet", timestamp_field="event_timestamp"
    )
    store.apply([training])
    service = store.get_feature_service("driver_activity")
    before = len(repo.events())
    job = store.get_historical_features(entity_df=entity_df(), features=service)
    store.create_saved_dataset(
        from_=job,
        name="dispatch_training",
        storage=SavedDatasetFileStorage(path=str(repo.root / "data" / "training.parquet")),
        feature_service=service,
        tags={"use": "training"},
    )
    events = repo.events()[before:]
    jobs = by_job(events)
    retrieval = jobs["feast_get_historical_features_driver_activity"][0]
    assert io_of(retrieval) == (
        [
            "entity_frame/feature_service/driver_activity",
            "feature_service/driver_activity",
            "feature_view/driver_hourly_stats",
            "feature_view/expected_trips",
        ],
        ["training_frame/feature_service/driver_activity"],
    )
    facet = {k: v for k, v in retrieval["run"]["facets"]["feast_retrieval"].items() if k[0] != "_"}
    assert facet == {
        "retrieval_type": "historical",
        "feature_service": "driver_activity",
        "feature_views": ["driver_hourly_stats", "expected_trips"],
        "features": [
            "driver_hourly_stats:conv_rate",
            "driver_hourly_stats:acc_rate",
            "driver_hourly_stats:avg_daily_trips",
            "expected_trips:expected_trips",
        ],
        "entity_count": 2,
        "full_feature_names": False,
    }
    saved = jobs["feast_apply_saved_dataset_dispatch_training"][0]
    assert io_of(saved) == (
        [
            "data_source/training_source",
            "entity_frame/feature_service/driver_activity",
            "feature_service/driver_activity",
        ],
        ["saved_dataset/dispatch_training"],
    )
    facets = output(saved, "saved_dataset/dispatch_training")
    saved_facet = {k: v for k, v in facets["feast_saved_dataset"].items() if k[0] != "_"}
    assert saved_facet["feature_service_name"] == "driver_activity"
    assert saved_facet["tags"] == {"use": "training"}
    assert saved_facet["full_feature_names"] is False
    assert set(saved_facet["join_keys"]) >= {"driver_id"}
    assert facets["dataSource"]["uri"] == (repo.root / "data" / "training.parquet").as_uri()
    for event in events:
        assert problems(event, SERVER) == [], event["job"]["name"]


def test_online_retrieval_is_aggregated_until_flushed(repo: Repo) -> None:
    store = FeatureStore(repo_path=str(repo.root))
    before = len(repo.events())
    for rows in ([{"driver_id": 1001}, {"driver_id": 1002}], {"driver_id": [1001, 1002, 1003]}):
        store.get_online_features(features=["driver_hourly_stats:conv_rate"], entity_rows=rows)
    store.get_online_features(
        features=["driver_hourly_stats:conv_rate"], entity_rows=[{"driver_id": 1004}]
    )
    assert len(repo.events()) == before  # nothing on the serving path
    store.flush_lineage()
    events = repo.events()[before:]
    assert len(events) == 1
    event = events[0]
    assert event["job"]["name"] == "feast_get_online_features"
    assert event["eventType"] == "COMPLETE"
    facet = event["run"]["facets"]["feast_retrieval"]
    assert facet["retrieval_type"] == "online"
    assert facet["entity_count"] == 6
    assert facet["features"] == ["driver_hourly_stats:conv_rate"]
    assert "feature_service" not in facet
    window = event["run"]["facets"]["nominalTime"]
    assert window["nominalStartTime"] <= window["nominalEndTime"]
    assert problems(event, SERVER) == []
    store.flush_lineage()
    assert len(repo.events()) == before + 1


def test_online_retrieval_interval_zero_emits_every_call(repo: Repo) -> None:
    from feast.repo_config import load_repo_config

    config = load_repo_config(repo.root, repo.root / "feature_store.yaml")
    section = {**lineage_section(config), "online_retrieval_interval_seconds": 0}
    store = FeatureStore(repo_path=str(repo.root), config=with_section(config, section))
    service = store.get_feature_service("driver_activity")
    before = len(repo.events())
    for _ in range(2):
        store.get_online_features(
            features=service, entity_rows=[{"driver_id": 1001, "trip_distance": 3.0}]
        )
    events = repo.events()[before:]
    assert [e["job"]["name"] for e in events] == ["feast_get_online_features_driver_activity"] * 2
    assert [e["run"]["facets"]["feast_retrieval"]["entity_count"] for e in events] == [1, 1]


def test_async_online_retrieval_is_counted_too(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    async def served(self: Any, *args: Any, **kwargs: Any) -> str:  # SQLite has no async reads
        return "response"

    monkeypatch.setattr(feast.FeatureStore, "get_online_features_async", served)
    store = FeatureStore(repo_path=str(repo.root))
    before = len(repo.events())
    response = asyncio.run(
        store.get_online_features_async(
            features=["driver_hourly_stats:acc_rate"], entity_rows=[{"driver_id": 1001}]
        )
    )
    assert response == "response"
    store.flush_lineage()
    events = repo.events()[before:]
    assert [e["job"]["name"] for e in events] == ["feast_get_online_features"]
    assert events[0]["run"]["facets"]["feast_retrieval"]["features"] == [
        "driver_hourly_stats:acc_rate"
    ]


def test_disabled_lineage_emits_nothing(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, base_name = write_repo(tmp_path, openlineage={**file_transport(events), "enabled": False})
    store = FeatureStore(repo_path=str(root))
    store.apply(feast_objects(load_module(root, base_name)))
    assert store.list_feature_views()
    assert not events.exists()
