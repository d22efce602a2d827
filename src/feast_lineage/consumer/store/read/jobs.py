"""The Jobs list: jobs with their latest run, filtered and sorted by any column.

A job's latest run is the one that started last (the run id breaks ties),
found per job through the runs' (job, start) index.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, ScalarSelect, func, select

from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.read.positions import AnyRow
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t


class LatestRun(NamedTuple):
    """A job's most recently started run."""

    run_id: str
    state: str
    started_us: int
    ended_us: int | None


@dataclass(frozen=True, slots=True)
class JobRecord:
    """A job of the Jobs list, with its latest run."""

    id: int
    namespace: str
    name: str
    producer: str | None
    created_us: int
    updated_us: int  # 0 for a job only named by a parent facet
    latest_run: LatestRun | None  # None: it never ran


def _job_record(row: AnyRow) -> JobRecord:
    """A row of :func:`job_rows`' query as a record: the one place its columns are read."""
    job_id, namespace, name, producer, created_us, updated_us, *run = row
    latest = LatestRun(*run) if run[0] is not None else None
    return JobRecord(job_id, namespace, name, producer, created_us, updated_us, latest)


def _latest_run_id() -> ScalarSelect[Any]:
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
) -> tuple[int, list[JobRecord]]:
    """A page of jobs in ``sort`` order, each with its latest run, and the total."""
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
            j.id,
            j.namespace,
            j.name,
            j.producer,
            j.created_us,
            j.updated_us,
            r.run_id,
            r.state,
            r.started_us,
            r.ended_us,
        )
        .select_from(t.jobs.outerjoin(t.runs, r.run_id == _latest_run_id()))
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (j.namespace, j.name, j.id)))
        .limit(limit)
        .offset(offset)
    )
    return total, [_job_record(row) for row in conn.execute(stmt)]


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
