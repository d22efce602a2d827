"""The quickstart's column lineage, from the raw table to the model.

``examples/quickstart/quickstart.py setup`` runs Feast on the quickstart
repository (as ``scripts/demo.sh`` does) with a file transport beside its
lineage store; Feast's ``columnLineage`` facets must state what
``driver_repo.py`` defines, field by field. The Airflow, dbt and Spark
events ``post-events`` sends carry column lineage too, so following the
facets upstream (through symlinks and equal dataSource URIs, the aliases the
consumer joins) leads from the model's ``score`` to the feature
``driver_hourly_stats:conv_rate`` and on to ``raw.public.trips.accepted``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.consumer.lineage import API
from tests.producer.conftest import by_job, output
from tests.producer.feast_repo import read_events
from tests.producer.olschema import column_lineage_problems, problems
from tests.quickstart import QUICKSTART, load_quickstart

NS = "driver_ranking"  # the quickstart's project, so its namespace
WAREHOUSE = "postgres://warehouse:5432"
Edge = tuple[str, str, str, str]
Field = tuple[str, str, str]  # namespace, dataset, field


@dataclass
class Quickstart:
    repo: Path
    feast: list[dict[str, Any]]  # what Feast emitted
    others: list[dict[str, Any]]  # what post-events sends


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Quickstart:
    repo = tmp_path_factory.mktemp("quickstart") / "repo"
    events = repo.parent / "feast-events.jsonl"
    env = {
        **os.environ,
        "FEAST_OPENLINEAGE_TRANSPORT_TYPE": "file",
        "FEAST_OPENLINEAGE_ADDITIONAL_CONFIG": json.dumps({"log_file_path": str(events)}),
    }
    done = subprocess.run(
        [sys.executable, str(QUICKSTART), "setup", str(repo)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    others = load_quickstart().other_producers(repo, datetime.now(UTC).replace(microsecond=0))
    return Quickstart(repo, read_events(events), others)


def identity(dataset: str, field: str) -> Edge:
    return (dataset, field, "DIRECT", "IDENTITY")


def fields_of(event: dict[str, Any], dataset: str) -> dict[str, list[Edge]]:
    facet = output(event, dataset)["columnLineage"]
    assert column_lineage_problems(facet) == []
    out = {}
    for name, spec in facet["fields"].items():
        edges = []
        for item in spec["inputFields"]:
            assert item["namespace"] == NS
            (t,) = item["transformations"]
            edges.append((item["name"], item["field"], t["type"], t["subtype"]))
        out[name] = edges
    return out


def test_feast_s_facets_state_driver_repo_s_definitions(quickstart: Quickstart) -> None:
    jobs = by_job(quickstart.feast)
    stats = "data_source/driver_hourly_stats_source"
    # The quickstart applies this view twice: conv_rate's type changes in between.
    applies = jobs["feast_apply_feature_view_driver_hourly_stats"]
    assert len(applies) == 2
    for event in applies:
        assert fields_of(event, "feature_view/driver_hourly_stats") == {
            "driver_id": [identity(stats, "driver_id")],
            "event_timestamp": [identity(stats, "event_timestamp")],
            "created": [identity(stats, "created")],
            "conv_rate": [identity(stats, "conv_rate")],
            "acc_rate": [identity(stats, "acc_rate")],
            "avg_daily_trips": [identity(stats, "avg_daily_trips")],
        }
    trips = "data_source/driver_daily_trips_source"
    (event,) = jobs["feast_apply_feature_view_driver_daily_trips"]
    assert fields_of(event, "feature_view/driver_daily_trips") == {
        "driver_id": [identity(trips, "driver_id")],
        "event_timestamp": [identity(trips, "event_timestamp")],
        "trips_today": [identity(trips, "trips_today")],
        "rating": [identity(trips, "rating")],
    }
    event = jobs["feast_apply_odfv_transformed_conv_rate"][-1]  # applied again with its view
    facet = output(event, "feature_view/transformed_conv_rate")["columnLineage"]
    view = "feature_view/driver_hourly_stats"
    assert facet["fields"] == {}
    assert [(i["name"], i["field"]) for i in facet["dataset"]] == [
        (view, "conv_rate"),
        (view, "acc_rate"),
        (view, "avg_daily_trips"),
        ("data_source/vals_to_add", "val_to_add"),
        ("data_source/vals_to_add", "val_to_add_2"),
    ]
    odfv = "feature_view/transformed_conv_rate"
    v1 = {
        "driver_hourly_stats:conv_rate": [identity(view, "conv_rate")],
        "driver_hourly_stats:acc_rate": [identity(view, "acc_rate")],
        "driver_hourly_stats:avg_daily_trips": [identity(view, "avg_daily_trips")],
        "transformed_conv_rate:conv_rate_plus_val1": [identity(odfv, "conv_rate_plus_val1")],
        "transformed_conv_rate:conv_rate_plus_val2": [identity(odfv, "conv_rate_plus_val2")],
    }
    # applied again with the changed view
    event = jobs["feast_apply_feature_service_driver_activity_v1"][-1]
    assert fields_of(event, "feature_service/driver_activity_v1") == v1
    daily = "feature_view/driver_daily_trips"
    # applied again with the changed view
    event = jobs["feast_apply_feature_service_driver_activity_v2"][-1]
    assert fields_of(event, "feature_service/driver_activity_v2") == {
        **{k: v for k, v in v1.items() if k.startswith("driver_hourly_stats")},
        "driver_daily_trips:trips_today": [identity(daily, "trips_today")],
        "driver_daily_trips:rating": [identity(daily, "rating")],
        **{k: v for k, v in v1.items() if k.startswith("transformed")},
    }
    # materialized twice: before the type change and after it
    completes = [
        e
        for e in jobs["feast_materialize_feature_view_driver_daily_trips"]
        if e["eventType"] == "COMPLETE"
    ]
    assert len(completes) == 2
    for event in completes:
        assert fields_of(event, "online_store/driver_daily_trips") == {
            "trips_today": [identity(daily, "trips_today")],
            "rating": [identity(daily, "rating")],
        }
    features = {
        "conv_rate": [identity(view, "conv_rate")],
        "acc_rate": [identity(view, "acc_rate")],
        "avg_daily_trips": [identity(view, "avg_daily_trips")],
        "conv_rate_plus_val1": [identity(odfv, "conv_rate_plus_val1")],
        "conv_rate_plus_val2": [identity(odfv, "conv_rate_plus_val2")],
    }
    (event,) = jobs["feast_get_historical_features_driver_activity_v1"]
    frame = "entity_frame/feature_service/driver_activity_v1"
    assert fields_of(event, "training_frame/feature_service/driver_activity_v1") == {
        **{
            name: [identity(frame, name)]
            for name in ("driver_id", "event_timestamp", "val_to_add", "val_to_add_2")
        },
        **features,
    }
    # The saved dataset names its service, so its entity keys come from that
    # retrieval's entity frame (0.67 keeps the views' join keys; 0.59 every
    # entity column but the timestamp).
    (event,) = jobs["feast_apply_saved_dataset_driver_training_set"]
    saved = output(event, "saved_dataset/driver_training_set")
    keys = saved["feast_saved_dataset"]["join_keys"]
    assert "driver_id" in keys
    assert "event_timestamp" not in keys
    assert fields_of(event, "saved_dataset/driver_training_set") == {
        **{key: [identity(frame, key)] for key in keys},
        **features,
    }
    assert frame in [d["name"] for d in event["inputs"]]


# Following column lineage upstream, as a consumer joins aliases ---------------


class Aliases:
    """Datasets that are one: symlinked, or naming the same dataSource URI."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}
        for event in events:
            for dataset in [*event.get("inputs", []), *event.get("outputs", [])]:
                key = (dataset["namespace"], dataset["name"])
                facets = dataset.get("facets") or {}
                for identifier in (facets.get("symlinks") or {}).get("identifiers", []):
                    self.union(key, (identifier["namespace"], identifier["name"]))
                uri = (facets.get("dataSource") or {}).get("uri")
                if uri and uri.startswith("file://"):
                    self.union(key, ("uri", uri))

    def find(self, key: tuple[str, str]) -> tuple[str, str]:
        while self.parent.get(key, key) != key:
            key = self.parent[key]
        return key

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.parent[self.find(a)] = self.find(b)


def upstream_fields(events: list[dict[str, Any]], start: Field) -> set[Field]:
    """Every field ``start`` comes from, following columnLineage field edges and aliases."""
    aliases = Aliases(events)

    def node(field: Field) -> tuple[tuple[str, str], str]:
        return aliases.find((field[0], field[1])), field[2]

    inputs: dict[tuple[tuple[str, str], str], set[Field]] = {}
    for event in events:
        for dataset in event.get("outputs", []):
            facet = (dataset.get("facets") or {}).get("columnLineage")
            for name, spec in (facet or {}).get("fields", {}).items():
                target = node((dataset["namespace"], dataset["name"], name))
                for item in spec["inputFields"]:
                    inputs.setdefault(target, set()).add(
                        (item["namespace"], item["name"], item["field"])
                    )
    seen: set[Field] = set()
    queue = deque([start])
    while queue:
        for found in inputs.get(node(queue.popleft()), set()):
            if found not in seen:
                seen.add(found)
                queue.append(found)
    return seen


def test_the_other_producers_events_validate_with_their_column_lineage(
    quickstart: Quickstart,
) -> None:
    facets = [
        dataset["facets"]["columnLineage"]
        for event in quickstart.others
        for dataset in event["outputs"]
        if "columnLineage" in dataset.get("facets", {})
    ]
    assert len(facets) >= 4
    for facet in facets:
        assert column_lineage_problems(facet) == []
    for event in quickstart.others:
        assert problems(event, "http://localhost:6580") == [], event["job"]["name"]


def test_one_column_path_runs_from_the_raw_table_to_the_model(quickstart: Quickstart) -> None:
    events = quickstart.feast + quickstart.others
    data = (quickstart.repo / "data").resolve()
    from_model = upstream_fields(
        events, ("mlflow://tracking:5000", "models/driver_ranking", "score")
    )
    path = [
        ("file", str(data / "driver_training_set.parquet"), "conv_rate"),  # Spark read
        (NS, "feature_view/driver_hourly_stats", "conv_rate"),  # the Feast feature
        (NS, "data_source/driver_hourly_stats_source", "conv_rate"),  # its source
        ("s3://ml-lake", "staging/trips", "accepted"),  # dbt: avg(accepted)
        (WAREHOUSE, "raw.public.trips", "accepted"),  # Airflow copied it
    ]
    assert [step for step in path if step not in from_model] == []
    # The feature service's conv_rate reaches the parquet file's conv_rate (dbt's output).
    from_service = upstream_fields(
        events, (NS, "feature_service/driver_activity_v1", "driver_hourly_stats:conv_rate")
    )
    assert (NS, "data_source/driver_hourly_stats_source", "conv_rate") in from_service
    assert (WAREHOUSE, "raw.public.trips", "accepted") in from_service
    # and not what it does not come from
    assert (WAREHOUSE, "raw.public.trips", "fare") not in from_service


# The same path answered by the consumer ----------------------------------------


def test_the_consumer_traces_a_feature_to_the_raw_column_and_on_to_the_model(
    quickstart: Quickstart,
) -> None:
    """The store the quickstart's Feast wrote (self-reporting), plus the other producers'
    events posted over HTTP, answers the column walk through every hop and alias."""
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True),
        database_url=f"sqlite:///{quickstart.repo / 'data' / 'lineage.db'}",
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        sent = client.post("/api/v1/lineage/batch", json=quickstart.others)
        assert sent.status_code == 204, sent.text  # every event stored

        def walk(ns: str, name: str, field: str, direction: str) -> set[Field]:
            answer = client.get(
                f"{API}/datasets/{quote(ns, safe='')}/{quote(name, safe='')}/columns",
                params={"field": field, "direction": direction, "depth": 10},
            )
            assert answer.status_code == 200, answer.text
            found: set[Field] = set()
            for node in answer.json()["nodes"]:
                names = [(node["namespace"], node["name"])]
                names += [(a["namespace"], a["name"]) for a in node["aliases"]]
                found.update((n, d, node["field"]) for n, d in names if node["field"])
            return found

        data = (quickstart.repo / "data").resolve()
        upstream = walk(
            NS, "feature_service/driver_activity_v1", "driver_hourly_stats:conv_rate", "upstream"
        )
        for step in [
            (NS, "feature_view/driver_hourly_stats", "conv_rate"),
            (NS, "data_source/driver_hourly_stats_source", "conv_rate"),
            ("file", str(data / "driver_stats.parquet"), "conv_rate"),  # the parquet source
            ("s3://ml-lake", "staging/trips", "accepted"),  # dbt: avg(accepted)
            (WAREHOUSE, "raw.public.trips", "accepted"),  # Airflow copied it
        ]:
            assert step in upstream, step
        assert (WAREHOUSE, "raw.public.trips", "fare") not in upstream
        downstream = walk(WAREHOUSE, "raw.public.trips", "accepted", "downstream")
        assert ("mlflow://tracking:5000", "models/driver_ranking", "score") in downstream
        assert (NS, "feature_view/driver_hourly_stats", "conv_rate") in downstream
