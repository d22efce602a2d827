"""Run reads: the runs list in any order, one run, its inputs and outputs, its children."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

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


@dataclass(frozen=True, slots=True)
class RunFilter:
    ns_ids: NsIds = None
    job_ids: frozenset[int] | None = None
    state: str | None = None
    since_us: int | None = None  # started at or after
    until_us: int | None = None  # started before


class RunRecord(NamedTuple):
    """A stored run with its job's name (a row of :func:`_run_columns` maps straight onto it)."""

    run_id: str
    state: str  # RUNNING, COMPLETE, FAIL, ABORT or OTHER
    started_us: int  # START time, else its first event's
    ended_us: int | None  # time of its terminal event
    last_event_us: int
    parent_run_id: str | None
    root_run_id: str | None
    ns_id: int
    job_namespace: str
    job_name: str


class RunIo(NamedTuple):
    """A dataset a run read or wrote."""

    direction: Literal["input", "output"]
    dataset_id: int
    namespace: str
    name: str


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


def runs_list(conn: Connection, f: RunFilter) -> OrderedList[RunRecord]:
    """The runs matching ``f``, newest first, for :class:`.PositionCache` to page."""
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
        columns=_run_columns(),
        record=RunRecord._make,
        watermark=watermark,
    )


def _run_columns() -> Select[Any]:
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


def get_run(conn: Connection, run_id: str, ns_ids: NsIds) -> RunRecord | None:
    stmt = _run_columns().where(
        t.runs.c.run_id == run_id, *where_all(in_ids(t.runs.c.ns_id, ns_ids))
    )
    row = conn.execute(stmt).first()
    return None if row is None else RunRecord._make(row)


def run_io(conn: Connection, run_id: str, ns_ids: NsIds) -> list[RunIo]:
    """The datasets the run read and wrote, inputs first, each by namespace and name."""
    io, d = t.run_io.c, t.datasets.c
    stmt = (
        select(io.direction, io.dataset_id, d.namespace, d.name)
        .join(t.datasets, t.datasets.c.id == io.dataset_id)
        .where(io.run_id == run_id, *where_all(in_ids(d.ns_id, ns_ids)))
        .order_by(io.direction, d.namespace, d.name)
    )
    return [RunIo._make(row) for row in conn.execute(stmt)]


def child_runs(conn: Connection, run_id: str, ns_ids: NsIds) -> list[str]:
    r = t.runs.c
    stmt = (
        select(r.run_id)
        .where(r.parent_run_id == run_id, *where_all(in_ids(r.ns_id, ns_ids)))
        .order_by(r.started_us, r.run_id)
    )
    return list(conn.execute(stmt).scalars())


def run_visible(conn: Connection, run_id: str, ns_ids: NsIds) -> bool | None:
    """Whether a stored run is visible; None when it is not stored."""
    found = conn.execute(select(t.runs.c.ns_id).where(t.runs.c.run_id == run_id)).first()
    if found is None:
        return None
    return ns_ids is None or found[0] in ns_ids


# --- Runs in any order the Runs list offers (newest first is :func:`runs_list`'s).


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


def sorted_runs(
    conn: Connection, f: RunFilter, sort: Sort, offset: int, limit: int
) -> Page[RunRecord]:
    """Runs ``offset`` to ``offset + limit`` of those matching ``f``, in ``sort`` order."""
    where = run_where(f)
    total = int(conn.execute(select(func.count()).select_from(t.runs).where(*where)).scalar_one())
    if offset >= total:
        return Page(total, [])
    stmt = (
        _run_columns()
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (t.runs.c.run_id,)))
        .limit(limit)
        .offset(offset)
    )
    return Page(total, [RunRecord._make(row) for row in conn.execute(stmt)])
