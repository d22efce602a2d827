"""A deterministic, multi-producer OpenLineage workload for the benchmarks.

:class:`Workload` is an endless, seeded stream of OpenLineage 2-0-2 run events
that looks like what a data platform sends to a lineage server:

* five producers with their own namespaces: Airflow DAGs (``airflow://prod``)
  whose tasks run SQL against ``postgres://db:5432`` or submit Spark jobs
  (``spark://ml-team``) that write ``s3://bucket``; dbt projects
  (``dbt://analytics``); Flink streaming jobs reading ``kafka://broker:9092``;
  and Feast materializations in Feast project namespaces (``feast_ml``...);
* a START and a COMPLETE per run, event times increasing along the stream;
  child runs carry a ParentRunFacet (DAG -> task -> Spark job, dbt run ->
  model, Spark application -> Spark job), with ``root`` naming the top run;
* 2 to 4 datasets per event, each with a 12-field SchemaDatasetFacet and a
  DatasourceDatasetFacet; about a third carry a SymlinksDatasetFacet;
  COMPLETE events add output statistics; about 3 KB of JSON per event;
* a connected graph: a new pipeline reads datasets that earlier pipelines
  write (raw -> staged -> marts -> Feast), so chains of jobs form;
* a population that grows with the stream: the number of jobs is about
  ``base_jobs + jobs_per_sqrt_event * sqrt(events so far)`` (330 jobs after
  10k events, ~1,000 after 100k, ~3,000 after 1M) and datasets grow with the
  jobs, so a store of 1M events still has a realistic graph rather than the
  same few jobs run a million times.

The same config always gives the same events, byte for byte. A later
benchmark can replay the stream to know which jobs, datasets and runs a store
filled by :mod:`bench.ingest` holds (see :meth:`Workload.jobs` and friends).

With ``column_chains`` above 0 (``--workload columns`` of the benchmarks)
that share of new flows are column-heavy Spark applications: chains of 2 to
8 jobs, each writing a dataset of 30 to 50 columns whose every column comes
from 1 to 3 fields of the job's inputs (20% of them INDIRECT), stated by a
1-2-0 ``columnLineage`` facet on the START and the COMPLETE, as Spark does.

Run ``python -m bench.workload --events 100000`` for statistics.
"""

from __future__ import annotations

import argparse
import math
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

import orjson

Event = dict[str, Any]

RUN_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"

PRODUCERS = {
    "airflow": "https://github.com/apache/airflow/tree/providers-openlineage/1.14.0",
    "spark": "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/spark",
    "dbt": "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/dbt",
    "flink": "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/flink",
    "feast": "https://github.com/feast-dev/feast/tree/v0.59.0",
}
NS_AIRFLOW = "airflow://prod"
NS_SPARK = "spark://ml-team"
NS_DBT = "dbt://analytics"
NS_FLINK = "flink://streaming"
NS_POSTGRES = "postgres://db:5432"
NS_S3 = "s3://bucket"
NS_KAFKA = "kafka://broker:9092"
NS_HIVE = "hive://metastore:9083"
NS_TRINO = "trino://trino:8080"
NS_SCHEMA_REGISTRY = "confluent://schema-registry:8081"
FEAST_PROJECTS = ("feast_ml", "feast_risk")

# The share of new flows that are column-heavy Spark chains, by workload name.
WORKLOADS = {"standard": 0.0, "columns": 0.3, "history": 0.0}
# The history workload (issue 39): a run changes its job's inputs with this
# chance, its outputs with a third of it and a dataset's symlinks with a
# quarter, and event times grow ten times slower (1M events span ~2 months).
HISTORY_DRIFT = 0.08
HISTORY_TICK_SCALE = 10

# Layers of the data platform: a pipeline reads a lower layer and writes a higher one.
RAW, STAGED, MART, FEATURE = 0, 1, 2, 3

_DOMAINS = (
    "orders",
    "payments",
    "customers",
    "sessions",
    "clicks",
    "inventory",
    "shipments",
    "fraud",
    "pricing",
    "campaigns",
    "tickets",
    "drivers",
    "trips",
    "ratings",
    "search",
    "devices",
)
_COLUMNS = (
    "id",
    "customer_id",
    "account_id",
    "order_id",
    "session_id",
    "device_id",
    "event_ts",
    "created_at",
    "updated_at",
    "amount",
    "currency",
    "country",
    "status",
    "channel",
    "price",
    "quantity",
    "score",
    "latency_ms",
    "is_active",
    "category",
    "region",
    "discount",
    "rating",
    "duration_s",
)
_TYPES = {
    "sql": ("bigint", "varchar", "timestamp", "numeric(12,2)", "integer", "boolean", "date"),
    "spark": ("long", "string", "timestamp", "double", "int", "boolean", "decimal(12,2)"),
    "kafka": ("long", "string", "long", "double", "int", "boolean", "string"),
    "feast": ("Int64", "String", "UnixTimestamp", "Float64", "Int32", "Bool", "Float32"),
}
_DESCRIPTIONS = (
    "Primary key",
    "When the row was last changed",
    "Amount in the account currency",
    "ISO 3166 country code",
    "Business status of the record",
    "Source system identifier",
)


def facet_schema_url(name: str, version: str) -> str:
    return f"https://openlineage.io/spec/facets/{version}/{name}.json#/$defs/{name}"


def _facet(producer: str, name: str, version: str, /, **fields: Any) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": facet_schema_url(name, version), **fields}


def _custom_facet(producer: str, name: str, /, **fields: Any) -> dict[str, Any]:
    return {
        "_producer": producer,
        "_schemaURL": f"https://feast-lineage.example/spec/facets/{name}.json",
        **fields,
    }


def _iso(us: int) -> str:
    t = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def input_fields(
    rng: random.Random, inputs: list[tuple[Dataset, list[str]]]
) -> list[dict[str, Any]]:
    """The ``inputFields`` of one output column: 1 to 3 fields of the inputs, 20% INDIRECT.

    ``inputs`` pairs each input dataset with its columns (an input listed
    twice is drawn twice as often); a field drawn twice is listed once.
    """
    picked = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        ds, columns = rng.choice(inputs)
        indirect = rng.random() < 0.2
        picked.append(
            {
                "namespace": ds.namespace,
                "name": ds.name,
                "field": rng.choice(columns),
                "transformations": [
                    {
                        "type": "INDIRECT" if indirect else "DIRECT",
                        "subtype": rng.choice(("FILTER", "JOIN", "GROUP_BY"))
                        if indirect
                        else rng.choice(("IDENTITY", "TRANSFORMATION", "AGGREGATION")),
                        "masking": False,
                    }
                ],
            }
        )
    return list({(p["name"], p["field"]): p for p in picked}.values())


@dataclass
class Dataset:
    namespace: str
    name: str
    layer: int
    facets: dict[str, Any]
    versioned: bool = False  # a DatasetVersionDatasetFacet that changes every write
    _by_producer: dict[str, dict[str, Any]] = field(default_factory=dict)

    def facets_from(self, producer: str) -> dict[str, Any]:
        """The facets as ``producer`` reports them (same content, its own ``_producer``)."""
        facets = self._by_producer.get(producer)
        if facets is None:
            facets = {
                key: {**value, "_producer": producer} if "_producer" in value else value
                for key, value in self.facets.items()
            }
            self._by_producer[producer] = facets
        return facets

    def ref(self, producer: str, *, output: bool) -> dict[str, Any]:
        facets = self.facets_from(producer)
        if not output and facets.get("dataSource", {}).get("uri") == self.namespace:
            # Integrations name the data source of what they write, not always of what they read.
            facets = self._input_facets(producer, facets)
        return {"namespace": self.namespace, "name": self.name, "facets": facets}

    def _input_facets(self, producer: str, facets: dict[str, Any]) -> dict[str, Any]:
        key = "<in>" + producer
        slim = self._by_producer.get(key)
        if slim is None:
            slim = {k: v for k, v in facets.items() if k != "dataSource"}
            self._by_producer[key] = slim
        return slim


@dataclass
class Job:
    namespace: str
    name: str
    producer: str
    inputs: list[Dataset]
    outputs: list[Dataset]
    facets: dict[str, Any]
    run_facets: dict[str, Any]
    children: list[Job] = field(default_factory=list)
    nominal: bool = False  # scheduled: runs carry a NominalTimeRunFacet
    # output (namespace, name) -> its columnLineage facet, sent on every event
    column_lineage: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkloadConfig:
    seed: int = 20260101
    # Event times start here and grow ~0.5 s per event (1M events span ~6 days).
    start: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    base_jobs: int = 30
    jobs_per_sqrt_event: float = 3.0
    uuid7_run_ids: bool = True  # what current OpenLineage clients generate
    column_chains: float = 0.0  # share of new flows that are column-heavy Spark chains
    drift: float = 0.0  # chance a run changes its job's inputs (history workload)
    tick_scale: int = 1  # event times grow this many times slower


def config_for(name: str, seed: int = WorkloadConfig.seed, **kwargs: Any) -> WorkloadConfig:
    """The config of a named workload (``standard``, ``columns``, ``history``)."""
    if name == "history":
        kwargs = {"drift": HISTORY_DRIFT, "tick_scale": HISTORY_TICK_SCALE, **kwargs}
    return WorkloadConfig(seed=seed, column_chains=WORKLOADS[name], **kwargs)


@dataclass
class Stats:
    events: int = 0
    runs: int = 0
    bytes: int = 0
    dataset_refs: int = 0
    symlinked_refs: int = 0
    child_runs: int = 0
    column_edges: int = 0  # field edges stated by distinct columnLineage facets
    drifts: int = 0  # runs that drew a history change (history workload)


class Workload:
    """The endless event stream of one config. Not thread-safe."""

    def __init__(self, config: WorkloadConfig | None = None) -> None:
        self.config = config or WorkloadConfig()
        self._rng = random.Random(self.config.seed)
        start = self.config.start
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        self._clock_us = int(start.timestamp() * 1_000_000)
        self._flows: list[Job] = []
        self._jobs: dict[tuple[str, str], Job] = {}
        self._datasets: dict[tuple[str, str], Dataset] = {}
        self._layers: list[list[Dataset]] = [[], [], [], []]
        self._serial = 0
        self.stats = Stats()
        self._stream = self._generate()

    # -- public API -----------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """The rest of the stream, in order (shared with :meth:`take`)."""
        return self._stream

    def take(self, n: int) -> list[Event]:
        """The next ``n`` events as dicts."""
        return list(islice(self._stream, n))

    def take_json(self, n: int) -> list[bytes]:
        """The next ``n`` events, each serialized on its own (bodies of single POSTs)."""
        return [orjson.dumps(e) for e in islice(self._stream, n)]

    def take_batches(self, n: int, size: int = 100) -> list[bytes]:
        """The next ``n`` events as JSON arrays of ``size`` events (the last may be short)."""
        out: list[bytes] = []
        while n > 0:
            chunk = self.take(min(size, n))
            if not chunk:
                break
            out.append(orjson.dumps(chunk))
            n -= len(chunk)
        return out

    def iter_batches(self, n: int, size: int = 100) -> Iterator[bytes]:
        """Like :meth:`take_batches`, lazily (for filling big stores)."""
        while n > 0:
            chunk = self.take(min(size, n))
            if not chunk:
                return
            n -= len(chunk)
            yield orjson.dumps(chunk)

    def jobs(self) -> list[tuple[str, str]]:
        """(namespace, name) of every job created so far."""
        return list(self._jobs)

    def datasets(self) -> list[tuple[str, str]]:
        """(namespace, name) of every dataset created so far."""
        return list(self._datasets)

    # -- population -------------------------------------------------------------------

    def _target_jobs(self) -> int:
        cfg = self.config
        return cfg.base_jobs + int(cfg.jobs_per_sqrt_event * math.sqrt(self.stats.events))

    def _next_flow(self) -> Job:
        if len(self._jobs) < self._target_jobs() or not self._flows:
            flow = self._new_flow()
            self._flows.append(flow)
            return flow
        return self._rng.choice(self._flows)

    def _new_flow(self) -> Job:
        if self.config.column_chains and self._rng.random() < self.config.column_chains:
            return self._column_chain()
        kind = self._rng.choices(
            ("airflow", "spark", "dbt", "flink", "feast"), weights=(30, 15, 20, 10, 25)
        )[0]
        if kind == "airflow":
            return self._airflow_dag()
        if kind == "spark":
            return self._spark_app()
        if kind == "dbt":
            return self._dbt_project()
        if kind == "flink":
            return self._flink_job()
        return self._feast_materialization()

    def _next_name(self, stem: str) -> str:
        self._serial += 1
        return f"{stem}_{self._serial}"

    def _domain(self) -> str:
        return self._rng.choice(_DOMAINS)

    def _register(self, job: Job) -> Job:
        self._jobs[(job.namespace, job.name)] = job
        for child in job.children:
            self._register(child)
        return job

    # -- datasets -------------------------------------------------------------------

    def _schema(self, producer: str, family: str) -> dict[str, Any]:
        types = _TYPES[family]
        columns = self._rng.sample(_COLUMNS, 12)
        fields: list[dict[str, Any]] = []
        for i, col in enumerate(columns):
            item: dict[str, Any] = {"name": col, "type": types[i % len(types)]}
            if i == 0:
                item["description"] = self._rng.choice(_DESCRIPTIONS)
            fields.append(item)
        return _facet(producer, "SchemaDatasetFacet", "1-2-0", fields=fields)

    def _dataset(
        self,
        namespace: str,
        name: str,
        layer: int,
        producer: str,
        family: str,
        *,
        uri: str | None = None,
        symlink: tuple[str, str, str] | None = None,
        extra: dict[str, Any] | None = None,
        versioned: bool = False,
    ) -> Dataset:
        facets: dict[str, Any] = {
            "schema": self._schema(producer, family),
            "dataSource": _facet(
                producer, "DatasourceDatasetFacet", "1-0-1", name=namespace, uri=uri or namespace
            ),
        }
        if symlink is None and self._rng.random() < 1 / 3:
            symlink = self._default_symlink(namespace, name)
        if symlink is not None:
            ns, sym_name, sym_type = symlink
            facets["symlinks"] = _facet(
                producer,
                "SymlinksDatasetFacet",
                "1-0-1",
                identifiers=[{"namespace": ns, "name": sym_name, "type": sym_type}],
            )
        if extra:
            facets.update(extra)
        ds = Dataset(namespace, name, layer, facets, versioned)
        self._datasets[(namespace, name)] = ds
        self._layers[layer].append(ds)
        return ds

    def _default_symlink(self, namespace: str, name: str) -> tuple[str, str, str] | None:
        if namespace == NS_S3:
            return (NS_HIVE, name.rsplit("/", 1)[-1].replace("-", "_"), "TABLE")
        if namespace == NS_POSTGRES:
            return (NS_TRINO, f"postgres.{name}", "TABLE")
        if namespace == NS_KAFKA:
            return (NS_SCHEMA_REGISTRY, f"{name}-value", "SUBJECT")
        return None

    def _raw(self, flavour: str) -> Dataset:
        dom = self._domain()
        if flavour == "kafka":
            name = self._next_name(f"prod.{dom}.events")
            return self._dataset(NS_KAFKA, name, RAW, PRODUCERS["flink"], "kafka")
        if flavour == "s3":
            name = self._next_name(f"landing/{dom}/export")
            return self._dataset(NS_S3, name, RAW, PRODUCERS["spark"], "spark")
        name = self._next_name(f"appdb.public.{dom}")
        return self._dataset(NS_POSTGRES, name, RAW, PRODUCERS["airflow"], "sql")

    def _pick(self, layers: tuple[int, ...], flavour: str, namespace: str | None = None) -> Dataset:
        """An existing dataset of one of ``layers`` (a new raw one now and then)."""
        pool = [
            ds
            for layer in layers
            for ds in self._layers[layer][-400:]
            if namespace is None or ds.namespace == namespace
        ]
        if not pool or (RAW in layers and self._rng.random() < 0.25):
            return self._raw(flavour)
        # Prefer recent datasets a little, but reach back into the whole window.
        return pool[min(len(pool) - 1, int(len(pool) * self._rng.random() ** 0.7))]

    def _picks(
        self, layers: tuple[int, ...], flavour: str, k: int, namespace: str | None = None
    ) -> list[Dataset]:
        out: list[Dataset] = []
        for _ in range(k * 3):
            ds = self._pick(layers, flavour, namespace)
            if ds not in out:
                out.append(ds)
            if len(out) == k:
                break
        return out

    # -- job facets -----------------------------------------------------------------

    def _job_type(self, producer: str, integration: str, job_type: str, processing: str) -> Any:
        return _facet(
            producer,
            "JobTypeJobFacet",
            "2-0-4",
            processingType=processing,
            integration=integration,
            jobType=job_type,
        )

    def _sql(self, producer: str, inputs: list[Dataset], output: Dataset) -> Any:
        cols = ", ".join(f["name"] for f in output.facets["schema"]["fields"][:4])
        joins = " JOIN ".join(ds.name for ds in inputs)
        query = f"INSERT INTO {output.name} SELECT {cols} FROM {joins} WHERE updated_at >= :since"
        return _facet(producer, "SQLJobFacet", "1-1-0", query=query)

    # -- producers ------------------------------------------------------------------

    def _airflow_dag(self) -> Job:
        prod = PRODUCERS["airflow"]
        dom = self._domain()
        dag = self._next_name(f"{dom}_pipeline")
        engine = _facet(
            prod,
            "ProcessingEngineRunFacet",
            "1-1-1",
            version="2.10.4",
            name="Airflow",
            openlineageAdapterVersion="1.14.0",
        )
        tasks: list[Job] = []
        # extract: an OLTP table into staging
        src = self._picks((RAW,), "postgres", self._rng.choice((1, 1, 1, 2)), NS_POSTGRES)
        staged = self._dataset(NS_POSTGRES, f"warehouse.staging.stg_{dag}", STAGED, prod, "sql")
        tasks.append(self._airflow_task(dag, "extract", src, [staged], engine))
        last = staged
        # one or two Spark transforms submitted by the DAG
        for step in range(self._rng.choice((1, 1, 2))):
            extra = self._picks((STAGED,), "s3", self._rng.choice((0, 0, 1)))
            inputs = [last, *(ds for ds in extra if ds is not last)][:3]
            out = self._dataset(
                NS_S3, f"lake/{dom}/{dag}_t{step}", MART, PRODUCERS["spark"], "spark"
            )
            spark = self._spark_job(f"{dag}_t{step}", inputs, [out])
            task = self._airflow_task(dag, f"transform_{step}", inputs, [out], engine)
            task.children.append(spark)
            tasks.append(task)
            last = out
        if self._rng.random() < 0.6:
            mart = self._dataset(NS_POSTGRES, f"warehouse.marts.{dag}", MART, prod, "sql")
            tasks.append(self._airflow_task(dag, "publish", [last], [mart], engine))
            last = mart
        root = Job(
            NS_AIRFLOW,
            dag,
            "airflow",
            [src[0]],
            [last],
            {"jobType": self._job_type(prod, "AIRFLOW", "DAG", "BATCH")},
            {"processing_engine": engine},
            tasks,
            nominal=True,
        )
        return self._register(root)

    def _airflow_task(
        self, dag: str, task: str, inputs: list[Dataset], outputs: list[Dataset], engine: Any
    ) -> Job:
        prod = PRODUCERS["airflow"]
        facets = {"jobType": self._job_type(prod, "AIRFLOW", "TASK", "BATCH")}
        if not task.startswith("transform"):
            facets["sql"] = self._sql(prod, inputs, outputs[0])
        return Job(
            NS_AIRFLOW,
            f"{dag}.{task}",
            "airflow",
            inputs,
            outputs,
            facets,
            {"processing_engine": engine},
            nominal=True,
        )

    def _spark_job(self, app: str, inputs: list[Dataset], outputs: list[Dataset]) -> Job:
        prod = PRODUCERS["spark"]
        for ds in outputs:
            ds.versioned = ds.versioned or self._rng.random() < 0.5
        target = outputs[0].name.rsplit("/", 1)[-1]
        return Job(
            NS_SPARK,
            f"{app}.execute_insert_into_hadoop_fs_relation_command.{target}",
            "spark",
            inputs,
            outputs,
            {"jobType": self._job_type(prod, "SPARK", "SQL_JOB", "BATCH")},
            {
                "processing_engine": _facet(
                    prod,
                    "ProcessingEngineRunFacet",
                    "1-1-1",
                    version="3.5.3",
                    name="spark",
                    openlineageAdapterVersion="1.26.0",
                ),
                "spark_properties": _custom_facet(
                    prod,
                    "SparkPropertiesFacet",
                    properties={"spark.master": "yarn", "spark.app.name": app},
                ),
            },
        )

    def _spark_app(self) -> Job:
        prod = PRODUCERS["spark"]
        dom = self._domain()
        app = self._next_name(f"{dom}_features")
        jobs: list[Job] = []
        last: Dataset | None = None
        for step in range(self._rng.choice((1, 2))):
            k = self._rng.choice((1, 1, 2, 3))
            inputs = self._picks((RAW, STAGED), "s3", k)
            if last is not None:
                inputs = [last, *inputs][:3]
            out = self._dataset(NS_S3, f"lake/features/{app}_s{step}", MART, prod, "spark")
            jobs.append(self._spark_job(f"{app}_s{step}", inputs, [out]))
            last = out
        assert last is not None
        root = Job(
            NS_SPARK,
            app,
            "spark",
            [jobs[0].inputs[0]],
            [last],
            {"jobType": self._job_type(prod, "SPARK", "APPLICATION", "BATCH")},
            {},
            jobs,
        )
        return self._register(root)

    def _wide_schema(self, prod: str, n: int) -> tuple[list[str], dict[str, Any]]:
        types = _TYPES["spark"]
        names = [f"{_COLUMNS[i % len(_COLUMNS)]}_{i}" for i in range(n)]
        fields = [{"name": c, "type": types[i % len(types)]} for i, c in enumerate(names)]
        return names, _facet(prod, "SchemaDatasetFacet", "1-2-0", fields=fields)

    def _column_facet(
        self, prod: str, outputs: list[str], inputs: list[tuple[Dataset, list[str]]]
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for out in outputs:
            picked = input_fields(self._rng, inputs)
            self.stats.column_edges += len(picked)
            fields[out] = {"inputFields": picked}
        return _facet(prod, "ColumnLineageDatasetFacet", "1-2-0", fields=fields)

    def _column_chain(self) -> Job:
        """A Spark application: a chain of 2 to 8 jobs, each stating its column lineage."""
        prod = PRODUCERS["spark"]
        app = self._next_name(f"{self._domain()}_wide")
        raw = self._pick((RAW, STAGED), "s3")
        raw_columns = [f["name"] for f in raw.facets["schema"]["fields"]]
        previous: list[tuple[Dataset, list[str]]] = [(raw, raw_columns)]
        jobs: list[Job] = []
        for step in range(self._rng.randint(2, 8)):
            name = f"lake/wide/{app}_s{step}"
            columns, schema = self._wide_schema(prod, self._rng.randint(30, 50))
            out = Dataset(NS_S3, name, MART, {"schema": schema})
            self._datasets[(out.namespace, out.name)] = out
            inputs = previous[-2:]
            job = self._spark_job(f"{app}_s{step}", [ds for ds, _ in inputs], [out])
            job.column_lineage[(out.namespace, out.name)] = self._column_facet(
                prod, columns, inputs
            )
            jobs.append(job)
            previous.append((out, columns))
        root = Job(
            NS_SPARK,
            app,
            "spark",
            [raw],
            [previous[-1][0]],
            {"jobType": self._job_type(prod, "SPARK", "APPLICATION", "BATCH")},
            {},
            jobs,
        )
        return self._register(root)

    def _dbt_project(self) -> Job:
        prod = PRODUCERS["dbt"]
        dom = self._domain()
        project = self._next_name(f"{dom}_models")
        models: list[Job] = []
        last: Dataset | None = None
        for step in range(self._rng.choice((2, 3, 4))):
            k = self._rng.choice((1, 1, 2))
            inputs = [ds for ds in self._picks((STAGED, MART), "postgres", k) if ds is not last]
            if last is not None:
                inputs = [last, *inputs][:2]
            name = f"warehouse.analytics.{project}_m{step}"
            out = self._dataset(NS_POSTGRES, name, MART, prod, "sql")
            models.append(
                Job(
                    NS_DBT,
                    f"{project}.model.{project}_m{step}",
                    "dbt",
                    inputs[:3],
                    [out],
                    {
                        "jobType": self._job_type(prod, "DBT", "MODEL", "BATCH"),
                        "sql": self._sql(prod, inputs[:3], out),
                    },
                    {
                        "processing_engine": _facet(
                            prod,
                            "ProcessingEngineRunFacet",
                            "1-1-1",
                            version="1.8.9",
                            name="dbt",
                            openlineageAdapterVersion="1.26.0",
                        )
                    },
                )
            )
            last = out
        assert last is not None
        root = Job(
            NS_DBT,
            f"dbt-run-{project}",
            "dbt",
            [models[0].inputs[0]],
            [last],
            {"jobType": self._job_type(prod, "DBT", "JOB", "BATCH")},
            {},
            models,
        )
        return self._register(root)

    def _flink_job(self) -> Job:
        prod = PRODUCERS["flink"]
        dom = self._domain()
        name = self._next_name(f"{dom}_enricher")
        inputs = self._picks((RAW,), "kafka", self._rng.choice((1, 2)), NS_KAFKA)
        outputs = [self._dataset(NS_S3, f"lake/streams/{name}", STAGED, prod, "spark")]
        if len(inputs) == 1 and self._rng.random() < 0.5:
            outputs.append(self._dataset(NS_KAFKA, f"prod.{name}.enriched", STAGED, prod, "kafka"))
        job = Job(
            NS_FLINK,
            name,
            "flink",
            inputs,
            outputs,
            {"jobType": self._job_type(prod, "FLINK", "JOB", "STREAMING")},
            {
                "processing_engine": _facet(
                    prod,
                    "ProcessingEngineRunFacet",
                    "1-1-1",
                    version="1.19.1",
                    name="flink",
                    openlineageAdapterVersion="1.26.0",
                )
            },
        )
        return self._register(job)

    def _feast_materialization(self) -> Job:
        prod = PRODUCERS["feast"]
        project = self._rng.choice(FEAST_PROJECTS)
        dom = self._domain()
        view = self._next_name(f"{dom}_stats")
        source = self._pick((MART,), "s3")
        physical = source.namespace + "/" + source.name
        features = [f["name"] for f in source.facets["schema"]["fields"][2:8]]
        owner = f"{dom}-team@example.com"
        data_source = self._dataset(
            project,
            f"{view}_source",
            FEATURE,
            prod,
            "feast",
            uri=physical,
            symlink=(source.namespace, source.name, "TABLE"),
            extra={
                "feast_data_source": _custom_facet(
                    prod,
                    "FeastDataSourceFacet",
                    name=f"{view}_source",
                    source_type="FileSource" if source.namespace == NS_S3 else "PostgreSQLSource",
                    timestamp_field="event_ts",
                )
            },
        )
        fv = self._dataset(
            project,
            view,
            FEATURE,
            prod,
            "feast",
            extra={
                "feast_feature_view": _custom_facet(
                    prod,
                    "FeastFeatureViewFacet",
                    name=view,
                    ttl_seconds=86400 * self._rng.choice((1, 7, 30)),
                    entities=[features[0]],
                    features=features,
                    online_enabled=True,
                    owner=owner,
                )
            },
        )
        online = self._dataset(
            project,
            f"online_store.{view}",
            FEATURE,
            prod,
            "feast",
            extra={
                "feast_online_store": _custom_facet(
                    prod, "FeastOnlineStoreFacet", feature_view=view, store_type="redis"
                )
            },
        )
        job = Job(
            project,
            f"feast_materialize_{view}",
            "feast",
            [data_source, fv],
            [online],
            {
                "jobType": self._job_type(prod, "FEAST", "MATERIALIZATION", "BATCH"),
                "feast_job_kind": _custom_facet(
                    prod, "FeastJobKindFacet", kind="transform", feast_project=project
                ),
            },
            {},
            nominal=True,
        )
        return self._register(job)

    # -- events -----------------------------------------------------------------------

    def _run_id(self) -> str:
        bits = self._rng.getrandbits(128)
        if not self.config.uuid7_run_ids:
            return str(uuid.UUID(int=bits, version=4))
        ms = self._clock_us // 1000
        value = (ms & ((1 << 48) - 1)) << 80 | (0x7 << 76) | (bits & ((1 << 76) - 1))
        value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
        return str(uuid.UUID(int=value))

    def _tick(self) -> int:
        step = 50_000 + int(self._rng.random() * 900_000)
        self._clock_us += step * self.config.tick_scale
        return self._clock_us

    def _generate(self) -> Iterator[Event]:
        while True:
            flow = self._next_flow()
            yield from self._run(flow, None, None)

    def _run(
        self, job: Job, parent: tuple[str, Job] | None, root: tuple[str, Job] | None
    ) -> Iterator[Event]:
        if self.config.drift:
            self._drift(job)
        run_id = self._run_id()
        self.stats.runs += 1
        run_facets: dict[str, Any] = dict(job.run_facets)
        prod = PRODUCERS[job.producer]
        if job.nominal:
            hour = self._clock_us // 3_600_000_000 * 3_600_000_000
            run_facets["nominalTime"] = _facet(
                prod, "NominalTimeRunFacet", "1-0-1", nominalStartTime=_iso(hour)
            )
        if parent is not None:
            self.stats.child_runs += 1
            parent_run, parent_job = parent
            link: dict[str, Any] = {
                "run": {"runId": parent_run},
                "job": {"namespace": parent_job.namespace, "name": parent_job.name},
            }
            if root is not None:
                root_run, root_job = root
                link["root"] = {
                    "run": {"runId": root_run},
                    "job": {"namespace": root_job.namespace, "name": root_job.name},
                }
            run_facets["parent"] = _facet(prod, "ParentRunFacet", "1-2-0", **link)
        yield self._event(job, run_id, run_facets, "START")
        me = (run_id, job)
        for child in job.children:
            yield from self._run(child, me, root or me)
        yield self._event(job, run_id, run_facets, "COMPLETE")

    def _others(self, layer: int, job: Job) -> list[Dataset]:
        """Recent datasets of ``layer`` that ``job`` neither reads nor writes."""
        return [ds for ds in self._layers[layer][-400:] if ds not in job.inputs + job.outputs]

    def _drift(self, job: Job) -> None:
        """History: the job reads another dataset, writes one more or one fewer, re-links one.

        New lists, never changed in place: jobs of a flow may share them.
        """
        rng, chance = self._rng, self.config.drift
        self.stats.drifts += 1
        if job.inputs and rng.random() < chance:
            i = rng.randrange(len(job.inputs))
            pool = self._others(job.inputs[i].layer, job)
            if pool:
                job.inputs = [*job.inputs[:i], rng.choice(pool), *job.inputs[i + 1 :]]
        if job.outputs and rng.random() < chance / 3:
            if len(job.outputs) > 1:
                job.outputs = job.outputs[:1]
            else:
                pool = self._others(job.outputs[0].layer, job)
                if pool:
                    job.outputs = [*job.outputs, rng.choice(pool)]
        named = job.inputs + job.outputs
        if named and rng.random() < chance / 4:
            ds = rng.choice(named)
            link = self._default_symlink(ds.namespace, f"{ds.name}_{self._clock_us}")
            if link is not None:
                ns, name, kind = link
                producer = PRODUCERS[job.producer]
                ds.facets["symlinks"] = _facet(
                    producer,
                    "SymlinksDatasetFacet",
                    "1-0-1",
                    identifiers=[{"namespace": ns, "name": name, "type": kind}],
                )
                ds._by_producer.clear()

    def _event(self, job: Job, run_id: str, run_facets: dict[str, Any], kind: str) -> Event:
        now = self._tick()
        prod = PRODUCERS[job.producer]
        if kind != "START" and "spark_properties" in run_facets:
            # Like the Spark integration: the properties come with the START only.
            run_facets = {k: v for k, v in run_facets.items() if k != "spark_properties"}
        inputs = [ds.ref(prod, output=False) for ds in job.inputs]
        outputs: list[dict[str, Any]] = []
        for ds in job.outputs:
            ref = ds.ref(prod, output=True)
            lineage = job.column_lineage.get((ds.namespace, ds.name))
            if lineage is not None:
                ref["facets"] = {**ref["facets"], "columnLineage": lineage}
            if ds.versioned:
                ref["facets"] = {
                    **ref["facets"],
                    "version": _facet(
                        prod, "DatasetVersionDatasetFacet", "1-0-1", datasetVersion=str(now)
                    ),
                }
            if kind == "COMPLETE":
                rows = 1_000 + int(self._rng.random() * 5_000_000)
                ref["outputFacets"] = {
                    "outputStatistics": _facet(
                        prod,
                        "OutputStatisticsOutputDatasetFacet",
                        "1-0-2",
                        rowCount=rows,
                        size=rows * 180,
                    )
                }
            outputs.append(ref)
        stats = self.stats
        stats.events += 1
        stats.dataset_refs += len(inputs) + len(outputs)
        stats.symlinked_refs += sum(
            1 for ds in (*job.inputs, *job.outputs) if "symlinks" in ds.facets
        )
        return {
            "eventType": kind,
            "eventTime": _iso(now),
            "producer": prod,
            "schemaURL": RUN_EVENT_SCHEMA,
            "run": {"runId": run_id, "facets": run_facets},
            "job": {"namespace": job.namespace, "name": job.name, "facets": job.facets},
            "inputs": inputs,
            "outputs": outputs,
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Statistics of the benchmark workload")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=WorkloadConfig.seed)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="standard")
    args = parser.parse_args(argv)
    workload = Workload(config_for(args.workload, args.seed))
    started = time.perf_counter()
    checkpoints = {10**k for k in range(3, 8)} | {args.events}
    size = 0
    counts = [0, 0, 0, 0, 0]  # datasets per event: 0..4+
    namespaces: dict[str, int] = {}
    print("| events | jobs | datasets | runs | MB | avg bytes/event |")
    print("|---:|---:|---:|---:|---:|---:|")
    for i, event in enumerate(islice(workload.events(), args.events), start=1):
        size += len(orjson.dumps(event))
        n = len(event["inputs"]) + len(event["outputs"])
        counts[min(n, 4)] += 1
        namespaces[event["job"]["namespace"]] = namespaces.get(event["job"]["namespace"], 0) + 1
        if i in checkpoints:
            print(
                f"| {i:,} | {len(workload.jobs()):,} | {len(workload.datasets()):,} "
                f"| {workload.stats.runs:,} | {size / 1e6:,.1f} | {size / i:,.0f} |"
            )
    elapsed = time.perf_counter() - started
    stats = workload.stats
    print(f"\ngenerated and serialized {args.events:,} events in {elapsed:.1f} s")
    print(f"datasets per event: {dict(enumerate(counts))}")
    print(f"symlinked dataset references: {stats.symlinked_refs / stats.dataset_refs:.1%}")
    print(f"child runs (with a parent facet): {stats.child_runs / stats.runs:.1%}")
    print(f"column edges stated: {stats.column_edges:,}")
    print(f"events by job namespace: {dict(sorted(namespaces.items()))}")


if __name__ == "__main__":
    main()
