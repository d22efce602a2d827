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
