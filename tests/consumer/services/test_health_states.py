"""Which nodes a failure puts at risk: what depends on the data it failed to produce.

A failing run reaches its outputs and what reads them, along data edges
(inputs, outputs, symlinks, explicit lineage). A parent job's run fails
because a child's did, so the run tree (ParentRunFacet's parent and root
edges) carries no risk: a failed DAG run leaves its successful tasks and
their outputs alone, and a failed task reaches its own outputs, not its
siblings.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from feast_lineage.consumer.services.health_states import Assessment, compute
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, facet, run_event
from tests.quickstart import feast_side, load_quickstart
from tests.store_helpers import Store

DAG = ("airflow", "nightly")
EXTRACT, EXPORT, LOAD = (
    ("airflow", "nightly.extract"),
    ("airflow", "nightly.export"),
    ("dbt", "load"),
)
RAW, STAGED, TRIPS, STATS = (
    ("warehouse", "raw"),
    ("s3", "staged"),
    ("files", "trips"),
    ("files", "stats"),
)
TRAIN, MODEL = ("spark", "train"), ("models", "ranking")


def _nightly(*, export_fails: bool) -> list[dict[str, Any]]:
    """A DAG run with three child tasks: extract (raw -> staged), export (staged -> trips),
    load (staged -> stats; the DAG's child too), then train (stats -> model) outside the DAG.
    The DAG run fails; the export fails too when ``export_fails``."""
    dag_run = str(uuid.uuid4())
    child = {"parent": (dag_run, DAG)}

    def task(job: tuple[str, str], minute: int, ins: list[Any], outs: list[Any]) -> Any:
        return run_event(
            "COMPLETE", job=job, time=at(60 * minute), inputs=ins, outputs=outs, **child
        )

    events = [
        run_event("START", run_id=dag_run, job=DAG, time=at(0)),
        task(EXTRACT, 1, [dataset(*RAW)], [dataset(*STAGED)]),
        task(LOAD, 3, [dataset(*STAGED)], [dataset(*STATS)]),
        run_event(
            "COMPLETE", job=TRAIN, time=at(300), inputs=[dataset(*STATS)], outputs=[dataset(*MODEL)]
        ),
        run_event("FAIL", run_id=dag_run, job=DAG, time=at(240)),
    ]
    export_run = str(uuid.uuid4())
    events += [
        run_event(
            "START",
            run_id=export_run,
            job=EXPORT,
            time=at(120),
            inputs=[dataset(*STAGED)],
            outputs=[dataset(*TRIPS)],
            **child,
        ),
        run_event(
            "FAIL" if export_fails else "COMPLETE",
            run_id=export_run,
            job=EXPORT,
            time=at(150),
            inputs=[dataset(*STAGED)],
            outputs=[] if export_fails else [dataset(*TRIPS)],
            **child,
        ),
    ]
    return events


def _assess(store: Store, events: list[dict[str, Any]]) -> Assessment:
    store.reset()
    store.ingest(*events)
    with store.engine.connect() as conn:
        return compute(conn, {}, parse_us(at(600)))


def _states(found: Assessment) -> dict[str, str]:
    jobs = {"dag": DAG, "extract": EXTRACT, "export": EXPORT, "load": LOAD, "train": TRAIN}
    datasets = {"raw": RAW, "staged": STAGED, "trips": TRIPS, "stats": STATS, "model": MODEL}
    out = {name: found.state(job_id(*job)) for name, job in jobs.items()}
    out.update({name: found.state(dataset_id(*ds)) for name, ds in datasets.items()})
    return out


def test_a_failed_parent_run_puts_none_of_its_successful_children_at_risk(store: Store) -> None:
    found = _assess(store, _nightly(export_fails=False))
    assert _states(found) == {
        "dag": "failed",
        "extract": "ok",
        "export": "ok",
        "load": "ok",
        "train": "ok",
        "raw": "ok",
        "staged": "unknown",  # written once: too little history
        "trips": "unknown",
        "stats": "unknown",
        "model": "unknown",
    }
    assert found.at_risk == {}


def test_a_failed_child_reaches_its_outputs_and_their_readers_not_its_siblings(
    store: Store,
) -> None:
    found = _assess(store, _nightly(export_fails=True))
    states = _states(found)
    # The DAG's own run failed: it is failed itself; the export is the cause downstream.
    assert states["dag"] == "failed"
    assert states["export"] == "failed"
    assert states["trips"] == "at_risk"
    assert found.at_risk[dataset_id(*TRIPS)] == [(job_id(*EXPORT), 1)]
    # Its siblings, what they read and write, and what reads that are not at risk.
    for name in ("extract", "load", "train", "raw", "staged", "stats", "model"):
        assert states[name] != "at_risk", name
    assert set(found.at_risk) == {dataset_id(*TRIPS)}


def test_a_sibling_reading_the_failed_child_s_output_is_at_risk_through_that_data(
    store: Store,
) -> None:
    """Risk still follows data between tasks of one DAG: a sibling that reads the output
    the failed task did not refresh is at risk, named with that task as its cause."""
    events = _nightly(export_fails=True)
    events.append(
        run_event(
            "COMPLETE",
            job=LOAD,
            time=at(200),
            inputs=[dataset(*STAGED), dataset(*TRIPS)],
            outputs=[dataset(*STATS)],
            parent=(str(uuid.uuid4()), DAG),
        )
    )
    found = _assess(store, events)
    states = _states(found)
    assert {n for n, s in states.items() if s == "at_risk"} == {
        "trips",
        "load",
        "stats",
        "train",
        "model",
    }
    assert found.at_risk[job_id(*LOAD)] == [(job_id(*EXPORT), 2)]
    assert found.at_risk[dataset_id(*MODEL)] == [(job_id(*EXPORT), 5)]
    assert states["extract"] == "ok"
    assert states["staged"] == "unknown"


def test_the_quickstart_s_failed_export_reaches_what_reads_the_trips_file(
    store: Store, tmp_path: Path
) -> None:
    """The quickstart's story (examples/quickstart/quickstart.py's own Airflow, dbt and Spark
    events, Feast's side in short): today's DAG run fails with its export task. The trips
    file and what reads it are at risk, the dbt model included (it reads the file's
    warehouse table, ``exports.public.driver_trips``) and the model trained downstream;
    extract_trips and its staging copy, which read nothing the export writes, are not."""
    now = datetime.now(UTC).replace(microsecond=0)
    data = tmp_path / "data"
    events = [*feast_side(data, now - timedelta(seconds=60))]
    events += load_quickstart().other_producers(tmp_path, now)
    store.reset()
    store.ingest(*events)
    with store.engine.connect() as conn:
        found = compute(conn, {}, int((now + timedelta(seconds=60)).timestamp()) * 1_000_000)

    def label(node: int) -> str:
        info = found.nodes[node]
        return f"{info.kind} {info.name.replace(str(data) + '/', '')}"

    states: dict[str, set[str]] = {}
    for node in found.nodes:
        states.setdefault(found.state(node), set()).add(label(node))
    assert states["failed"] == {
        "job driver_features_daily",
        "job driver_features_daily.export_daily_trips",
    }
    assert states["at_risk"] == {
        "dataset driver_trips.parquet",
        "dataset exports.public.driver_trips",
        "dataset data_source/driver_daily_trips_source",
        "job feast_apply_feature_view_driver_daily_trips",
        "dataset feature_view/driver_daily_trips",
        "job feast_materialize_feature_view_driver_daily_trips",
        "dataset online_store/driver_daily_trips",
        "job feast_apply_feature_service_driver_activity_v2",
        "dataset feature_service/driver_activity_v2",
        "job analytics.driver_hourly_stats",
        "dataset driver_stats.parquet",
        "dataset data_source/driver_hourly_stats_source",
        "job feast_apply_feature_view_driver_hourly_stats",
        "dataset feature_view/driver_hourly_stats",
        "job feast_apply_feature_service_driver_activity_v1",
        "dataset feature_service/driver_activity_v1",
        "job feast_get_historical_features_driver_activity_v1",
        "dataset saved_dataset/driver_training_set",
        "dataset driver_training_set.parquet",
        "job train_driver_ranking",
        "dataset models/driver_ranking",
    }
    # Every node at risk names the export as its nearest cause, never the DAG.
    export = job_id("airflow://prod-cluster", "driver_features_daily.export_daily_trips")
    assert {c for risks in found.at_risk.values() for c, _ in risks} == {export}
    dbt = job_id("dbt://analytics", "analytics.driver_hourly_stats")
    assert found.at_risk[dbt] == [(export, 2)]  # export -> the file = its table -> dbt
    assert "job driver_features_daily.extract_trips" in states["ok"]
    assert "dataset staging/trips" in states["unknown"]


def test_a_feature_view_s_source_is_found_along_the_data_not_through_its_writer_s_parent(
    store: Store,
) -> None:
    """The source lag walks upstream as risk walks downstream: what a task's parent job
    reads is no source of the feature view the task writes."""
    dag_run = str(uuid.uuid4())
    view = dataset("ml", "feature_view/fv", feast_feature_view=facet(name="fv"))
    found = _assess(
        store,
        [
            run_event("COMPLETE", job=("cron", "load"), time=at(0), outputs=[dataset(*RAW)]),
            run_event("COMPLETE", run_id=dag_run, job=DAG, time=at(100), inputs=[dataset(*RAW)]),
            run_event("COMPLETE", job=EXTRACT, time=at(90), outputs=[view], parent=(dag_run, DAG)),
        ],
    )
    fv = dataset_id("ml", "feature_view/fv")
    assert fv in found.lags
    assert fv not in found.source_written
    assert found.lags[fv][1] is None  # no source lag: nothing upstream of it is written
