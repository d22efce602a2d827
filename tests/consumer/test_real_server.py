"""The real ``feast-lineage serve_lineage`` process fed by the real openlineage-python client.

The client sends as producers do in production: HttpTransport with api_key
auth and gzip compression. The events are read back over HTTP.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import requests
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import (
    datasource_dataset,
    job_type_job,
    parent_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.transport.http import (
    ApiKeyTokenProvider,
    HttpCompression,
    HttpConfig,
    HttpTransport,
)

from tests.mysql import MySQLServer
from tests.postgres import PostgresServer
from tests.server_process import ServerProcess, lineage_server, write_repo

KEY = "real-server-key-5f1c"  # pragma: allowlist secret
PRODUCER = "https://github.com/feast-lineage/tests/real-server"
READS = "/api/v1/lineage/openlineage"
DB_PASSWORD = "hunter2-db-password"  # pragma: allowlist secret


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mysql", marks=pytest.mark.mysql),
    ],
)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server per store for the module; tests tell their events apart by job name."""
    consumer: dict[str, Any] = {"api_key": KEY}
    if request.param == "postgres":
        pg: PostgresServer = request.getfixturevalue("pg")
        consumer["connection_string"] = pg.create_database()
    elif request.param == "mysql":
        my: MySQLServer = request.getfixturevalue("my")
        consumer["connection_string"] = my.create_database()
    else:
        consumer["connection_string"] = "sqlite:///data/lineage.db"
    repo = write_repo(tmp_path_factory.mktemp("repo"), consumer=consumer)
    with lineage_server(repo) as process:
        yield process


def ol_client(server: ServerProcess, key: str) -> OpenLineageClient:
    config = HttpConfig(
        url=server.url,
        endpoint="api/v1/lineage",
        auth=ApiKeyTokenProvider({"apiKey": key}),
        compression=HttpCompression.GZIP,
        timeout=10,
    )
    return OpenLineageClient(transport=HttpTransport(config))


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read(server: ServerProcess, path: str, **params: Any) -> Any:
    response = httpx.get(
        server.url + READS + path, params=params, headers={"X-API-Key": KEY}, timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_the_python_client_sends_and_the_events_are_stored(server: ServerProcess) -> None:
    client = ol_client(server, KEY)
    run_id, parent_id = str(uuid.uuid4()), str(uuid.uuid4())
    start = datetime.now(tz=UTC).replace(microsecond=0)
    orders = InputDataset(
        namespace="postgres://db.internal:5432",
        name="shop.public.orders",
        facets={
            "schema": schema_dataset.SchemaDatasetFacet(
                fields=[
                    schema_dataset.SchemaDatasetFacetFields(name="id", type="BIGINT"),
                    schema_dataset.SchemaDatasetFacetFields(name="amount", type="NUMERIC"),
                ]
            ),
            "dataSource": datasource_dataset.DatasourceDatasetFacet(
                name="shop",
                uri=f"postgresql://etl_user:{DB_PASSWORD}@db.internal:5432/shop",
            ),
        },
    )
    daily = OutputDataset(namespace="s3://lake", name="marts/daily_revenue")
    job = Job(
        namespace="airflow://prod",
        name=f"revenue.daily.{run_id}",
        facets={
            "sql": sql_job.SQLJobFacet(query="select sum(amount) from orders"),
            "jobType": job_type_job.JobTypeJobFacet(
                processingType="BATCH", integration="AIRFLOW", jobType="TASK"
            ),
        },
    )
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId=parent_id),
        job=parent_run.Job(namespace="airflow://prod", name="revenue"),
    )
    for state, at in ((RunState.START, start), (RunState.COMPLETE, start + timedelta(minutes=3))):
        client.emit(
            RunEvent(
                eventType=state,
                eventTime=iso(at),
                producer=PRODUCER,
                run=Run(runId=run_id, facets={"parent": parent}),
                job=job,
                inputs=[orders],
                outputs=[daily],
            )
        )
    client.emit(
        DatasetEvent(
            eventTime=iso(start),
            producer=PRODUCER,
            dataset=StaticDataset(namespace="s3://lake", name="raw/clicks"),
        )
    )
    client.emit(
        JobEvent(eventTime=iso(start), producer=PRODUCER, job=Job(namespace="dbt", name=run_id))
    )

    page = read(server, "/events", job_name=job.name)
    assert page["total"] == 2
    assert sorted(item["event_type"] for item in page["events"]) == ["COMPLETE", "START"]
    assert {item["run_id"] for item in page["events"]} == {run_id}
    sent_facets = page["events"][0]["event"]["job"]["facets"]
    assert sent_facets["sql"]["query"] == "select sum(amount) from orders"
    assert sent_facets["jobType"]["integration"] == "AIRFLOW"
    assert DB_PASSWORD not in str(page)  # credentials are removed before storing
    assert "etl_user" not in str(page)
    assert [i["kind"] for i in read(server, "/events", job_name=run_id)["events"]] == ["job"]
    datasets = read(server, "/events", namespace="s3://lake", limit=1000)["events"]
    assert "dataset" in {item["kind"] for item in datasets}

    run = read(server, f"/runs/{run_id}")
    assert run["state"] == "COMPLETE"
    assert (run["job_namespace"], run["job_name"]) == ("airflow://prod", job.name)
    assert run["parent_run_id"] == parent_id
    assert run["duration_ms"] == 180_000
    assert [(d["namespace"], d["name"]) for d in run["inputs"]] == [
        ("postgres://db.internal:5432", "shop.public.orders")
    ]
    assert [(d["namespace"], d["name"]) for d in run["outputs"]] == [
        ("s3://lake", "marts/daily_revenue")
    ]
    assert "parent" in run["facets"]


def test_a_client_with_the_wrong_key_gets_401(server: ServerProcess) -> None:
    name = f"wrong-key-{uuid.uuid4()}"
    event = RunEvent(
        eventType=RunState.START,
        eventTime=iso(datetime.now(tz=UTC)),
        producer=PRODUCER,
        run=Run(runId=str(uuid.uuid4())),
        job=Job(namespace="ns", name=name),
    )
    with pytest.raises(requests.HTTPError) as caught:
        ol_client(server, "not-the-key").emit(event)
    response = caught.value.response
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert read(server, "/events", job_name=name)["total"] == 0
    ol_client(server, KEY).emit(event)
    assert read(server, "/events", job_name=name)["total"] == 1


def test_column_lineage_from_the_python_client(server: ServerProcess) -> None:
    """The client's own ColumnLineageDatasetFacet (1-2-0), sent START and COMPLETE."""
    from openlineage.client.facet_v2 import column_lineage_dataset as cl

    client = ol_client(server, KEY)
    run_id = str(uuid.uuid4())
    start = datetime.now(tz=UTC).replace(microsecond=0)
    source = ("postgres://db.internal:5432", f"shop.public.orders_{run_id[:8]}")

    def field(name: str, kind: str, subtype: str) -> cl.InputField:
        return cl.InputField(
            namespace=source[0],
            name=source[1],
            field=name,
            transformations=[cl.Transformation(type=kind, subtype=subtype, description=name)],
        )

    lineage = cl.ColumnLineageDatasetFacet(
        fields={"total": cl.Fields(inputFields=[field("amount", "DIRECT", "AGGREGATION")])},
        dataset=[field("status", "INDIRECT", "FILTER")],
    )
    out = OutputDataset(
        namespace="s3://lake", name=f"totals_{run_id[:8]}", facets={"columnLineage": lineage}
    )
    for state, at in ((RunState.START, start), (RunState.COMPLETE, start + timedelta(seconds=5))):
        client.emit(
            RunEvent(
                eventType=state,
                eventTime=iso(at),
                run=Run(runId=run_id),
                job=Job(namespace="spark", name=f"totals_{run_id[:8]}"),
                producer=PRODUCER,
                inputs=[InputDataset(namespace=source[0], name=source[1])],
                outputs=[out],
            )
        )
    body = read(server, "/columns", namespace="s3://lake", name=out.name, direction="upstream")
    edges = {(e["source"], e["target"]): e for e in body["edges"]}
    total = f"field:s3://lake:{out.name}:total"
    assert set(edges) == {
        (f"field:{source[0]}:{source[1]}:amount", total),
        (f"field:{source[0]}:{source[1]}:status", f"dataset:s3://lake:{out.name}"),
    }
    direct = edges[(f"field:{source[0]}:{source[1]}:amount", total)]
    assert direct["run_id"] == run_id
    assert [(x["type"], x["subtype"]) for x in direct["transformations"]] == [
        ("DIRECT", "AGGREGATION")
    ]
