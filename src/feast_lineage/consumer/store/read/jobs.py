"""The Jobs list: jobs with their latest run, filtered and sorted by any column.

A job's latest run is the one that started last (the run id breaks ties),
found per job through the runs' (job, start) index.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import ColumnElement, Connection, func, select

from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t


def _latest_run_id() -> Any:
    r = t.runs.c
    return (
        select(r.run_id)
        .where(r.job_id == t.jobs.c.id)
        .order_by(r.started_us.desc(), r.run_id.desc())
        .limit(1)
        .correlate(t.jobs)
        .scalar_subquery()
    )


def _sort_values(sort: Sort) -> tuple[ColumnElement[Any], ...]:
    j, r = t.jobs.c, t.runs.c
    return {
        "name": (j.name,),
        "namespace": (j.namespace,),
        "producer": (j.producer,),
        "updated": (j.updated_us,),
        "latest_state": (r.state,),
        "latest_started": (r.started_us,),
        "latest_duration": (r.ended_us - r.started_us,),
    }[sort.key]


def job_rows(
    conn: Connection,
    ns_ids: NsIds,
    search: str | None,
    sort: Sort,
    offset: int,
    limit: int,
) -> tuple[int, list[Any]]:
    """A page of jobs in ``sort`` order, each with its latest run's columns, and the total."""
    j, r = t.jobs.c, t.runs.c
    where = where_all(
        in_ids(j.ns_id, ns_ids),
        j.name.icontains(search, autoescape=True) if search else None,
    )
    total = int(conn.execute(select(func.count()).select_from(t.jobs).where(*where)).scalar_one())
    if offset >= total:
        return total, []
    stmt = (
        select(
            t.jobs,
            r.run_id.label("run_id"),
            r.state.label("run_state"),
            r.started_us.label("run_started_us"),
            r.ended_us.label("run_ended_us"),
        )
        .select_from(t.jobs.outerjoin(t.runs, r.run_id == _latest_run_id()))
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (j.namespace, j.name, j.id)))
        .limit(limit)
        .offset(offset)
    )
    return total, list(conn.execute(stmt).all())


def latest_run_states(conn: Connection, job_ids: Collection[int]) -> dict[int, str]:
    """Job id -> the state of its latest run (jobs that never ran are left out)."""
    wanted = sorted(job_ids)
    out: dict[int, str] = {}
    for start in range(0, len(wanted), 2000):
        stmt = (
            select(t.jobs.c.id, t.runs.c.state)
            .select_from(t.jobs.join(t.runs, t.runs.c.run_id == _latest_run_id()))
            .where(t.jobs.c.id.in_(wanted[start : start + 2000]))
        )
        out.update((job, state) for job, state in conn.execute(stmt).all())
    return out
