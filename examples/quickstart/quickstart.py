"""The quickstart: a Feast repository with lineage, and the producers around it.

    python quickstart.py setup REPO          # build and run the Feast side
    python quickstart.py post-events REPO URL # what Airflow, dbt and Spark report

``setup`` writes a feature repository (the driver-stats example, with the
OpenLineage producer and consumer on SQLite), generates its parquet data,
applies the definitions, materializes, runs a historical retrieval saved as
a dataset, and an online retrieval, then changes ``conv_rate`` to a Float64,
applies again (so ``driver_hourly_stats`` has two versions) and materializes
again, all through feast_lineage's FeatureStore, so each step records its
lineage in REPO/data/lineage.db. It writes the instants of that story to
REPO/data/quickstart_history.json.

``post-events`` sends the events other producers would send to the lineage
server at URL (``POST /api/v1/lineage``): an Airflow DAG that extracts trips
and exports the daily trip file one Feast source reads, a dbt model that
builds the hourly stats file the other source reads, and a Spark job that
trains the ranking model on the saved dataset. They tell a history: three
nightly runs (the second one's extract fails); a first training (an
out-of-memory failure, then a success) dated between the saved training set
and Feast's schema change; then today's run, after the change, where the dbt
model also reads ``raw.public.driver_shifts`` (a second job version, a new
edge, ``acc_rate`` from another column) and the export task fails (so the
trips file and the features read from it are at risk), and a second training.
Their datasets meet Feast's
through dataSource URIs and a symlink, so the graph is one piece from the raw
table to the model. Their outputs carry column lineage (``columnLineage``
1-2-0), as Feast's do, so one column path runs from ``raw.public.trips``'s
``accepted`` through Airflow's staging copy and dbt's ``conv_rate`` into the
feature ``driver_hourly_stats:conv_rate``, the saved training set and the
model's ``score``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import time
import urllib.request
import uuid
import warnings
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
PROJECT = "driver_ranking"
DRIVERS = [1001, 1002, 1003, 1004, 1005]
DAYS = 7

FEATURE_STORE_YAML = f"""\
# The quickstart's feature repository (written by examples/quickstart/quickstart.py).
project: {PROJECT}
registry:
  registry_type: sql
  path: sqlite:///data/registry.db
provider: local
online_store:
  type: sqlite
  path: data/online_store.db
offline_store:
  type: file
entity_key_serialization_version: 3
openlineage:
  enabled: true                          # Feast emits lineage...
  online_retrieval_interval_seconds: 0   # (one event per online retrieval, for the demo)
  consumer:
    enabled: true                        # ...and this repository's server stores and shows it
    connection_string: sqlite:///data/lineage.db
    namespace_mapping:                   # other producers' namespaces belong to this project
      "airflow://prod-cluster": {PROJECT}
      "dbt://analytics": {PROJECT}
      "spark://ml-team": {PROJECT}
"""


def log(message: str) -> None:
    print(f"  {message}", flush=True)


# --- the Feast side -----------------------------------------------------------


def write_repo(repo: Path) -> None:
    (repo / "data").mkdir(parents=True, exist_ok=True)
    (repo / "feature_store.yaml").write_text(FEATURE_STORE_YAML)
    shutil.copyfile(HERE / "driver_repo.py", repo / "driver_repo.py")


def write_data(repo: Path, now: datetime) -> None:
    import pandas as pd

    hours = [now - timedelta(hours=h) for h in range(DAYS * 24)]
    stats = pd.DataFrame(
        [
            {
                "driver_id": driver,
                "event_timestamp": at,
                "created": at,
                "conv_rate": ((driver * 7 + i) % 100) / 100,
                "acc_rate": ((driver * 3 + i) % 50) / 100 + 0.5,
                "avg_daily_trips": (driver + i) % 40,
            }
            for driver in DRIVERS
            for i, at in enumerate(hours)
        ]
    )
    stats["conv_rate"] = stats["conv_rate"].astype("float32")
    stats["acc_rate"] = stats["acc_rate"].astype("float32")
    stats.to_parquet(repo / "data" / "driver_stats.parquet")
    days = [
        now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=d)
        for d in range(DAYS)
    ]
    trips = pd.DataFrame(
        [
            {
                "driver_id": driver,
                "event_timestamp": day,
                "trips_today": (driver + d * 3) % 25,
                "rating": 4.0 + ((driver + d) % 10) / 10,
            }
            for driver in DRIVERS
            for d, day in enumerate(days)
        ]
    )
    trips["rating"] = trips["rating"].astype("float32")
    trips.to_parquet(repo / "data" / "driver_trips.parquet")


CONV_RATE_FLOAT32 = 'Field(name="conv_rate", dtype=Float32,'
# Seconds between the saved training set and the schema change: the first
# training run is dated inside them.
TRAINING_WINDOW_SECONDS = 2.0
HISTORY_FILE = "quickstart_history.json"


def write_history(
    repo: Path, trained_from: datetime, changed_at: datetime, ran_again: datetime
) -> None:
    """The instants of the story, for post-events to date the other producers' runs by."""
    instants = {"trained_from": trained_from, "changed_at": changed_at, "ran_again": ran_again}
    (repo / "data" / HISTORY_FILE).write_text(json.dumps({k: iso(v) for k, v in instants.items()}))


def read_history(repo: Path, now: datetime) -> dict[str, datetime]:
    """The instants setup wrote; a repository from an older quickstart gets the last seconds."""
    path = repo / "data" / HISTORY_FILE
    if path.exists():
        stored = json.loads(path.read_text())
        return {k: datetime.fromisoformat(v.replace("Z", "+00:00")) for k, v in stored.items()}
    return {
        "trained_from": now - timedelta(seconds=6),
        "changed_at": now - timedelta(seconds=4),
        "ran_again": now - timedelta(seconds=3),
    }


CONV_RATE_FLOAT64 = 'Field(name="conv_rate", dtype=Float64,'


def load_definitions(repo: Path) -> list[Any]:
    from feast import Entity, FeatureService, FeatureView, OnDemandFeatureView
    from feast.data_source import DataSource

    spec = importlib.util.spec_from_file_location("quickstart_driver_repo", repo / "driver_repo.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {repo / 'driver_repo.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kinds = (Entity, DataSource, FeatureView, OnDemandFeatureView, FeatureService)
    return [value for value in vars(module).values() if isinstance(value, kinds)]


def run_feast(repo: Path) -> None:
    import pandas as pd
    from feast.infra.offline_stores.file_source import SavedDatasetFileStorage

    from feast_lineage.producer.feature_store import FeatureStore

    # Feast warns that on-demand views and saved datasets are experimental.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"feast\.")
    now = datetime.now(UTC).replace(microsecond=0)
    write_data(repo, now)
    log("wrote data/driver_stats.parquet and data/driver_trips.parquet")

    os.chdir(repo)  # Feast resolves the SQLite paths of feature_store.yaml from here
    store = FeatureStore(repo_path=str(repo))
    objects = load_definitions(repo)
    store.apply(objects)
    log(f"applied {len(objects)} definitions (feast apply)")

    store.materialize(now - timedelta(days=DAYS), now)
    log("materialized the feature views into the online store (feast materialize)")

    entity_df = pd.DataFrame(
        {
            "driver_id": [d for d in DRIVERS for _ in range(3)],
            "event_timestamp": [now - timedelta(hours=h) for _ in DRIVERS for h in (1, 12, 30)],
            "val_to_add": [1, 2, 3] * len(DRIVERS),
            "val_to_add_2": [10, 20, 30] * len(DRIVERS),
        }
    )
    service = store.get_feature_service("driver_activity_v1")
    job = store.get_historical_features(entity_df=entity_df, features=service)
    store.create_saved_dataset(
        from_=job,
        name="driver_training_set",
        storage=SavedDatasetFileStorage(path=str(repo / "data" / "driver_training_set.parquet")),
        allow_overwrite=True,
        tags={"model": "driver_ranking"},
        feature_service=service,
    )
    log("ran a historical retrieval and saved it as the dataset driver_training_set")
    retrieved = datetime.now(UTC)

    online = store.get_online_features(
        features=store.get_feature_service("driver_activity_v2"),
        entity_rows=[{"driver_id": d, "val_to_add": 1, "val_to_add_2": 2} for d in DRIVERS[:3]],
    ).to_dict()
    log(f"ran an online retrieval: conv_rate of driver 1001 is {online['conv_rate'][0]:.2f}")

    # A schema change, so the feature view has history: conv_rate becomes a
    # Float64 and the definitions are applied again (a second version of
    # driver_hourly_stats, with the type change as its schema diff), then the
    # views are materialized again.
    definitions = repo / "driver_repo.py"
    text = definitions.read_text()
    changed = text.replace(CONV_RATE_FLOAT32, CONV_RATE_FLOAT64)
    if changed == text:
        raise SystemExit(f"{definitions}: conv_rate is not a Float32 field; cannot change it")
    # The first training run happens between the saved training set and the
    # schema change (post-events dates it so): leave it a window of seconds.
    elapsed = (datetime.now(UTC) - retrieved).total_seconds()
    time.sleep(max(0.0, TRAINING_WINDOW_SECONDS - elapsed))
    changed_at = datetime.now(UTC)
    definitions.write_text(changed)
    store.apply(load_definitions(repo))
    log("changed conv_rate from Float32 to Float64 and applied again (feast apply)")
    stats_file = repo / "data" / "driver_stats.parquet"  # the data changes type with it
    stats = pd.read_parquet(stats_file)
    stats["conv_rate"] = stats["conv_rate"].astype("float64")
    stats.to_parquet(stats_file)
    store.materialize_incremental(datetime.now(UTC))
    log("materialized again (feast materialize-incremental)")
    flush = getattr(store, "flush_lineage", None)
    if callable(flush):
        flush()
    write_history(repo, retrieved, changed_at, datetime.now(UTC))


# --- the other producers --------------------------------------------------------

AIRFLOW = "https://github.com/apache/airflow/tree/providers-openlineage/2.3.0"
DBT = "https://github.com/OpenLineage/OpenLineage/tree/1.34.0/integration/dbt"
SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.34.0/integration/spark"
FACET = "https://openlineage.io/spec/facets/1-0-0/Facet.json"
# The stack trace of the Spark training run that fails (errorMessage's stackTrace).
OOM_STACK = """java.lang.OutOfMemoryError: Java heap space
\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)
\tat org.apache.spark.ml.tree.impl.RandomForest$.findBestSplits(RandomForest.scala:663)
\tat org.apache.spark.ml.tree.impl.RandomForest$.run(RandomForest.scala:208)
\tat org.apache.spark.ml.regression.GBTRegressor.train(GBTRegressor.scala:192)
\tat org.apache.spark.ml.Predictor.fit(Predictor.scala:114)"""
COLUMN_LINEAGE = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
    "#/$defs/ColumnLineageDatasetFacet"
)
WAREHOUSE = "postgres://warehouse:5432"


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def run_id(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "quickstart/" + "/".join(map(str, parts))))


def facet(producer: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": FACET, **fields}


def schema(producer: str, *fields: tuple[str, str, str]) -> dict[str, Any]:
    return facet(
        producer,
        fields=[{"name": n, "type": t, "description": d} for n, t, d in fields],
    )


Column = tuple[str, str, str]  # an input field: (namespace, dataset name, field)


def column_input(
    column: Column, kind: str, subtype: str, description: str | None = None
) -> dict[str, Any]:
    transformation = {"type": kind, "subtype": subtype}
    if description:
        transformation["description"] = description
    namespace, name, field = column
    return {
        "namespace": namespace,
        "name": name,
        "field": field,
        "transformations": [transformation],
    }


# An input of a field: (input, DIRECT or INDIRECT, subtype[, description]).
Spec = tuple[Column, str, str] | tuple[Column, str, str, str]


def column_lineage(
    producer: str, fields: dict[str, list[Spec]], dataset_inputs: Sequence[Spec] = ()
) -> dict[str, Any]:
    """A columnLineage facet (1-2-0): output field -> (input, type, subtype[, description])."""
    return {
        "_producer": producer,
        "_schemaURL": COLUMN_LINEAGE,
        "fields": {
            out: {"inputFields": [column_input(*spec) for spec in inputs]}
            for out, inputs in fields.items()
        },
        "dataset": [column_input(*spec) for spec in dataset_inputs],
    }


def dataset(namespace: str, name: str, **facets: Any) -> dict[str, Any]:
    return {"namespace": namespace, "name": name, "facets": facets}


def event(
    producer: str,
    event_type: str,
    at: datetime,
    job: tuple[str, str],
    run: str,
    *,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    job_facets: dict[str, Any] | None = None,
    run_facets: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": iso(at),
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "job": {"namespace": job[0], "name": job[1], "facets": job_facets or {}},
        "run": {"runId": run, "facets": run_facets or {}},
        "inputs": inputs or [],
        "outputs": outputs or [],
    }


def start_and_complete(
    producer: str,
    started: datetime,
    completed: datetime,
    job: tuple[str, str],
    run: str,
    **parts: Any,
) -> list[dict[str, Any]]:
    """A run's START and COMPLETE events, carrying the same datasets and facets."""
    return [
        event(producer, "START", started, job, run, **parts),
        event(producer, "COMPLETE", completed, job, run, **parts),
    ]


def parent(producer: str, job: tuple[str, str], run: str) -> dict[str, Any]:
    return facet(producer, run={"runId": run}, job={"namespace": job[0], "name": job[1]})


def file_dataset(
    producer: str, path: Path, fields: list[tuple[str, str, str]], **facets: Any
) -> dict[str, Any]:
    """A local parquet file, named as OpenLineage names files, with its dataSource URI."""
    return dataset(
        "file",
        str(path),
        dataSource=facet(producer, name="local parquet", uri=path.as_uri()),
        schema=schema(producer, *fields),
        **facets,
    )


class Night(NamedTuple):
    """One run of the Airflow DAG: its clock (minutes from its start) and how it goes."""

    label: int  # days ago; 0 is today's run
    at: Callable[[float], datetime]
    fails: str | None = None  # the task that fails, if one does
    dbt_v2: bool = False  # the dbt model's second version (it also reads the shifts)


def nights(now: datetime, ran_again: datetime) -> list[Night]:
    """Three nightly runs (the second one's extract fails), then today's run.

    Today's run happens after Feast's schema change, squeezed between that and
    ``now``: the dbt model has new inputs and the export task fails.
    """
    runs = []
    for days_ago in (3, 2, 1):
        start = (now - timedelta(days=days_ago)).replace(hour=2, minute=0, second=0, microsecond=0)
        runs.append(
            Night(
                days_ago,
                lambda minutes, start=start: start + timedelta(minutes=minutes),
                "extract" if days_ago == 2 else None,
            )
        )
    span = now - ran_again
    runs.append(Night(0, lambda minutes: ran_again + span * (minutes + 1) / 24, "export", True))
    return runs


def other_producers(repo: Path, now: datetime) -> list[dict[str, Any]]:
    """Three nights of Airflow and dbt runs (one failed), the first Spark trainings,
    then today's run (the dbt model changed, the export fails) and a second training."""
    data = (repo / "data").resolve()
    raw_fields = [
        ("trip_id", "BIGINT", "Trip identifier"),
        ("driver_id", "BIGINT", "Driver identifier"),
        ("started_at", "TIMESTAMP", "When the trip started"),
        ("ended_at", "TIMESTAMP", "When the trip ended"),
        ("accepted", "BOOLEAN", "Whether the driver accepted the trip's offer"),
        ("acknowledged", "BOOLEAN", "Whether the driver acknowledged the offer in time"),
        ("fare", "NUMERIC", "Fare paid"),
        ("rating", "REAL", "Rider's rating"),
    ]
    raw_trips = dataset(
        WAREHOUSE,
        "raw.public.trips",
        schema=schema(AIRFLOW, *raw_fields),
        documentation=facet(AIRFLOW, description="Every completed trip, from the ride service"),
    )
    staging = dataset("s3://ml-lake", "staging/trips")
    training_file_path = str(data / "driver_training_set.parquet")

    def raw(field: str) -> Column:
        return (WAREHOUSE, "raw.public.trips", field)

    def stage(field: str) -> Column:
        return ("s3://ml-lake", "staging/trips", field)

    # Column lineage: extract copies every column; export and dbt aggregate per driver.
    staging_columns = column_lineage(
        AIRFLOW, {name: [(raw(name), "DIRECT", "IDENTITY")] for name, _, _ in raw_fields}
    )
    per_day = [
        (stage("driver_id"), "INDIRECT", "GROUP_BY"),
        (stage("ended_at"), "INDIRECT", "GROUP_BY"),
    ]
    trips_columns = column_lineage(
        AIRFLOW,
        {
            "driver_id": [(stage("driver_id"), "DIRECT", "IDENTITY")],
            "event_timestamp": [
                (stage("ended_at"), "DIRECT", "TRANSFORMATION", "date_trunc('day', ended_at)")
            ],
            "trips_today": [(stage("trip_id"), "DIRECT", "AGGREGATION", "count(trip_id)")],
            "rating": [(stage("rating"), "DIRECT", "AGGREGATION", "avg(rating)")],
        },
        per_day,
    )
    exported = (WAREHOUSE, "exports.public.driver_trips")
    stats_columns = column_lineage(
        DBT,
        {
            "driver_id": [(stage("driver_id"), "DIRECT", "IDENTITY")],
            "event_timestamp": [
                (stage("ended_at"), "DIRECT", "TRANSFORMATION", "date_trunc('hour', t.ended_at)")
            ],
            "conv_rate": [(stage("accepted"), "DIRECT", "AGGREGATION", "avg(t.accepted::int)")],
            "acc_rate": [
                (stage("acknowledged"), "DIRECT", "AGGREGATION", "avg(t.acknowledged::int)")
            ],
            "avg_daily_trips": [
                ((*exported, "trips_today"), "DIRECT", "AGGREGATION", "avg(d.trips_today)")
            ],
        },
        [
            (stage("driver_id"), "INDIRECT", "JOIN", "using (driver_id)"),
            ((*exported, "driver_id"), "INDIRECT", "JOIN", "using (driver_id)"),
            (stage("driver_id"), "INDIRECT", "GROUP_BY"),
            (stage("ended_at"), "INDIRECT", "GROUP_BY"),
        ],
    )
    trips_fields = [
        ("driver_id", "INT64", "Driver identifier"),
        ("event_timestamp", "TIMESTAMP", "The day"),
        ("trips_today", "INT64", "Trips completed that day"),
        ("rating", "FLOAT", "Average rating that day"),
    ]
    stats_fields = [
        ("driver_id", "INT64", "Driver identifier"),
        ("event_timestamp", "TIMESTAMP", "The hour"),
        ("created", "TIMESTAMP", "When the row was built"),
        ("conv_rate", "FLOAT", "Conversion rate"),
        ("acc_rate", "FLOAT", "Acceptance rate"),
        ("avg_daily_trips", "INT64", "Average trips per day"),
    ]
    dag = ("airflow://prod-cluster", "driver_features_daily")
    extract = ("airflow://prod-cluster", "driver_features_daily.extract_trips")
    export = ("airflow://prod-cluster", "driver_features_daily.export_daily_trips")
    model = ("dbt://analytics", "analytics.driver_hourly_stats")
    dag_facets = {
        "documentation": facet(AIRFLOW, description="Builds the driver feature tables every night"),
        "jobType": facet(AIRFLOW, processingType="BATCH", integration="AIRFLOW", jobType="DAG"),
        "ownership": facet(AIRFLOW, owners=[{"name": "fleet-data", "type": "TEAM"}]),
    }
    task_type = {
        "jobType": facet(AIRFLOW, processingType="BATCH", integration="AIRFLOW", jobType="TASK")
    }
    dbt_facets = {
        "jobType": facet(DBT, processingType="BATCH", integration="DBT", jobType="MODEL"),
        "sql": facet(
            DBT,
            query=(
                "select t.driver_id, date_trunc('hour', t.ended_at) as event_timestamp,\n"
                "       now() as created,\n"
                "       avg(t.accepted::int) as conv_rate, avg(t.acknowledged::int) as acc_rate,\n"
                "       avg(d.trips_today) as avg_daily_trips\n"
                "from {{ source('staging', 'trips') }} t\n"
                "join {{ source('exports', 'driver_trips') }} d using (driver_id)\n"
                "group by 1, 2"
            ),
        ),
        "sourceCodeLocation": facet(
            DBT, type="git", url="https://git.example.com/analytics/models/driver_hourly_stats.sql"
        ),
    }
    # The model's second version (today's run) also reads the drivers' shifts:
    # acc_rate now comes from the offers the driver acknowledged per shift.
    shift_fields = [
        ("shift_id", "BIGINT", "Shift identifier"),
        ("driver_id", "BIGINT", "Driver identifier"),
        ("acknowledged_offers", "INTEGER", "Offers acknowledged in time during the shift"),
    ]
    driver_shifts = dataset(
        WAREHOUSE,
        "raw.public.driver_shifts",
        schema=schema(DBT, *shift_fields),
        documentation=facet(DBT, description="Every driver shift, from the dispatch service"),
    )
    shifts = (WAREHOUSE, "raw.public.driver_shifts")
    stats_columns_v2 = {
        **stats_columns,
        "fields": {
            **stats_columns["fields"],
            "acc_rate": column_lineage(
                DBT,
                {
                    "acc_rate": [
                        (
                            (*shifts, "acknowledged_offers"),
                            "DIRECT",
                            "AGGREGATION",
                            "avg(s.acknowledged_offers)",
                        )
                    ]
                },
            )["fields"]["acc_rate"],
        },
        "dataset": [
            *stats_columns["dataset"],
            column_input((*shifts, "driver_id"), "INDIRECT", "JOIN", "using (driver_id)"),
        ],
    }
    dbt_facets_v2 = {
        **dbt_facets,
        "sql": facet(
            DBT,
            query=dbt_facets["sql"]["query"]
            .replace(
                "avg(t.acknowledged::int) as acc_rate", "avg(s.acknowledged_offers) as acc_rate"
            )
            .replace(
                "group by 1, 2",
                "join {{ source('raw', 'driver_shifts') }} s using (driver_id)\ngroup by 1, 2",
            ),
        ),
    }
    events: list[dict[str, Any]] = []
    history = read_history(repo, now)
    for night in nights(now, history["ran_again"]):
        at, days_ago = night.at, night.label
        dag_run = run_id("dag", days_ago)
        nominal = {"nominalTime": facet(AIRFLOW, nominalStartTime=iso(at(0)))}
        events.append(
            event(AIRFLOW, "START", at(0), dag, dag_run, job_facets=dag_facets, run_facets=nominal)
        )
        # extract_trips: raw table -> staging on S3
        task_run = run_id("extract", days_ago)
        up = {"parent": parent(AIRFLOW, dag, dag_run)}
        events.append(
            event(
                AIRFLOW,
                "START",
                at(1),
                extract,
                task_run,
                inputs=[raw_trips],
                outputs=[staging],
                job_facets=task_type,
                run_facets=up,
            )
        )
        if night.fails == "extract":
            error = facet(
                AIRFLOW,
                message="connection to warehouse:5432 timed out",
                programmingLanguage="python",
            )
            events.append(
                event(
                    AIRFLOW,
                    "FAIL",
                    at(4),
                    extract,
                    task_run,
                    inputs=[raw_trips],
                    job_facets=task_type,
                    run_facets={**up, "errorMessage": error},
                )
            )
            events.append(
                event(
                    AIRFLOW,
                    "FAIL",
                    at(5),
                    dag,
                    dag_run,
                    job_facets=dag_facets,
                )
            )
            continue
        staged = {
            **staging,
            "facets": {
                "schema": schema(AIRFLOW, *raw_fields),
                "columnLineage": staging_columns,
            },
            "outputFacets": {
                "outputStatistics": facet(AIRFLOW, rowCount=48_000 + days_ago * 731, size=9_800_000)
            },
        }
        events.append(
            event(
                AIRFLOW,
                "COMPLETE",
                at(6),
                extract,
                task_run,
                inputs=[raw_trips],
                outputs=[staged],
                job_facets=task_type,
                run_facets=up,
            )
        )
        # export_daily_trips: staging -> the parquet file Feast's driver_daily_trips_source reads,
        # which is also the warehouse's external table exports.public.driver_trips (a symlink)
        export_run = run_id("export", days_ago)
        trips_file = file_dataset(
            AIRFLOW,
            data / "driver_trips.parquet",
            trips_fields,
            symlinks=facet(
                AIRFLOW,
                identifiers=[
                    {"namespace": WAREHOUSE, "name": "exports.public.driver_trips", "type": "TABLE"}
                ],
            ),
            columnLineage=trips_columns,
        )
        # What a finished export wrote: a failed one reports no output statistics.
        written = {
            **trips_file,
            "outputFacets": {"outputStatistics": facet(AIRFLOW, rowCount=len(DRIVERS) * DAYS)},
        }
        if night.fails == "export":
            # Today's export fails after its good runs: the trips file is at risk
            # with what reads it (driver_daily_trips, and through the dbt model,
            # which reads it as exports.public.driver_trips, the hourly stats and
            # the model). The DAG run fails too; that puts none of its tasks at risk.
            denied = facet(
                AIRFLOW,
                message="permission denied for schema exports",
                programmingLanguage="python",
            )
            events += [
                event(
                    AIRFLOW,
                    "START",
                    at(7),
                    export,
                    export_run,
                    inputs=[staging],
                    outputs=[trips_file],
                    job_facets=task_type,
                    run_facets=up,
                ),
                event(
                    AIRFLOW,
                    "FAIL",
                    at(9),
                    export,
                    export_run,
                    inputs=[staging],
                    job_facets=task_type,
                    run_facets={**up, "errorMessage": denied},
                ),
            ]
        else:
            events += start_and_complete(
                AIRFLOW,
                at(7),
                at(9),
                export,
                export_run,
                inputs=[staging],
                outputs=[written],
                job_facets=task_type,
                run_facets=up,
            )
        # dbt: staging + the trips table -> the parquet file driver_hourly_stats_source reads
        dbt_run = run_id("dbt", days_ago)
        stats_file = file_dataset(
            DBT,
            data / "driver_stats.parquet",
            stats_fields,
            columnLineage=stats_columns_v2 if night.dbt_v2 else stats_columns,
        )
        stats_file["outputFacets"] = {
            "outputStatistics": facet(DBT, rowCount=len(DRIVERS) * DAYS * 24)
        }
        dbt_inputs = [staging, dataset(WAREHOUSE, "exports.public.driver_trips")]
        if night.dbt_v2:  # today's model also reads the shifts table
            dbt_inputs.append(driver_shifts)
        events += start_and_complete(
            DBT,
            at(10),
            at(18),
            model,
            dbt_run,
            inputs=dbt_inputs,
            outputs=[stats_file],
            job_facets=dbt_facets_v2 if night.dbt_v2 else dbt_facets,
            run_facets=up,
        )
        events.append(
            event(
                AIRFLOW,
                "FAIL" if night.fails else "COMPLETE",
                at(20),
                dag,
                dag_run,
                job_facets=dag_facets,
            )
        )

    # Spark trains the ranking model on the saved dataset (its file: a dataSource URI match).
    train = ("spark://ml-team", "train_driver_ranking")
    training_set = file_dataset(
        SPARK,
        data / "driver_training_set.parquet",
        [
            ("driver_id", "long", ""),
            ("event_timestamp", "timestamp", ""),
            ("conv_rate", "float", ""),
            ("acc_rate", "float", ""),
            ("avg_daily_trips", "long", ""),
            ("conv_rate_plus_val1", "double", ""),
        ],
    )

    def training(field: str) -> Column:
        return ("file", training_file_path, field)

    model_inputs = ["conv_rate", "acc_rate", "avg_daily_trips", "conv_rate_plus_val1"]
    model_out = dataset(
        "mlflow://tracking:5000",
        "models/driver_ranking",
        documentation=facet(SPARK, description="The driver ranking model (gradient-boosted trees)"),
        version=facet(SPARK, datasetVersion="2"),
        schema=schema(SPARK, ("score", "double", "The driver's ranking score")),
        columnLineage=column_lineage(
            SPARK,
            {
                "score": [
                    (training(name), "DIRECT", "TRANSFORMATION", "gradient-boosted trees")
                    for name in model_inputs
                ]
            },
        ),
    )
    spark_facets = {
        "jobType": facet(SPARK, processingType="BATCH", integration="SPARK", jobType="JOB"),
        "documentation": facet(SPARK, description="Trains the driver ranking model"),
    }
    # Spark trained once Feast had saved the training set, before the schema
    # change: it failed, then succeeded. After today's run it trains again.
    window = history["changed_at"] - history["trained_from"]

    def first(share: float) -> datetime:
        return history["trained_from"] + window * share

    error = facet(
        SPARK,
        message="java.lang.OutOfMemoryError: Java heap space",
        programmingLanguage="JAVA",
        stackTrace=OOM_STACK,
    )
    failed_run = run_id("spark", "oom")
    events += [
        event(
            SPARK,
            "START",
            first(0.1),
            train,
            failed_run,
            inputs=[training_set],
            job_facets=spark_facets,
        ),
        event(
            SPARK,
            "FAIL",
            first(0.3),
            train,
            failed_run,
            inputs=[training_set],
            job_facets=spark_facets,
            run_facets={"errorMessage": error},
        ),
    ]
    today = nights(now, history["ran_again"])[-1]
    trainings = [
        (run_id("spark", "ok"), first(0.5), first(0.8), "2"),
        (run_id("spark", "retrained"), today.at(21), today.at(22), "3"),
    ]
    for run, started, completed, version in trainings:
        model = {
            **model_out,
            "facets": {**model_out["facets"], "version": facet(SPARK, datasetVersion=version)},
        }
        done = {**model, "outputFacets": {"outputStatistics": facet(SPARK, rowCount=1)}}
        events += [
            event(
                SPARK,
                "START",
                started,
                train,
                run,
                inputs=[training_set],
                outputs=[model],
                job_facets=spark_facets,
            ),
            event(
                SPARK,
                "COMPLETE",
                completed,
                train,
                run,
                inputs=[training_set],
                outputs=[done],
                job_facets=spark_facets,
            ),
        ]
    return events


def post_events(repo: Path, url: str) -> int:
    if not url.startswith(("http://", "https://")):
        raise SystemExit(f"{url} is not an http(s) URL of a lineage server")
    # Today's Airflow run is dated between Feast's second run and now: leave it room.
    ran_again = read_history(repo, datetime.now(UTC))["ran_again"]
    time.sleep(max(0.0, 2.0 - (datetime.now(UTC) - ran_again).total_seconds()))
    events = other_producers(repo, datetime.now(UTC))
    request = urllib.request.Request(  # noqa: S310 - an http(s) URL, checked above
        url.rstrip("/") + "/api/v1/lineage",
        data=json.dumps(events).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        body = json.loads(response.read() or b"{}")
    summary = body.get("summary", {})
    if summary.get("failed"):
        raise SystemExit(f"the lineage server refused {summary['failed']} events: {body}")
    return len(events)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup", help="write the repository and run Feast on it")
    setup.add_argument("repo", type=Path)
    post = sub.add_parser("post-events", help="send the Airflow, dbt and Spark events")
    post.add_argument("repo", type=Path)
    post.add_argument("url")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    if args.command == "setup":
        write_repo(repo)
        run_feast(repo)
    else:
        count = post_events(repo, args.url)
        log(f"posted {count} events from Airflow, dbt and Spark")
    return 0


if __name__ == "__main__":
    sys.exit(main())
