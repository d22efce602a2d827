"""Column lineage on the repository Feast's own ``feast init`` writes.

``feast init`` (the installed Feast, as a subprocess) writes its driver-stats
template; ``feast-lineage apply`` applies it with a file transport. Every
view's and service's ``columnLineage`` facet must state what the definitions
in the registry say, field by field, computed here from the objects
themselves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.producer.conftest import by_job, invoke, output
from tests.producer.feast_repo import file_transport, read_events
from tests.producer.olschema import column_lineage_problems, problems

SERVER = "http://localhost:6580"
Edge = tuple[str, str, str, str]


@dataclass
class InitRepo:
    repo: Path
    events: list[dict[str, Any]]
    store: Any


@pytest.fixture(scope="module")
def init_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InitRepo]:
    root = tmp_path_factory.mktemp("init")
    feast = Path(sys.executable).parent / "feast"
    done = subprocess.run(
        [str(feast), "init", "driver_init"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    repo = root / "driver_init" / "feature_repo"
    events = repo / "events.jsonl"
    config_path = repo / "feature_store.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["openlineage"] = file_transport(events)
    config_path.write_text(yaml.safe_dump(config))
    with warnings.catch_warnings():
        # The template's entity has no value_type, which some Feast releases warn about.
        warnings.filterwarnings("ignore", "Entity value_type", DeprecationWarning)
        invoke("-c", str(repo), "apply")

    from feast_lineage import FeatureStore

    cwd = os.getcwd()
    os.chdir(repo)  # the template's registry path is relative to the repository
    try:
        yield InitRepo(repo, read_events(events), FeatureStore(repo_path=str(repo)))
    finally:
        os.chdir(cwd)


def identity(dataset: str, field: str) -> Edge:
    return (dataset, field, "DIRECT", "IDENTITY")


def stated(event: dict[str, Any], dataset: str) -> tuple[dict[str, list[Edge]], list[Edge]]:
    facet = output(event, dataset)["columnLineage"]
    assert column_lineage_problems(facet) == []

    def edge(item: dict[str, Any]) -> Edge:
        (t,) = item["transformations"]
        return (item["name"], item["field"], t["type"], t["subtype"])

    fields = {
        name: [edge(i) for i in spec["inputFields"]] for name, spec in facet["fields"].items()
    }
    return fields, [edge(i) for i in facet.get("dataset") or []]


def expected_view(view: Any) -> dict[str, list[Edge]]:
    """A plain feature view: every column from its sources' columns, via field_mapping."""
    sources = [s for s in (view.stream_source, view.batch_source) if s is not None]

    def column(source: Any, name: str) -> str:
        back = {mapped: col for col, mapped in (source.field_mapping or {}).items()}
        return back.get(name, name)

    out: dict[str, list[Edge]] = {}
    for name in [c.name for c in view.entity_columns]:
        out[name] = [identity(f"data_source/{s.name}", column(s, name)) for s in sources]
    for s in sources:
        for stamp in (s.timestamp_field, s.created_timestamp_column):
            if stamp:
                mapped = (s.field_mapping or {}).get(stamp, stamp)
                out.setdefault(mapped, []).append(identity(f"data_source/{s.name}", stamp))
    for feature in view.features:
        out[feature.name] = [
            identity(f"data_source/{s.name}", column(s, feature.name)) for s in sources
        ]
    return out


def test_every_feature_view_matches_its_definition(init_repo: InitRepo) -> None:
    jobs = by_job(init_repo.events)
    views = init_repo.store.list_feature_views()
    assert {v.name for v in views} >= {"driver_hourly_stats", "driver_hourly_stats_fresh"}
    for view in views:
        (event,) = jobs[f"feast_apply_feature_view_{view.name}"]
        fields, dataset = stated(event, f"feature_view/{view.name}")
        assert fields == expected_view(view), view.name
        assert dataset == []
    # The template's view of its parquet file: conv_rate is the file's conv_rate.
    (event,) = jobs["feast_apply_feature_view_driver_hourly_stats"]
    fields, _ = stated(event, "feature_view/driver_hourly_stats")
    assert fields["conv_rate"] == [identity("data_source/driver_hourly_stats_source", "conv_rate")]


def test_every_on_demand_view_names_its_declared_sources(init_repo: InitRepo) -> None:
    jobs = by_job(init_repo.events)
    odfvs = init_repo.store.list_on_demand_feature_views()
    assert {v.name for v in odfvs} >= {"transformed_conv_rate"}
    for view in odfvs:
        (event,) = jobs[f"feast_apply_odfv_{view.name}"]
        fields, dataset = stated(event, f"feature_view/{view.name}")
        declared = [
            (f"feature_view/{p.name}", f.name)
            for p in view.source_feature_view_projections.values()
            for f in p.features
        ] + [
            (f"data_source/{r.name}", f.name)
            for r in view.source_request_sources.values()
            for f in r.schema
        ]
        assert fields == {}
        assert dataset == [(d, f, "INDIRECT", "TRANSFORMATION") for d, f in declared]


def test_every_feature_service_matches_its_projections(init_repo: InitRepo) -> None:
    jobs = by_job(init_repo.events)
    services = init_repo.store.list_feature_services()
    assert {s.name for s in services} >= {"driver_activity_v1", "driver_activity_v2"}
    for service in services:
        (event,) = jobs[f"feast_apply_feature_service_{service.name}"]
        fields, dataset = stated(event, f"feature_service/{service.name}")
        assert fields == {
            f"{p.name_to_use()}:{f.name}": [identity(f"feature_view/{p.name}", f.name)]
            for p in service.feature_view_projections
            for f in p.features
        }, service.name
        assert dataset == []
    (v1,) = jobs["feast_apply_feature_service_driver_activity_v1"]
    fields, _ = stated(v1, "feature_service/driver_activity_v1")
    # driver_stats_fv[["conv_rate"]]: the projection serves conv_rate only.
    assert [name for name in fields if name.startswith("driver_hourly_stats")] == [
        "driver_hourly_stats:conv_rate"
    ]


def test_every_event_validates(init_repo: InitRepo) -> None:
    for event in init_repo.events:
        assert problems(event, SERVER) == [], event["job"]["name"]


def test_the_entity_has_the_key_type_feast_gave_its_views(init_repo: InitRepo) -> None:
    """The template's entity declares no value_type (UNKNOWN in the registry); the views'
    join key columns carry the type ``feast apply`` inferred from the source."""
    (event,) = by_job(init_repo.events)["feast_apply_entities"]
    facets = output(event, "entity/driver")
    inferred = {
        c.dtype.to_value_type().name
        for v in init_repo.store.list_feature_views()
        for c in v.entity_columns
        if c.name == "driver_id"
    }
    assert inferred == {"INT64"}
    assert facets["feast_entity"]["value_type"] == "INT64"
    assert [(f["name"], f["type"]) for f in facets["schema"]["fields"]] == [("driver_id", "INT64")]


def test_label_views_have_lineage(init_repo: InitRepo) -> None:
    """Feast 0.67's label views: an apply job from their source and entity, a dataset with
    their schema and column lineage (Feast's own emitter leaves them out)."""
    list_label_views = getattr(init_repo.store, "list_label_views", None)
    if list_label_views is None:
        pytest.skip("this Feast has no label views (Feast 0.67+)")
    label_views = list_label_views()
    assert {v.name for v in label_views} >= {"driver_quality_labels"}
    jobs = by_job(init_repo.events)
    for view in label_views:
        (event,) = jobs[f"feast_apply_label_view_{view.name}"]
        assert [d["name"] for d in event["inputs"]] == [
            f"data_source/{view.source.name}",
            *(f"entity/{name}" for name in view.entities),
        ]
        facets = output(event, f"feature_view/{view.name}")
        assert facets["feast_feature_view"]["mode"] == "LABEL"
        assert facets["feast_feature_view"]["features"] == [f.name for f in view.features]
        assert [(f["name"], f["type"]) for f in facets["schema"]["fields"]] == [
            (f.name, f.dtype.to_value_type().name) for f in view.features
        ]
        fields, _ = stated(event, f"feature_view/{view.name}")
        source = f"data_source/{view.source.name}"
        for f in [*view.features, *view.entity_columns]:
            assert fields[f.name] == [identity(source, f.name)], f.name


def test_the_training_frame_lists_every_column_feast_returns_typed(
    init_repo: InitRepo,
) -> None:
    """Asked for one stored feature and an on demand view's, Feast returns the on demand
    view's source features too: the frame's schema names each, typed as Feast types it."""
    import pandas as pd

    entity_df = pd.DataFrame(
        {
            "driver_id": [1001, 1002],
            "event_timestamp": pd.to_datetime(["2021-04-12 10:59:42", "2021-04-12 08:12:10"]),
            "val_to_add": [1, 2],
            "val_to_add_2": [10, 20],
        }
    )
    events_file = init_repo.repo / "events.jsonl"
    before = len(read_events(events_file))
    features = ["driver_hourly_stats:conv_rate", "transformed_conv_rate:conv_rate_plus_val1"]
    returned = init_repo.store.get_historical_features(entity_df, features).to_df()
    (event,) = read_events(events_file)[before:]
    facets = output(event, "training_frame/feature_list")
    schema = {f["name"]: f.get("type") for f in facets["schema"]["fields"]}
    assert sorted(schema) == sorted(returned.columns)
    assert set(returned.columns) > set(entity_df.columns) | {"conv_rate", "conv_rate_plus_val1"}
    views = {
        v.name: v
        for v in [
            *init_repo.store.list_feature_views(),
            *init_repo.store.list_on_demand_feature_views(),
        ]
    }
    for name in set(returned.columns) - set(entity_df.columns):
        (field,) = [
            f
            for view in ("driver_hourly_stats", "transformed_conv_rate")
            for f in views[view].features
            if f.name == name
        ]
        assert schema[name] == field.dtype.to_value_type().name, name
    # The source view the on demand view reads is read too, and the columns' lineage says so.
    assert "feature_view/driver_hourly_stats" in [d["name"] for d in event["inputs"]]
    lineage = facets["columnLineage"]["fields"]
    assert sorted(lineage) == sorted(returned.columns)
