"""The repository's read side: typed SQLAlchemy queries for the API."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Connection, func, select

from feast_lineage.consumer.store import tables as t


def count_events(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(t.events)).scalar_one())


def list_events(conn: Connection, *, limit: int, offset: int) -> list[Any]:
    e = t.events.c
    stmt = (
        select(e.id, e.kind, e.event_type, e.event_time_us, e.received_us, e.run_id, e.payload)
        .order_by(e.event_time_us.desc(), e.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(conn.execute(stmt).all())


def load_facets(conn: Connection, table: Any, owner: Any) -> dict[str, Any]:
    stmt = (
        select(table.c.name, t.facet_blobs.c.payload)
        .join(t.facet_blobs, t.facet_blobs.c.id == table.c.blob_id)
        .where(table.c.owner_id == owner)
    )
    return {name: orjson.loads(payload) for name, payload in conn.execute(stmt).all()}


def get_run(conn: Connection, run_id: str) -> Any:
    r, j = t.runs.c, t.jobs.c
    stmt = (
        select(*r, j.namespace.label("job_namespace"), j.name.label("job_name"))
        .join(t.jobs, t.jobs.c.id == r.job_id)
        .where(r.run_id == run_id)
    )
    return conn.execute(stmt).first()


def run_io(conn: Connection, run_id: str) -> list[Any]:
    io, d = t.run_io.c, t.datasets.c
    stmt = (
        select(io.direction, io.facets, d.namespace, d.name)
        .join(t.datasets, t.datasets.c.id == io.dataset_id)
        .where(io.run_id == run_id)
        .order_by(io.direction, d.namespace, d.name)
    )
    return list(conn.execute(stmt).all())


def child_runs(conn: Connection, run_id: str) -> list[str]:
    stmt = (
        select(t.runs.c.run_id)
        .where(t.runs.c.parent_run_id == run_id)
        .order_by(t.runs.c.started_us, t.runs.c.run_id)
    )
    return [row[0] for row in conn.execute(stmt).all()]
