"""Builders of realistic OpenLineage events for tests."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

PRODUCER = "https://github.com/feast-lineage/tests"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"
T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def at(seconds: float) -> str:
    return iso(T0 + timedelta(seconds=seconds))


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://example.com/facet.json", **fields}


def lineage_facet(*entries: tuple[str, str, str, list[tuple[str, str, str]]]) -> dict[str, Any]:
    """A ``lineage`` facet: each entry (target type, namespace, name, [(type, ns, name)] of
    its sources), types "DATASET" or "JOB"."""
    return facet(
        entries=[
            {
                "namespace": ns,
                "name": name,
                "type": kind,
                "inputs": [
                    {"namespace": s_ns, "name": s, "type": s_kind} for s_kind, s_ns, s in src
                ],
            }
            for kind, ns, name, src in entries
        ]
    )


def schema_facet(*names: str) -> dict[str, Any]:
    return facet(fields=[{"name": n, "type": "INT64", "description": f"the {n}"} for n in names])


def dataset(namespace: str, name: str, **facets: Any) -> dict[str, Any]:
    return {"namespace": namespace, "name": name, "facets": facets}


def run_event(
    event_type: str | None = "START",
    *,
    run_id: str | None = None,
    job: tuple[str, str] = ("airflow://prod", "etl.load"),
    time: str | None = None,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    run_facets: dict[str, Any] | None = None,
    job_facets: dict[str, Any] | None = None,
    parent: tuple[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    facets = dict(run_facets or {})
    if parent is not None:
        parent_run, (pns, pname) = parent
        facets["parent"] = facet(run={"runId": parent_run}, job={"namespace": pns, "name": pname})
    event: dict[str, Any] = {
        "eventTime": time or at(0),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id or str(uuid.uuid4()), "facets": facets},
        "job": {"namespace": job[0], "name": job[1], "facets": job_facets or {}},
        "inputs": inputs or [],
        "outputs": outputs or [],
    }
    if event_type is not None:
        event["eventType"] = event_type
    return event


def dataset_event(
    namespace: str, name: str, time: str | None = None, **facets: Any
) -> dict[str, Any]:
    return {
        "eventTime": time or at(0),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/DatasetEvent",
        "dataset": dataset(namespace, name, **facets),
    }


def job_event(
    namespace: str,
    name: str,
    *,
    time: str | None = None,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    **facets: Any,
) -> dict[str, Any]:
    return {
        "eventTime": time or at(0),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/JobEvent",
        "job": {"namespace": namespace, "name": name, "facets": facets},
        "inputs": inputs or [],
        "outputs": outputs or [],
    }


Datasets = list[dict[str, Any]]


def generated_history(
    runs: list[dict[str, Any]],
    jobs: list[tuple[str, str]],
    datasets_of: Callable[[dict[str, Any]], tuple[Datasets, Datasets]],
    job_facets_of: Callable[[dict[str, Any], tuple[str, str]], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The events of generated runs, each ``{"job", "events", "job_event"}``.

    A run's events are run events of one run id (``type``, ``time`` in
    seconds, an optional ``sql``), or one JobEvent of its first when ``job_event``;
    ``datasets_of`` gives an event's (inputs, outputs), ``job_facets_of`` (the
    event, its job) more job facets.
    """
    out = []
    for spec in runs:
        job, run_id = jobs[spec["job"]], str(uuid.uuid4())
        for e in spec["events"]:
            inputs, outputs = datasets_of(e)
            sql = {"sql": facet(query=e["sql"])} if e.get("sql") else {}
            if job_facets_of is not None:
                sql.update(job_facets_of(e, job))
            if spec["job_event"]:
                out.append(
                    job_event(*job, time=at(e["time"]), inputs=inputs, outputs=outputs, **sql)
                )
                break
            out.append(
                run_event(
                    e["type"],
                    run_id=run_id,
                    job=job,
                    time=at(e["time"]),
                    inputs=inputs,
                    outputs=outputs,
                    job_facets=sql,
                )
            )
    return out
