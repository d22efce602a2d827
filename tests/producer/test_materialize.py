"""Materialization: a parent run with a child run per view, real rows written, FAIL."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from feast.infra.compute_engines.base import ComputeEngine

from feast_lineage import FeatureStore
from tests.producer.conftest import by_job, invoke, io_of, output
from tests.producer.feast_repo import NOW, file_transport, read_events, write_repo
from tests.producer.olschema import problems

SERVER = "http://localhost:6580"
VIEWS = ["customer_profile", "driver_fresh_stats", "driver_hourly_stats"]
START = "2026-01-08T00:00:00"
END = "2026-01-11T00:00:00"


@dataclass
class Repo:
    root: Path
    events_path: Path

    def events(self) -> list[dict[str, Any]]:
        return read_events(self.events_path)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    root = tmp_path_factory.mktemp("materialize")
    events = root / "events.jsonl"
    write_repo(root, openlineage=file_transport(events))
    invoke("-c", str(root), "apply")
    return Repo(root, events)


@pytest.fixture(scope="module")
def materialized(repo: Repo) -> list[dict[str, Any]]:
    before = len(repo.events())
    invoke("-c", str(repo.root), "materialize", START, END)
    return repo.events()[before:]


def online_entities(root: Path, view: str) -> int:
    with closing(sqlite3.connect(root / "data" / "online.db")) as conn:
        (count,) = conn.execute(f"SELECT COUNT(DISTINCT entity_key) FROM demo_{view}").fetchone()
    return int(count)


def facet_fields(facet: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in facet.items() if not k.startswith("_")}


def test_one_parent_run_starts_first_and_completes_last(
    materialized: list[dict[str, Any]],
) -> None:
    first, last = materialized[0], materialized[-1]
    assert (first["job"]["name"], first["eventType"]) == ("feast_materialize", "START")
    assert (last["job"]["name"], last["eventType"]) == ("feast_materialize", "COMPLETE")
    assert first["run"]["runId"] == last["run"]["runId"]
    assert io_of(first) == io_of(last) == ([], [])
    assert len(by_job(materialized)["feast_materialize"]) == 2
    for event in (first, last):
        kind = event["job"]["facets"]["feast_job_kind"]
        assert (kind["kind"], kind["feast_project"]) == ("transform", "demo")
    # The spec puts feast_materialization on START too: the window, no rows yet,
    # and no views named (none were asked for: Feast picks every view).
    started = first["run"]["facets"]["feast_materialization"]
    assert (started["rows_written"], started["feature_views"]) == (0, [])
    assert started["start_date"].startswith(START)


def test_each_view_gets_a_child_run_with_its_own_inputs_and_output(
    materialized: list[dict[str, Any]],
) -> None:
    jobs = by_job(materialized)
    parent_run = jobs["feast_materialize"][0]["run"]["runId"]
    children = {name: found for name, found in jobs.items() if name != "feast_materialize"}
    assert set(children) == {f"feast_materialize_feature_view_{v}" for v in VIEWS}
    sources = {
        "customer_profile": "data_source/customer_source",
        "driver_fresh_stats": "data_source/driver_stats_source",
        "driver_hourly_stats": "data_source/driver_stats_source",
    }
    for view in VIEWS:
        start, complete = children[f"feast_materialize_feature_view_{view}"]
        assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
        assert start["run"]["runId"] == complete["run"]["runId"] != parent_run
        expected = (sorted([sources[view], f"feature_view/{view}"]), [f"online_store/{view}"])
        assert io_of(start) == io_of(complete) == expected
        begun = start["run"]["facets"]["feast_materialization"]
        assert (begun["feature_views"], begun["rows_written"]) == ([view], 0)
        assert begun["start_date"].startswith(START)
        parent = complete["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == parent_run
        assert (parent["job"]["namespace"], parent["job"]["name"]) == ("demo", "feast_materialize")
        store = output(complete, f"online_store/{view}")["feast_online_store"]
        assert facet_fields(store) == {
            "feature_view": view,
            "store_type": "sqlite",
            "description": f"the sqlite online store table of feature view {view}",
        }


def test_rows_written_are_the_rows_the_online_store_holds(
    repo: Repo, materialized: list[dict[str, Any]]
) -> None:
    jobs = by_job(materialized)
    total = 0
    for view in VIEWS:
        complete = jobs[f"feast_materialize_feature_view_{view}"][1]
        facet = complete["run"]["facets"]["feast_materialization"]
        rows = online_entities(repo.root, view)
        assert rows > 0
        assert facet_fields(facet) == {
            "feature_views": [view],
            "start_date": "2026-01-08T00:00:00+00:00",
            "end_date": "2026-01-11T00:00:00+00:00",
            "project": "demo",
            "rows_written": rows,
            "online_store_type": "sqlite",
            "offline_store_type": "file",
        }
        # The same count as the standard facet, on the table it was written to.
        assert _output_facets(complete, view) == {"outputStatistics": {"rowCount": rows}}
        assert _output_facets(jobs[f"feast_materialize_feature_view_{view}"][0], view) == {}
        total += rows
    parent = jobs["feast_materialize"][1]["run"]["facets"]["feast_materialization"]
    assert sorted(parent["feature_views"]) == VIEWS
    assert parent["rows_written"] == total == 5 + 5 + 3


def _output_facets(event: dict[str, Any], view: str) -> dict[str, Any]:
    """The ``outputFacets`` of the view's online store table in ``event``, without _producer."""
    (table,) = [d for d in event["outputs"] if d["name"] == f"online_store/{view}"]
    return {k: facet_fields(v) for k, v in (table.get("outputFacets") or {}).items()}


def test_materialize_events_validate(materialized: list[dict[str, Any]]) -> None:
    for event in materialized:
        assert problems(event, SERVER) == [], event["job"]["name"]


def test_incremental_materialization_reports_each_views_window(repo: Repo) -> None:
    before = len(repo.events())
    invoke("-c", str(repo.root), "materialize-incremental", "2026-01-12T00:00:00")
    events = repo.events()[before:]
    jobs = by_job(events)
    parent = jobs["feast_materialize_incremental"]
    assert [e["eventType"] for e in parent] == ["START", "COMPLETE"]
    child = jobs["feast_materialize_feature_view_driver_hourly_stats"][1]
    facet = child["run"]["facets"]["feast_materialization"]
    # Incremental: from the end of the previous materialization.
    assert facet["start_date"] == "2026-01-11T00:00:00+00:00"
    assert facet["end_date"] == "2026-01-12T00:00:00+00:00"
    assert parent[1]["run"]["facets"]["feast_materialization"]["start_date"] == (
        "2026-01-11T00:00:00+00:00"
    )
    for event in events:
        assert problems(event, SERVER) == []


def test_a_failing_materialization_emits_fail_and_raises(repo: Repo) -> None:
    data = repo.root / "data" / "driver_stats.parquet"
    hidden = data.with_suffix(".hidden")
    store = FeatureStore(repo_path=str(repo.root))
    before = len(repo.events())
    data.rename(hidden)
    try:
        with pytest.raises(Exception, match="driver_stats"):
            store.materialize(NOW - timedelta(days=1), NOW, feature_views=["driver_hourly_stats"])
    finally:
        hidden.rename(data)
    events = repo.events()[before:]
    assert [(e["job"]["name"], e["eventType"]) for e in events] == [
        ("feast_materialize", "START"),
        ("feast_materialize_feature_view_driver_hourly_stats", "START"),
        ("feast_materialize_feature_view_driver_hourly_stats", "FAIL"),
        ("feast_materialize", "FAIL"),
    ]
    for event in events[2:]:
        error = event["run"]["facets"]["errorMessage"]
        assert "driver_stats" in error["message"]
        assert error["programmingLanguage"] == "PYTHON"
        assert "Traceback" in error["stackTrace"]
        assert event["run"]["facets"]["feast_materialization"]["rows_written"] == 0
        assert problems(event, SERVER) == []
    assert "feast_online_store" not in output(events[2], "online_store/driver_hourly_stats")
    assert _output_facets(events[2], "driver_hourly_stats") == {}  # nothing reported written


def test_python_api_materialize_emits_the_same_runs(repo: Repo) -> None:
    store = FeatureStore(repo_path=str(repo.root))
    before = len(repo.events())
    store.materialize(
        # Only bob's row (at 23:00) is in this window.
        datetime(2026, 1, 9, 22, 30),
        datetime(2026, 1, 9, 23, 30),
        feature_views=["customer_profile"],
    )
    events = repo.events()[before:]
    assert [(e["job"]["name"], e["eventType"]) for e in events] == [
        ("feast_materialize", "START"),
        ("feast_materialize_feature_view_customer_profile", "START"),
        ("feast_materialize_feature_view_customer_profile", "COMPLETE"),
        ("feast_materialize", "COMPLETE"),
    ]
    facet = events[-1]["run"]["facets"]["feast_materialization"]
    assert facet["start_date"] == "2026-01-09T22:30:00+00:00"
    assert facet["rows_written"] == 1
    # The START names the views asked for.
    assert events[0]["run"]["facets"]["feast_materialization"]["feature_views"] == [
        "customer_profile"
    ]


@pytest.mark.skipif(
    not hasattr(ComputeEngine, "supports_batch"),
    reason="compute engines take every view at once from Feast 0.65 on",
)
def test_an_engine_that_takes_every_view_at_once_still_gives_each_view_its_run(
    tmp_path: Path,
) -> None:
    from tests.producer.batch_engine import BatchLocalComputeEngine
    from tests.producer.feast_repo import feast_objects, load_module, write_config

    events = tmp_path / "events.jsonl"
    root, base = write_repo(tmp_path / "repo", openlineage=file_transport(events))
    write_config(
        root,
        openlineage=file_transport(events),
        batch_engine="tests.producer.batch_engine.BatchLocalComputeEngine",
    )
    store = FeatureStore(repo_path=str(root))
    store.apply(feast_objects(load_module(root, base)))
    before = len(read_events(events))
    BatchLocalComputeEngine.calls.clear()
    store.materialize(datetime.fromisoformat(START), datetime.fromisoformat(END))

    assert BatchLocalComputeEngine.calls == [VIEWS]  # one call: Feast's batch path
    runs = by_job(read_events(events)[before:])
    assert [e["eventType"] for e in runs.pop("feast_materialize")] == ["START", "COMPLETE"]
    assert sorted(runs) == [f"feast_materialize_feature_view_{view}" for view in VIEWS]
    for view in VIEWS:
        start, complete = runs[f"feast_materialize_feature_view_{view}"]
        assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
        facet = complete["run"]["facets"]["feast_materialization"]
        assert facet["rows_written"] == online_entities(root, view) > 0
        assert io_of(complete)[1] == [f"online_store/{view}"]
        assert _output_facets(complete, view) == {
            "outputStatistics": {"rowCount": facet["rows_written"]}
        }
