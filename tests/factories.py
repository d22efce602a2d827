"""Builders of realistic OpenLineage events for tests."""

from __future__ import annotations

import uuid
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
