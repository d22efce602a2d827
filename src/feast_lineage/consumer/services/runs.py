"""Run queries."""

from __future__ import annotations

import uuid

import orjson
from sqlalchemy import Engine

from feast_lineage.consumer.errors import LineageError, NotFound
from feast_lineage.consumer.schemas import RunDataset, RunDetail
from feast_lineage.consumer.store import reads
from feast_lineage.consumer.store import tables as t
from feast_lineage.event_time import to_iso


def run_detail(engine: Engine, run_id: str) -> RunDetail:
    try:
        key = str(uuid.UUID(run_id))
    except ValueError:
        raise LineageError(f"run_id {run_id!r} is not a UUID", code="invalid_parameter") from None
    with engine.connect() as conn:
        row = reads.get_run(conn, key)
        if row is None:
            raise NotFound(f"no run with run_id {key}")
        facets = reads.load_facets(conn, t.run_facets, key)
        io = reads.run_io(conn, key)
        children = reads.child_runs(conn, key)
    inputs: list[RunDataset] = []
    outputs: list[RunDataset] = []
    for item in io:
        ds = RunDataset(
            namespace=item.namespace,
            name=item.name,
            facets=orjson.loads(item.facets) if item.facets else None,
        )
        (inputs if item.direction == "input" else outputs).append(ds)
    duration = None
    if row.ended_us is not None:
        duration = max(0, (row.ended_us - row.started_us) // 1000)
    return RunDetail(
        run_id=key,
        job_namespace=row.job_namespace,
        job_name=row.job_name,
        state=row.state,
        started_at=to_iso(row.started_us),
        ended_at=to_iso(row.ended_us),
        duration_ms=duration,
        parent_run_id=row.parent_run_id,
        root_run_id=row.root_run_id,
        facets=facets,
        inputs=inputs,
        outputs=outputs,
        child_run_ids=children,
    )
