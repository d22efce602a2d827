"""Producer options in effect: namespace, producer URI, environment, emit_on_*, plan."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from feast_lineage import FeatureStore
from feast_lineage.config import ProducerSettings
from feast_lineage.producer.describe import Describer
from feast_lineage.producer.naming import lineage_server, producer_uri
from tests.producer.conftest import by_job, invoke
from tests.producer.feast_repo import (
    feast_objects,
    file_transport,
    load_module,
    read_events,
    write_config,
    write_repo,
)


def facets_of(event: dict[str, Any]) -> list[dict[str, Any]]:
    """Our facets (openlineage-python adds its own run ``tags`` facet)."""
    run = {k: v for k, v in event["run"]["facets"].items() if k != "tags"}
    found = list(event["job"]["facets"].values()) + list(run.values())
    for dataset in event["inputs"] + event["outputs"]:
        found.extend(dataset["facets"].values())
    return found


def test_producer_uri_and_lineage_server() -> None:
    assert producer_uri(ProducerSettings(producer="https://example.com/feast")) == (
        "https://example.com/feast"
    )
    assert producer_uri(ProducerSettings(producer="team a")) == (
        "https://github.com/feast-lineage/feast-lineage/tree/v0.1.0#team%20a"
    )
    http = ProducerSettings(transport_type="http", transport_url="http://lineage:9000")
    assert lineage_server(http, {}) == "http://lineage:9000"
    assert lineage_server(ProducerSettings(), {"OPENLINEAGE_URL": "http://ol:5000"}) == (
        "http://ol:5000"
    )
    assert lineage_server(ProducerSettings(transport_type="file"), {}) == "http://localhost:6580"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return write_repo(tmp_path_factory.mktemp("options"))


def apply_all(root: Path, base: str) -> FeatureStore:
    store = FeatureStore(repo_path=str(root))
    store.apply(feast_objects(load_module(root, base)))
    return store


def test_a_custom_namespace_and_producer(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, base = repo
    events = tmp_path / "events.jsonl"
    write_config(
        root,
        openlineage=file_transport(
            events, namespace="ml", producer="https://example.com/feast-prod"
        ),
    )
    apply_all(root, base).sync_lineage()
    found = read_events(events)
    assert len(found) == 16  # the first apply, then the sync
    for event in found:
        assert event["job"]["namespace"] == "ml/demo"
        assert {d["namespace"] for d in event["inputs"] + event["outputs"]} <= {"ml/demo"}
        assert event["producer"] == "https://example.com/feast-prod"
        assert {f["_producer"] for f in facets_of(event)} == {"https://example.com/feast-prod"}


def test_the_environment_configures_the_producer(
    repo: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, base = repo
    events = tmp_path / "env.jsonl"
    write_config(root, openlineage=None)
    monkeypatch.setenv("FEAST_OPENLINEAGE_ENABLED", "true")
    monkeypatch.setenv("FEAST_OPENLINEAGE_TRANSPORT_TYPE", "file")
    monkeypatch.setenv("FEAST_OPENLINEAGE_ADDITIONAL_CONFIG", f'{{"log_file_path": "{events}"}}')
    monkeypatch.setenv("FEAST_OPENLINEAGE_NAMESPACE", "fromenv")
    apply_all(root, base).sync_lineage()
    found = read_events(events)
    assert len(found) == 8  # the apply changed nothing; the sync sent everything
    assert {e["job"]["namespace"] for e in found} == {"fromenv/demo"}


def test_emit_on_apply_and_emit_on_materialize(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, base = write_repo(tmp_path, openlineage=file_transport(events, emit_on_apply=False))
    store = apply_all(root, base)
    assert read_events(events) == []
    store.materialize(datetime(2026, 1, 9), datetime(2026, 1, 10), ["driver_hourly_stats"])
    assert [e["job"]["name"] for e in read_events(events)] == [
        "feast_materialize",
        "feast_materialize_feature_view_driver_hourly_stats",
        "feast_materialize_feature_view_driver_hourly_stats",
        "feast_materialize",
    ]
    write_config(root, openlineage=file_transport(events, emit_on_materialize=False))
    quiet = FeatureStore(repo_path=str(root))
    quiet.materialize(datetime(2026, 1, 9), datetime(2026, 1, 10), ["driver_hourly_stats"])
    assert len(read_events(events)) == 4


def test_plan_is_a_dry_run_and_emits_nothing(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=file_transport(events))
    result = invoke("-c", str(root), "plan")
    assert "Created feature view driver_hourly_stats" in result.output
    assert read_events(events) == []


def test_an_object_lineage_cannot_describe_is_one_warning_and_apply_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    original = Describer.dataset_facets

    def picky(self: Describer, obj: Any, objects: Any) -> Any:
        if obj.name == "driver_hourly_stats":
            raise ValueError("cannot describe this view")
        return original(self, obj, objects)

    monkeypatch.setattr(Describer, "dataset_facets", picky)
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=file_transport(events))
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        result = invoke("-c", str(root), "apply")
    assert "Created feature service driver_activity" in result.output
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1
    assert "could not describe 1 object(s)" in warnings[0]
    assert (
        "feature_view 'driver_hourly_stats' (ValueError: cannot describe this view)"
        in (warnings[0])
    )
    jobs = by_job(read_events(events))
    assert len(jobs) == 8  # every job, the odd object without its facets
    view = jobs["feast_apply_feature_view_driver_hourly_stats"][0]["outputs"][0]["facets"]
    # Without the describer's facets; its column lineage is described apart and stays.
    assert set(view) == {"lifecycleStateChange", "columnLineage"}


def test_a_lineage_failure_is_one_warning_and_apply_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Any, changes: Any) -> Any:
        raise RuntimeError("lineage bug")

    monkeypatch.setattr("feast_lineage.producer.operation_events.EventFactory.apply_events", broken)
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=file_transport(events))
    with caplog.at_level(logging.WARNING, logger="feast_lineage"):
        result = invoke("-c", str(root), "apply")
    assert "Created feature service driver_activity" in result.output
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("feast_lineage")]
    assert len(warnings) == 1
    assert "lineage for apply was skipped (RuntimeError: lineage bug)" in warnings[0]
    assert read_events(events) == []
    monkeypatch.undo()
    invoke("-c", str(root), "lineage-sync")  # and a sync catches up
    assert len(by_job(read_events(events))) == 8


def test_a_file_registry_is_diffed_too(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(tmp_path, openlineage=file_transport(events), registry="data/registry.pb")
    invoke("-c", str(root), "apply")
    assert len(read_events(events)) == 8
    invoke("-c", str(root), "apply")
    assert len(read_events(events)) == 8  # unchanged: nothing
    store = FeatureStore(repo_path=str(root))
    store.delete_feature_view("customer_profile")
    last = read_events(events)[-1]
    assert last["job"]["name"] == "feast_apply_feature_view_customer_profile"
    assert last["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"
