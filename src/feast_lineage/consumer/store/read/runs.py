"""Run reads: the runs list in any order, one run, its inputs and outputs, its children."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    func,
    literal_column,
    select,
)

from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.read.positions import OrderedList, Page
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t


@dataclass(frozen=True)
class RunFilter:
    ns_ids: NsIds = None
    job_ids: frozenset[int] | None = None
    state: str | None = None
    since_us: int | None = None  # started at or after
    until_us: int | None = None  # started before


def run_where(f: RunFilter) -> tuple[ColumnElement[bool], ...]:
    r = t.runs.c
    return where_all(
        in_ids(r.ns_id, f.ns_ids),
        in_ids(r.job_id, f.job_ids),
        r.state == f.state if f.state is not None else None,
        r.started_us >= f.since_us if f.since_us is not None else None,
        r.started_us < f.until_us if f.until_us is not None else None,
    )


def job_ids_containing(conn: Connection, text: str, ns_ids: NsIds) -> frozenset[int]:
    """Ids of the jobs whose name contains ``text`` (any case)."""
    j = t.jobs.c
    stmt = select(j.id).where(
        j.name.icontains(text, autoescape=True), *where_all(in_ids(j.ns_id, ns_ids))
    )
    return frozenset(conn.execute(stmt).scalars().all())


def runs_list(conn: Connection, f: RunFilter) -> OrderedList:
    r = t.runs.c
    where = run_where(f)
    # Only SQLite has a rowid that grows with each new run; elsewhere runs
    # are paged directly.
    watermark: ColumnElement[Any] | None = (
        literal_column(f"{t.runs.name}.rowid") if conn.dialect.name == "sqlite" else None
    )
    return OrderedList(
        key=("runs", f),
        table=t.runs,
        order=(r.started_us, r.run_id),
        where=where,
        watermark=watermark,
    )


def run_columns() -> Select[Any]:
    r, j = t.runs.c, t.jobs.c
    return select(
        r.run_id,
        r.state,
        r.started_us,
        r.ended_us,
        r.last_event_us,
        r.parent_run_id,
        r.root_run_id,
        r.ns_id,
        j.namespace.label("job_namespace"),
        j.name.label("job_name"),
    ).select_from(t.runs.join(t.jobs, t.jobs.c.id == r.job_id))


def get_run(conn: Connection, run_id: str, ns_ids: NsIds) -> Any:
    r, j = t.runs.c, t.jobs.c
    stmt = (
        select(*r, j.namespace.label("job_namespace"), j.name.label("job_name"))
        .join(t.jobs, t.jobs.c.id == r.job_id)
        .where(r.run_id == run_id, *where_all(in_ids(r.ns_id, ns_ids)))
    )
    return conn.execute(stmt).first()


def run_io(conn: Connection, run_id: str, ns_ids: NsIds) -> list[Any]:
    io, d = t.run_io.c, t.datasets.c
    stmt = (
        select(io.direction, io.dataset_id, d.namespace, d.name)
        .join(t.datasets, t.datasets.c.id == io.dataset_id)
        .where(io.run_id == run_id, *where_all(in_ids(d.ns_id, ns_ids)))
        .order_by(io.direction, d.namespace, d.name)
    )
    return list(conn.execute(stmt).all())


def child_runs(conn: Connection, run_id: str, ns_ids: NsIds) -> list[str]:
    r = t.runs.c
    stmt = (
        select(r.run_id)
        .where(r.parent_run_id == run_id, *where_all(in_ids(r.ns_id, ns_ids)))
        .order_by(r.started_us, r.run_id)
    )
    return [row[0] for row in conn.execute(stmt).all()]


def run_visible(conn: Connection, run_id: str, ns_ids: NsIds) -> bool | None:
    """Whether a stored run is visible; None when it is not stored."""
    found = conn.execute(select(t.runs.c.ns_id).where(t.runs.c.run_id == run_id)).first()
    if found is None:
        return None
    return ns_ids is None or found[0] in ns_ids


# --- Runs in any order the Runs list offers (newest first is :func:`.run_reads.runs_list`'s).


def _sort_values(sort: Sort) -> tuple[ColumnElement[Any], ...]:
    r, j = t.runs.c, t.jobs.c
    return {
        "started": (r.started_us,),
        "ended": (r.ended_us,),
        "duration": (r.ended_us - r.started_us,),
        "state": (r.state,),
        "job": (j.namespace, j.name),
        "updated": (r.last_event_us,),
    }[sort.key]


def sorted_runs(conn: Connection, f: RunFilter, sort: Sort, offset: int, limit: int) -> Page:
    """Runs ``offset`` to ``offset + limit`` of those matching ``f``, in ``sort`` order."""
    where = run_where(f)
    total = int(conn.execute(select(func.count()).select_from(t.runs).where(*where)).scalar_one())
    if offset >= total:
        return Page(total, [])
    stmt = (
        run_columns()
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (t.runs.c.run_id,)))
        .limit(limit)
        .offset(offset)
    )
    return Page(total, list(conn.execute(stmt).all()))
